"""MkDocs hook · the site's own stylesheets served as one file, named by its content.

mkdocs.yml lists the site's stylesheets one per concern (`extra_css`: the theme fixes, diagrams,
the runtime's cells, the quizzes, ...). Each is small, but each is a render-blocking request: on a
phone on a slow connection, nine of them cost round trips before the first paint. This hook keeps
the list as the source of truth and serves its files concatenated, in order, as
`assets/stylesheets/site.<hash>.css`, where the hash is of the bytes, so the file can be cached for
a year (`_headers`) and a new deploy gets a new name. The separate files are not published.

A stylesheet that refers to another file (`url(...)` or `@import`) would break once moved, so it is
refused with its name.

>>> bundle([("a.css", "p { color: red }\\n"), ("b.css", "h1 { margin: 0 }")])[:24]
'/* a.css */\\np { color: r'
>>> bundle_name("p {}")
'assets/stylesheets/site.48d24394.css'
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

REFERENCE = re.compile(r"url\(|@import", re.I)
_state: dict = {}


def bundle(sources: list[tuple[str, str]]) -> str:
    """The stylesheets' text in order, each headed by its name (so a rule can be traced to its file)."""
    return "".join(f"/* {name} */\n{text.rstrip()}\n" for name, text in sources)


def bundle_name(text: str) -> str:
    return f"assets/stylesheets/site.{hashlib.sha256(text.encode('utf-8')).hexdigest()[:8]}.css"


def on_config(config, **kwargs):
    docs = Path(config["docs_dir"])
    # Only files of the site's own source: a plugin's stylesheet (mkdocstrings writes its own at the
    # end of the build) and another origin's stay as they are.
    local = [str(entry) for entry in config["extra_css"]
             if not re.match(r"[a-z]+:|//", str(entry)) and (docs / str(entry)).is_file()]
    sources = []
    for name in local:
        text = (docs / name).read_text(encoding="utf-8")
        if REFERENCE.search(text):
            raise ValueError(f"{name} refers to another file (url() or @import); it cannot be served bundled")
        sources.append((name, text))
    text = bundle(sources)
    name = bundle_name(text)
    _state.update(text=text, name=name, sources=set(local))
    config["extra_css"] = [entry for entry in config["extra_css"] if str(entry) not in _state["sources"]] + [name]
    return config


def on_files(files, config, **kwargs):
    for name in _state.get("sources", ()):
        found = files.get_file_from_path(name)
        if found is not None:
            files.remove(found)
    return files


def on_post_build(config, **kwargs) -> None:
    target = Path(config["site_dir"]) / _state["name"]
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(_state["text"], encoding="utf-8")
