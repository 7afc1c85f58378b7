"""Layer 3 · entrypoints: the text `module:attribute` names a tactic; load it as a protocol Tactic.

Read `lllm/protocol/tactic.py` and `lllm/runtimes/function_tactic.py` first. `lllm inspect` and `lllm serve`
take an entrypoint, as a generated project's README does: `my_app.tactics:build_tactic`.

Contract: `check_entrypoint(text)` returns `(module, attribute path)` or raises ValueError
("Entrypoint must have the form 'module:attribute' ...") for anything that is not two dotted
names joined by one ':' — no spaces, path separators or '%' escapes. `load_tactic_entrypoint(text)`
imports the module (ImportError when it is missing), follows the attribute path (AttributeError),
then turns what it found into a Tactic:

    a Tactic                          itself
    a Tactic subclass                 an instance, built with no arguments
    a function callable with no args  called once (a factory); its result is turned the same way
    any other callable                wrapped with `as_tactic`

Usage:

    >>> check_entrypoint("my_app.tactics:build_tactic")
    ('my_app.tactics', 'build_tactic')
    >>> check_entrypoint("my_app/tactics:build_tactic")
    Traceback (most recent call last):
    ...
    ValueError: Entrypoint must have the form 'module:attribute' (dotted names, no spaces, '/', '\\\\' or '%'), got 'my_app/tactics:build_tactic'
"""

from __future__ import annotations

import importlib
import inspect
import sys

from lllm.protocol.tactic import Tactic
from lllm.runtimes.function_tactic import as_tactic

__all__ = ["check_entrypoint", "load_tactic_entrypoint", "load_from_folder", "as_protocol_tactic"]

FORBIDDEN = set("/\\:%")


def dotted_name(text: str) -> bool:
    """`a.b.c`: non-empty parts without whitespace or forbidden characters."""
    return all(part and not any(ch.isspace() or ch in FORBIDDEN for ch in part) for part in text.split("."))


def check_entrypoint(text) -> tuple[str, str]:
    module, sep, attribute = text.partition(":") if isinstance(text, str) else ("", "", "")
    if not sep or not dotted_name(module) or not dotted_name(attribute):
        raise ValueError("Entrypoint must have the form 'module:attribute' (dotted names, no spaces, "
                         f"'/', '\\\\' or '%'), got {text!r}")
    return module, attribute


def callable_without_arguments(fn) -> bool:
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in parameters)


def as_protocol_tactic(value, where: str) -> Tactic:
    """A Tactic, a Tactic class, a factory or a plain function, as a Tactic (see the table above)."""
    if isinstance(value, Tactic):
        return value
    if isinstance(value, type) and issubclass(value, Tactic):
        return value()
    if not callable(value):
        raise TypeError(f"{where} is a {type(value).__name__}, not a tactic, a tactic class or a function")
    if not callable_without_arguments(value):
        return as_tactic(value)
    produced = value()
    if isinstance(produced, Tactic) or (isinstance(produced, type) and issubclass(produced, Tactic)):
        return as_protocol_tactic(produced, where)
    return as_tactic(produced) if callable(produced) else as_tactic(value)


def load_tactic_entrypoint(text) -> Tactic:
    module_name, attribute = check_entrypoint(text)
    value = importlib.import_module(module_name)
    for part in attribute.split("."):
        value = getattr(value, part)
    return as_protocol_tactic(value, text)


def load_from_folder(text, folder: str) -> Tactic:
    """`load_tactic_entrypoint` with `folder` searched first, as the command line does with '.'."""
    check_entrypoint(text)
    sys.path.insert(0, folder)
    try:
        return load_tactic_entrypoint(text)
    finally:
        sys.path.remove(folder)
