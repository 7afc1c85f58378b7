"""MkDocs hook · the precache list of the service worker (site/sw.js), written after the build.

Prepends one line to public/sw.js:

    self.LLLM_OFFLINE = {"version": <hash of every listed file>, "pages": [...], "runtime": [...]};

`pages`: every page (as the URL a browser asks for: `agents/react/`), the 404 page, the CSS and
JavaScript, the search index and images: cached when the service worker installs (≈3 MB).
`runtime`: what the runtime workers fetch, exactly as they ask for it (runtime.json's `?v=` tags
included): Pyodide, onnxruntime-web, the lllm wheel and every built model, cached when a page
first starts the runtime. A file that changes changes the version, so a new deploy installs a
new service worker with a cache of its own (sw.js explains how it takes over).

List it after hooks/runtime.py in mkdocs.yml: it reads the files that hook copies.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

SKIP = ("_headers", "_redirects", "sw.js", "sitemap.xml", "sitemap.xml.gz")
# Fetched only when used (cached then): Mermaid on diagram pages, search languages other than
# English, source maps. The runtime's big files have their own list.
ON_USE = ("assets/vendor/", "assets/javascripts/lunr/", "assets/runtime/vendor/", "assets/runtime/model/")


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
        if rel in SKIP or rel in taken or rel.startswith(ON_USE) or rel.endswith((".map", ".whl")):
            continue
        files[rel.removesuffix("index.html") if path.name == "index.html" else rel] = path
    return files


def on_post_build(config, **kwargs) -> None:
    site = Path(config["site_dir"])
    runtime = runtime_urls(site)
    files = page_files(site, runtime) | {url: site / url.split("?")[0] for url in runtime}
    digest = hashlib.sha256()
    for url, path in files.items():
        digest.update(url.encode() + b"\0" + path.read_bytes())
    pages = [url for url in files if url not in runtime]
    listing = {"version": digest.hexdigest()[:16], "pages": pages, "runtime": runtime}
    sw = site / "sw.js"
    sw.write_text(f"self.LLLM_OFFLINE = {json.dumps(listing)};\n" + sw.read_text(encoding="utf-8"), encoding="utf-8")
