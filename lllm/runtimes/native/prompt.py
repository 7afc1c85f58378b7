"""Layer 3 · Prompt: one turn's contract — template, parser, output format, tools and handler.

Read `parsers.py` and `tools.py` first; `handlers.py` next (what to say when a reply breaks the
contract), then `dialog.py` (where rendered prompts are stored).

Contract: `Prompt(path, prompt, parser=None, format=None, function_list=(), handler=None)` is an
immutable record. `prompt(**variables) -> str` renders the template with `str.format` semantics
(write `{{` for a literal brace); a missing or unknown variable is a `PromptError` naming the
prompt's path and the variable. `prompt.parse(reply) -> dict` applies the output contract:
the `format` type when set (a JSON object checked against a dataclass or Pydantic model), else the
parser, else `{"raw": reply}`. A reply that breaks it raises ParseError. `extend(path=..., **changes)`
returns a new Prompt; `bind_tools(*tools)` binds bare declarations to implementations by exact name.

Usage:

    >>> from lllm.runtimes.native.parsers import DefaultTagParser
    >>> solve = Prompt(path="math/solve", prompt="Solve: {question}",
    ...                parser=DefaultTagParser(xml_tags=["answer"]))
    >>> solve(question="What is 17 * 23?")
    'Solve: What is 17 * 23?'
    >>> solve.parse("<answer>391</answer>")["xml_tags"]["answer"]
    ['391']
    >>> solve()
    Traceback (most recent call last):
    ...
    lllm.runtimes.native.prompt.PromptError: prompt 'math/solve' needs variable 'question' (variables: ['question'])
"""

from __future__ import annotations

import dataclasses
import json
import string

from lllm.runtimes.native.parsers import ParseError, find_md_blocks
from lllm.runtimes.native.schemas import coerce, json_schema, to_jsonable
from lllm.runtimes.native.tools import Function, ToolError

__all__ = ["Prompt", "PromptError"]


class PromptError(ValueError):
    """A prompt was declared or called wrongly: the message names the prompt's path and the field."""


# ---- the record --------------------------------------------------------------------------------------

# --8<-- [start:prompt]
@dataclasses.dataclass(frozen=True)
class Prompt:
    path: str                             # a name like "math/solve"; packages namespace it
    prompt: str = ""                      # the template, str.format syntax
    parser: object = None                 # a BaseParser, or None: any text is a valid reply
    format: type | None = None            # a dataclass or Pydantic model: the reply is a JSON object
    function_list: tuple = ()             # Functions (bound or bare) or "pkg.tools:name" references
    handler: object = None                # a BaseHandler, or None: the agent's default
    metadata: dict = dataclasses.field(default_factory=dict, compare=False)

    def __post_init__(self):
        if not isinstance(self.path, str) or not self.path:
            raise PromptError(f"Prompt(path=...) must be a non-empty string, got {self.path!r}")
        if not isinstance(self.prompt, str):
            raise PromptError(f"prompt {self.path!r}: the template must be a string, got {type(self.prompt).__name__}")
        object.__setattr__(self, "function_list", tuple(self.function_list or ()))
        try:
            self.variables
        except ValueError as exc:
            raise PromptError(f"prompt {self.path!r}: bad template: {exc}") from None
        if self.format is not None:
            json_schema(self.format)  # fails early, naming the type, when it cannot be described

    @property
    def template(self) -> str:
        return self.prompt

    @property
    def variables(self) -> list[str]:
        """The template's variable names, in order of first use."""
        names = [field.split(".")[0].split("[")[0]
                 for _, field, _, _ in string.Formatter().parse(self.prompt) if field is not None]
        if any(name == "" or name.isdigit() for name in names):
            raise ValueError("use named variables like {question}, not {} or {0}")
        return list(dict.fromkeys(names))

    def __call__(self, **variables) -> str:
        wanted = self.variables
        for name in wanted:
            if name not in variables:
                raise PromptError(f"prompt {self.path!r} needs variable {name!r} (variables: {wanted})")
        unknown = sorted(set(variables) - set(wanted))
        if unknown:
            raise PromptError(f"prompt {self.path!r} has no variable(s) {unknown} (variables: {wanted})")
        return self.prompt.format(**variables)
    # --8<-- [end:prompt]

    # ---- the output contract ---------------------------------------------------------------------------

    # --8<-- [start:parse]
    def parse(self, content: str, **runtime_args) -> dict:
        if self.format is not None:
            return parse_json_reply(content, self.format)
        if self.parser is not None:
            return self.parser.parse(content, **runtime_args)
        return {"raw": content}
    # --8<-- [end:parse]

    def format_schema(self) -> dict | None:
        return None if self.format is None else json_schema(self.format)

    # ---- deriving prompts -------------------------------------------------------------------------------

    def extend(self, path: str | None = None, **changes) -> "Prompt":
        """A new Prompt with some fields replaced (the original is unchanged)."""
        bad = sorted(set(changes) - {f.name for f in dataclasses.fields(self)})
        if bad:
            raise PromptError(f"prompt {self.path!r}: extend() got unknown field(s) {bad}")
        return dataclasses.replace(self, path=path or self.path, **changes)

    def functions(self) -> list[Function]:
        """The Function objects offered with this prompt; unresolved references are an error."""
        for item in self.function_list:
            if not isinstance(item, Function):
                raise PromptError(f"prompt {self.path!r}: function_list item {item!r} is not a Function; "
                                  f"resolve references with load_runtime() / Runtime.resolve_prompt()")
        return list(self.function_list)

    def bind_tools(self, *implementations) -> "Prompt":
        """Bind each bare declaration to the implementation with exactly the same name."""
        by_name = {impl.name if isinstance(impl, Function) else impl.__name__: impl for impl in implementations}
        declared = {f.name for f in self.function_list if isinstance(f, Function)}
        stray = sorted(set(by_name) - declared)
        if stray:
            raise ToolError(f"prompt {self.path!r} declares no tool named {stray} (declared: {sorted(declared)})")
        bound = [f.bind(by_name[f.name]) if isinstance(f, Function) and f.name in by_name else f
                 for f in self.function_list]
        return dataclasses.replace(self, function_list=tuple(bound))


# ---- structured output: a JSON object checked against a type -------------------------------------

def parse_json_reply(content: str, format_type) -> dict:
    """The reply's JSON object (a ```json block, or the whole reply), validated against `format_type`."""
    blocks = find_md_blocks(content, "json")
    text = blocks[0] if blocks else content.strip()
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(f"Reply with one JSON object ({exc.msg} at position {exc.pos})") from None
    try:
        return to_jsonable(coerce(value, format_type, getattr(format_type, "__name__", "reply")))
    except TypeError as exc:
        raise ParseError(f"The JSON does not match the schema: {exc}") from None
