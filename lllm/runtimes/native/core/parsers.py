"""Layer 3 · parsers: a parser turns a reply into a dict, or raises ParseError saying what to fix.

Read `prompt.py` next: a Prompt carries its parser, and the agent loop turns a ParseError into a
repair turn ("Error: {error_message}. Please fix.") instead of a crash.

Contract: `parser.parse(content, **runtime_args) -> dict`; a reply that breaks the contract
raises `ParseError(message)` whose message is written for the model to read. Parsers are
Pydantic models, as in lllm-core: a bad configuration (a tag with a space, a path or markup in
it) is a `ValidationError`, and `model_dump()` / `model_validate()` round-trip the config.

Usage:

    >>> parser = DefaultTagParser(xml_tags=["work"], required_xml_tags=["answer"], signal_tags=["done"])
    >>> parsed = parser.parse("<work>17*23</work><answer>391</answer> <done>")
    >>> parsed["xml_tags"], parsed["signal_tags"]
    ({'work': ['17*23'], 'answer': ['391']}, {'done': True})
    >>> parser.parse("<work>thinking</work>")
    Traceback (most recent call last):
    ...
    lllm.runtimes.native.core.parsers.ParseError: Missing required tag <answer>...</answer>
"""

from __future__ import annotations

import re
from pydantic import BaseModel, ConfigDict, Field, StrictStr, field_validator, model_validator

from lllm.protocol.fields import Metadata

__all__ = ["ParseError", "BaseParser", "DefaultTagParser", "find_xml_blocks", "find_md_blocks", "check_tag"]


# ---- tag names -------------------------------------------------------------------------------------

def check_tag(tag, what: str = "tag") -> str:
    """A tag name is a word: no whitespace, no path separators, no markup delimiters."""
    if not isinstance(tag, str):
        raise TypeError(f"{what} must be a string, got {type(tag).__name__}")
    if not tag.strip():
        raise ValueError(f"{what} must be a non-empty name")
    if any(ch.isspace() for ch in tag):
        raise ValueError(f"{what} {tag!r} must not contain whitespace")
    if tag in (".", "..") or set(tag) & set("/\\:%"):
        raise ValueError(f"{what} {tag!r} must not look like a path (no '/', '\\', ':', '%', '.' or '..')")
    if set(tag) & set("<>`"):
        raise ValueError(f"{what} {tag!r} must not contain markup delimiters (<, >, `)")
    return tag


def _text(content) -> str:
    if not isinstance(content, str):
        raise TypeError(f"text must be a string, got {type(content).__name__}")
    return content


# ---- finding blocks --------------------------------------------------------------------------------

# --8<-- [start:find]
def find_xml_blocks(content: str, tag: str) -> list[str]:
    """The text inside every `<tag>...</tag>` in `content`, in order, without surrounding whitespace."""
    _text(content), check_tag(tag)
    pattern = rf"<{re.escape(tag)}>(.*?)</{re.escape(tag)}>"
    return [block.strip() for block in re.findall(pattern, content, flags=re.DOTALL)]


def find_md_blocks(content: str, tag: str) -> list[str]:
    """The body of every fenced block opened with three backticks and `tag` (```json ... ```)."""
    _text(content), check_tag(tag)
    pattern = rf"```{re.escape(tag)}[ \t]*\n(.*?)```"
    return [block.strip() for block in re.findall(pattern, content, flags=re.DOTALL)]
# --8<-- [end:find]


# ---- the contract ------------------------------------------------------------------------------------

class ParseError(ValueError):
    """The reply broke the prompt's output contract; the message tells the model what to fix."""


class BaseParser:
    """Subclass and implement `parse`. `runtime_args` are extra values the caller passes through."""

    def parse(self, content: str, **runtime_args) -> dict:
        raise NotImplementedError(f"{type(self).__name__} must implement parse(content, **runtime_args)")

    def describe(self) -> str:
        """One line telling the model what a valid reply looks like ('' when nothing to say)."""
        return ""


# ---- the default: tags ---------------------------------------------------------------------------------

# --8<-- [start:tagparser]
class DefaultTagParser(BaseParser, BaseModel):
    """Collects XML tags (`<answer>..</answer>`), fenced markdown blocks (```json) and signal tags.

    Tags in `xml_tags` / `md_tags` are optional (absent tags give an empty list); tags in
    `required_xml_tags` / `required_md_tags` must appear at least once, or parsing raises
    ParseError naming the first missing one. A signal tag is a flag: `<done>` or `<done/>` anywhere
    in the reply makes `signal_tags["done"]` True.
    """
    model_config = ConfigDict(extra="forbid")

    xml_tags: list[StrictStr] = Field(default_factory=list)
    md_tags: list[StrictStr] = Field(default_factory=list)
    signal_tags: list[StrictStr] = Field(default_factory=list)
    required_xml_tags: list[StrictStr] = Field(default_factory=list)
    required_md_tags: list[StrictStr] = Field(default_factory=list)
    parser_args: Metadata = Field(default_factory=dict)

    @field_validator("xml_tags", "md_tags", "signal_tags", "required_xml_tags", "required_md_tags")
    @classmethod
    def _tags_are_words(cls, tags: list[str], info) -> list[str]:
        return [check_tag(tag, f"{info.field_name} tag") for tag in tags]

    @model_validator(mode="after")
    def _required_are_collected(self):
        self.xml_tags = _union(self.xml_tags, self.required_xml_tags)
        self.md_tags = _union(self.md_tags, self.required_md_tags)
        return self

    def parse(self, content: str, **runtime_args) -> dict:
        if not isinstance(content, str):
            raise TypeError(f"content must be a string, got {type(content).__name__}")
        xml = {tag: find_xml_blocks(content, tag) for tag in self.xml_tags}
        md = {tag: find_md_blocks(content, tag) for tag in self.md_tags}
        for tag in self.required_xml_tags:
            if not xml[tag]:
                raise ParseError(f"Missing required tag <{tag}>...</{tag}>")
        for tag in self.required_md_tags:
            if not md[tag]:
                raise ParseError(f"Missing required markdown block ```{tag} ... ```")
        signals = {tag: f"<{tag}>" in content or f"<{tag}/>" in content for tag in self.signal_tags}
        return {"raw": content, "xml_tags": xml, "md_tags": md, "signal_tags": signals}
    # --8<-- [end:tagparser]

    def describe(self) -> str:
        need = [f"<{t}>...</{t}>" for t in self.required_xml_tags] + [f"```{t} block" for t in self.required_md_tags]
        return f"Your reply must contain {', '.join(need)}." if need else ""


def _union(first, second) -> list[str]:
    return list(dict.fromkeys([*(first or ()), *(second or ())]))
