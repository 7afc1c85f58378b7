"""The package root · one lazy loader: `lazy_exports(module_name, table)` is a package's `__getattr__` (PEP 562).

`lllm`, `lllm.runtimes`, `lllm.services`, `lllm.labs.debate` and `lllm.labs.factory` each name
their public names in one table, `{module: [name, ...]}`, and load a module only when one of its
names is first asked for; the value is then kept in the package, so the next lookup is a plain
attribute. That keeps `import lllm` stdlib-only and cheap: nothing below is imported until used.
An unknown name is the usual AttributeError, naming the package.

Usage:

    >>> import sys, types
    >>> package = types.ModuleType("demo_package")
    >>> sys.modules["demo_package"] = package
    >>> package.__getattr__ = lazy_exports("demo_package", {"textwrap": ["dedent"]})
    >>> package.dedent("  hi")
    'hi'
    >>> "dedent" in vars(package)
    True
    >>> package.nothing
    Traceback (most recent call last):
    ...
    AttributeError: module 'demo_package' has no attribute 'nothing'
    >>> exported_names({"textwrap": ["dedent", "indent"], "json": ["dumps"]})
    ['dedent', 'dumps', 'indent']
"""

from __future__ import annotations

import importlib
import sys

__all__ = ["lazy_exports", "exported_names"]


def exported_names(table: dict[str, list[str]]) -> list[str]:
    """Every name of `table`, sorted: a package's `__all__`."""
    return sorted(name for names in table.values() for name in names)


def lazy_exports(module_name: str, table: dict[str, list[str]]):
    """A `__getattr__` for the package `module_name`: `table` maps each module to the names it defines."""
    where = {name: module for module, names in table.items() for name in names}

    def __getattr__(name: str):
        if name not in where:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(where[name]), name)
        setattr(sys.modules[module_name], name, value)
        return value
    return __getattr__
