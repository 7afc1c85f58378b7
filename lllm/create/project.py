"""Layer 4 · `create_project(template, name)`: write a tactic service project, all of it or nothing.

Read `templates.py` first (the files), and `scaffold.py` for the other kind of project,
the config-driven `lllm.toml` app, which `lllm create NAME` (no template) still writes.

Contract: `create_project(template, name, directory=".", force=False)` writes
`directory/SLUG/` and returns a `ProjectResult` (path, package_name, template, files). SLUG is the
name lower-cased, with runs of other characters turned into '-'; the package name is SLUG with
'-' and '.' turned into '_', prefixed `tactic_` when it would start with a digit or be a Python
keyword (`class` -> `tactic_class`). Everything is checked before anything is written:

    force that is not True/False                TypeError
    a name that is not a string, is empty or has surrounding spaces,
    holds '/', '\\' or ':', a '%' escape, or no letter or digit        ValueError
    a directory that is not a path, or has surrounding spaces         ValueError
    an unknown template                                               ValueError
    a project folder that exists and is not empty (without force)     FileExistsError

The files are written into a temporary folder beside the target, which is then renamed into
place: an error halfway leaves no half-written project behind.

Usage:

    >>> project_slug("Hello World!"), package_name("hello-world"), package_name("class")
    ('hello-world', 'hello_world', 'tactic_class')
"""

from __future__ import annotations

import dataclasses
import keyword
import os
import re
import shutil
import tempfile
from pathlib import Path

from lllm.create.templates import TEMPLATES, project_files

__all__ = ["ProjectResult", "create_project", "project_slug", "package_name", "directory_path"]


@dataclasses.dataclass(frozen=True)
class ProjectResult:
    path: Path
    package_name: str
    template: str
    files: tuple[Path, ...]


# ---- checking what the user typed -------------------------------------------------------------------

def project_slug(name) -> str:
    if not isinstance(name, str) or not name.strip() or name != name.strip():
        raise ValueError(f"Project name must be a non-empty string without surrounding spaces, got {name!r}")
    if any(ch in name for ch in "/\\:"):
        raise ValueError(f"Project name {name!r} must not contain path separators ('/', '\\', ':'); "
                         "use --directory to choose where it goes")
    if "%" in name:
        raise ValueError(f"Project name {name!r} must not contain percent escapes ('%')")
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip(".-").lower()
    if not re.search(r"[a-z0-9]", slug):
        raise ValueError(f"Project name {name!r} must contain at least one letter or number")
    return slug


def package_name(slug: str) -> str:
    package = re.sub(r"[^a-z0-9_]+", "_", slug).strip("_")
    return f"tactic_{package}" if package[0].isdigit() or keyword.iskeyword(package) else package


def directory_path(directory) -> Path:
    try:
        text = os.fspath(directory)
    except TypeError:
        raise ValueError(f"directory must be a path, got {type(directory).__name__}") from None
    if not isinstance(text, str) or not text.strip() or text != text.strip():
        raise ValueError(f"directory must be a non-empty path without surrounding spaces, got {text!r}")
    return Path(text)


# ---- writing: into a temporary folder, then into place ------------------------------------------------

def write_tree(root: Path, files: dict[str, str]) -> tuple[Path, ...]:
    root.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{root.name}-", dir=root.parent))
    try:
        for relative, text in files.items():
            (staging / relative).parent.mkdir(parents=True, exist_ok=True)
            (staging / relative).write_text(text, encoding="utf-8")
        if not root.exists():
            staging.rename(root)
            return tuple(root / relative for relative in files)
        for relative in files:                    # an empty folder, or --force: files go in one by one
            (root / relative).parent.mkdir(parents=True, exist_ok=True)
            os.replace(staging / relative, root / relative)
        return tuple(root / relative for relative in files)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def create_project(template: str, name: str, *, directory=".", force: bool = False) -> ProjectResult:
    if not isinstance(force, bool):
        raise TypeError(f"force must be True or False, got {force!r}")
    slug = project_slug(name)
    root = directory_path(directory) / slug
    if template not in TEMPLATES:
        raise ValueError(f"unknown template {template!r}; choose one of: {', '.join(TEMPLATES)}")
    if root.exists() and not root.is_dir():
        raise FileExistsError(f"{root} exists and is not a folder")
    if root.exists() and any(root.iterdir()) and not force:
        raise FileExistsError(f"{root} exists and is not empty; choose another name or pass force=True (--force)")
    package = package_name(slug)
    files = write_tree(root, project_files(template, slug, package))
    return ProjectResult(path=root, package_name=package, template=template, files=files)
