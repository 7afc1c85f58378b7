"""Layer 3 · Prompt: one turn's contract — template, parser, output format, tools and handler.

Read `parsers.py` and `tools.py` first; `handlers.py` next (what to say when a reply breaks the
contract), then `dialog.py` (where rendered prompts are stored).

Contract: `Prompt(path, prompt, parser=None, format=None, function_list=(), handler=None,
metadata={}, addon_args={})` is an immutable Pydantic record (bytes or non-string keys are a
`ValidationError`, as in lllm-core). `prompt(**variables) -> str` renders the template with
`str.format` semantics (write `{{` for a literal brace); a missing variable is a `PromptError`
naming the prompt's path and the variable, extra variables are ignored. `template_vars` is the
set of names the template uses; `info_dict()` describes the prompt, with a hash of its template.
`prompt.parse(reply) -> dict` applies the output contract: the `format` type when set (a JSON
object checked against a dataclass or Pydantic model), else the parser, else nothing; the
result always carries `raw`, the reply itself. A reply that breaks it raises ParseError.
`extend(path=..., **changes)` returns a new Prompt under a new path; `bind_tools(*tools)` binds
bare declarations to implementations by exact name; `functions` maps names to Functions.

Usage:

    >>> from lllm.runtimes.native.core.parsers import DefaultTagParser
    >>> solve = Prompt(path="math/solve", prompt="Solve: {question}",
    ...                parser=DefaultTagParser(xml_tags=["answer"]))
    >>> solve(question="What is 17 * 23?")
    'Solve: What is 17 * 23?'
    >>> solve.parse("<answer>391</answer>")["xml_tags"]["answer"]
    ['391']
    >>> solve()
    Traceback (most recent call last):
    ...
    lllm.runtimes.native.core.prompt.PromptError: prompt 'math/solve' needs variable 'question' (variables: ['question'])
"""

from __future__ import annotations

import hashlib
import json
import string
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictStr

from lllm.protocol.fields import Metadata
from lllm.runtimes.native.core.parsers import ParseError, find_md_blocks
from lllm.runtimes.native.core.schemas import coerce, json_schema, to_jsonable
from lllm.runtimes.native.core.tools import Function, ToolError

__all__ = ["Prompt", "PromptError"]


class PromptError(ValueError):
    """A prompt was declared or called wrongly: the message names the prompt's path and the field."""


# ---- the record --------------------------------------------------------------------------------------

# --8<-- [start:prompt]
class Prompt(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    path: StrictStr                       # a name like "math/solve"; packages namespace it
    prompt: StrictStr = ""                # the template, str.format syntax
    parser: Any = None                    # a BaseParser (or anything with parse()), None: any text is valid
    format: Any = None                    # a dataclass or Pydantic model: the reply is a JSON object
    function_list: tuple[Function | StrictStr, ...] = ()   # Functions or "pkg.tools:name" references
    handler: Any = None                   # a BaseHandler, or None: the agent's default
    metadata: Metadata = Field(default_factory=dict)
    addon_args: Metadata = Field(default_factory=dict)     # extra settings carried with the prompt

    def __init__(self, **fields):
        super().__init__(**fields)
        self._check()                         # after validation: a PromptError stays a PromptError

    def _check(self) -> None:
        if not self.path.strip():
            raise PromptError(f"Prompt(path=...) must be a non-empty string, got {self.path!r}")
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

    @property
    def template_vars(self) -> set[str]:
        return set(self.variables)

    def __call__(self, **variables) -> str:
        wanted = self.variables
        for name in wanted:
            if name not in variables:
                raise PromptError(f"prompt {self.path!r} needs variable {name!r} (variables: {wanted})")
        return self.prompt.format(**{name: variables[name] for name in wanted})
    # --8<-- [end:prompt]

    def info_dict(self) -> dict:
        """What this prompt is, as plain data (a copy): path, variables, tools, and a hash of the template."""
        return {"path": self.path, "prompt_hash": hashlib.sha256(self.prompt.encode()).hexdigest()[:16],
                "template_vars": sorted(self.template_vars), "parser": type(self.parser).__name__ if self.parser else None,
                "functions": [f.name if isinstance(f, Function) else f for f in self.function_list],
                "metadata": json.loads(json.dumps(self.metadata, default=str)),
                "addon_args": json.loads(json.dumps(self.addon_args, default=str))}

    # ---- the output contract ---------------------------------------------------------------------------

    # --8<-- [start:parse]
    def parse(self, content: str, **runtime_args) -> dict:
        if self.format is not None:
            parsed = parse_json_reply(content, self.format)
        elif self.parser is None:
            parsed = {}
        elif callable(getattr(type(self.parser), "parse", None)):
            parsed = self.parser.parse(content, **runtime_args)
        else:                                # a plain callable parser
            parsed = self.parser(content, **runtime_args)
        return {**parsed, "raw": content}
    # --8<-- [end:parse]

    def format_schema(self) -> dict | None:
        return None if self.format is None else json_schema(self.format)

    # ---- deriving prompts -------------------------------------------------------------------------------

    def extend(self, path: str, **changes) -> "Prompt":
        """A new Prompt under a new `path` with some fields replaced (the original is unchanged)."""
        if not isinstance(path, str) or not path.strip():
            raise PromptError(f"prompt {self.path!r}: extend() needs a new path, got {path!r}")
        bad = sorted(set(changes) - set(type(self).model_fields))
        if bad:
            raise PromptError(f"prompt {self.path!r}: extend() got unknown field(s) {bad}")
        return self._copy(path=path, **changes)

    def _copy(self, **changes) -> "Prompt":
        return type(self)(**{**{name: getattr(self, name) for name in type(self).model_fields}, **changes})

    @property
    def functions(self) -> dict[str, Function]:
        """The Functions offered with this prompt, by name (copies); unresolved references are an error."""
        for item in self.function_list:
            if not isinstance(item, Function):
                raise PromptError(f"prompt {self.path!r}: function_list item {item!r} is not a Function; "
                                  f"resolve references with load_runtime() / Runtime.resolve_prompt()")
        return {f.name: f.model_copy(deep=True) for f in self.function_list}

    def get_function(self, name: str) -> Function:
        functions = self.functions
        if name not in functions:
            raise ToolError(f"prompt {self.path!r} offers no tool {name!r} (tools: {sorted(functions)})")
        return functions[name]

    def bind_tools(self, *implementations) -> "Prompt":
        """Bind each bare declaration to the implementation with exactly the same name."""
        by_name = {impl.name if isinstance(impl, Function) else impl.__name__: impl for impl in implementations}
        declared = {f.name for f in self.function_list if isinstance(f, Function)}
        stray = sorted(set(by_name) - declared)
        if stray:
            raise ToolError(f"prompt {self.path!r} declares no tool named {stray} (declared: {sorted(declared)})")
        bound = [f.bind(by_name[f.name]) if isinstance(f, Function) and f.name in by_name else f
                 for f in self.function_list]
        return self._copy(function_list=tuple(bound))


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
