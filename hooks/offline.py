"""MkDocs hook · the service worker's file list (site/sw.js), written after the build.

Prepends one line to public/sw.js:

    self.LLLM_OFFLINE = {"version": ..., "files": {url: hash}, "pages": {url: title},
                         "runtime": [...], "onUse": [folder, ...], "later": [url, ...]};

`files`: every file the site serves that works offline (as the URL a browser asks for: a page is
its folder, `agents/react/`; the runtime's files with runtime.json's `?v=` tags), each with a short
hash of its bytes; `version` is the hash of them all, so a new deploy installs a new service worker
with a cache of its own (sw.js explains how it takes over and what it carries over).
`pages`: every page with its title, for the footer's "available offline" list. `runtime`: what the runtime workers fetch (Pyodide, onnxruntime-web, the lllm wheel, every
built model), saved as they download it. `onUse`: folders saved only when used (search
languages). `later`: files of one widget each, saved only when that widget is used, never in the
background (LATER_MODELS: TinyGPT's model, and the inside view's; a reader who never opens them does not
download them; offline, those widgets work where they were used online before). Everything else is saved when used, or once the reader's runtime has answered
and the connection allows (sw.js).

List it after hooks/runtime.py in mkdocs.yml: it reads the files that hook copies.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from pathlib import Path

SKIP = ("_headers", "_redirects", "sw.js", "sitemap.xml", "sitemap.xml.gz")
# Saved only when used, never in the background: search languages other
# than English. The runtime's big files have their own list. Source maps are never saved.
ON_USE = ("assets/javascripts/lunr/", "assets/runtime/vendor/", "assets/runtime/model/")
# Saved only when their widget is used: runtime.json's models by name, and its inspection models (the
# inside view's, and the agent model's, which time travel's drilldown opens).
LATER_MODELS = ("tinygpt",)
LATER_INSIDE = ("inside", "agentInside")


def later_urls(site: Path) -> list[str]:
    """The files of LATER_MODELS and of the inspection models (LATER_INSIDE), as runtime_urls names them."""
    base = "assets/runtime/"
    manifest = json.loads((site / base / "runtime.json").read_text(encoding="utf-8"))
    entries = [manifest["models"][name] for name in LATER_MODELS if name in manifest["models"]]
    entries += [manifest[key] for key in LATER_INSIDE if isinstance(manifest.get(key), dict) and "model" in manifest[key]]
    return [base + entry[k] for entry in entries for k in ("model", "card") if k in entry]


def runtime_urls(site: Path) -> list[str]:
    """What model.mjs and worker.mjs fetch, relative to the site root (from runtime.json)."""
    base = "assets/runtime/"
    manifest = json.loads((site / base / "runtime.json").read_text(encoding="utf-8"))
    urls = [base + "runtime.json", base + manifest["wheel"]]
    urls += [base + manifest["pyodide"] + f for f in ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm",
                                                       "python_stdlib.zip", "pyodide-lock.json")]
    urls += [base + manifest["ort"] + f for f in ("ort.wasm.min.mjs", "ort-wasm-simd-threaded.mjs",
                                                   "ort-wasm-simd-threaded.wasm")]
    for entry in manifest["models"].values():
        urls += [base + entry[k] for k in ("model", "card") if k in entry]
    return urls


def page_files(site: Path, runtime: list[str]) -> dict[str, Path]:
    """URL (relative to the site root; a page is its folder: `agents/react/`, home is ``) -> file."""
    taken = {u.split("?")[0] for u in runtime}
    files = {}
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        rel = path.relative_to(site).as_posix()
        if rel in SKIP or rel in taken or rel.endswith((".map", ".whl")):
            continue
        files[rel.removesuffix("index.html") if path.name == "index.html" else rel] = path
    return files


TITLE = re.compile(r"<title>(.*?)</title>", re.S)


def on_post_build(config, **kwargs) -> None:
    site = Path(config["site_dir"])
    runtime = runtime_urls(site)
    later = later_urls(site)
    served = page_files(site, runtime + later) | {url: site / url.split("?")[0] for url in runtime + later}
    files = {url: hashlib.sha256(path.read_bytes()).hexdigest()[:12] for url, path in served.items()}
    version = hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()[:16]
    pages = {url: path for url, path in served.items() if path.name == "index.html"}
    titles = {url: html.unescape(m.group(1).strip()) if (m := TITLE.search(path.read_text(encoding="utf-8"))) else url
              for url, path in pages.items()}
    listing = {"version": version, "files": files, "pages": titles, "runtime": runtime,
               "onUse": [prefix for prefix in ON_USE if not any(url.startswith(prefix) for url in runtime)],
               "later": later}
    sw = site / "sw.js"
    sw.write_text(f"self.LLLM_OFFLINE = {json.dumps(listing)};\n" + sw.read_text(encoding="utf-8"), encoding="utf-8")
