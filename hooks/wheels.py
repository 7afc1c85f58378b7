"""MkDocs hook · Pydantic for the page: the pinned wheels the native runtime needs in Pyodide.

The native runtime and the protocol layer (`lllm/runtimes/native/`, `lllm/protocol/`) use
Pydantic, as lllm-core does. Pyodide 314's core has no Pydantic, so after the build this hook puts
these wheels into `public/assets/runtime/vendor/wheels/`, next to a `wheels.json` listing them:

    pydantic_core-2.50.5-cp314-cp314-pyemscripten_2026_0_wasm32.whl   (PyPI's wasm build, 1.5 MB)
    pydantic, typing-extensions, annotated-types, typing-inspection    (pure Python)

pip downloads them once into build/wheels/ (reused when present) and every file is checked
against the SHA-256 pinned below, so the page serves exactly these bytes from its own origin.
The worker loads them (`pyodide.loadPackage`) before the first cell that needs Pydantic only.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import subprocess
import sys
from pathlib import Path

log = logging.getLogger("mkdocs.hooks.wheels")
ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "build" / "wheels"
PLATFORM = ["--platform", "pyemscripten_2026_0_wasm32", "--python-version", "3.14", "--only-binary", ":all:"]

# file name -> sha256 (the files PyPI serves); pydantic 2.14.4 pins pydantic-core 2.50.5
WHEELS = {
    "pydantic_core-2.50.5-cp314-cp314-pyemscripten_2026_0_wasm32.whl":
        "b2910ec0fa5aeb9bef70156f2b79f4783978fdcfaa7b2f1b5d1814458d2e79a1",
    "pydantic-2.14.4-py3-none-any.whl": "653a2ad9f6d8858529c77c72717d0ea991d6c6837fe683246b2f4b2bbfc3fadc",
    "typing_extensions-4.16.0-py3-none-any.whl": "481caa481374e813c1b176ada14e97f1f67a4539ce9cfeb3f350d78d6370c2e8",
    "annotated_types-0.7.0-py3-none-any.whl": "1f02e8b43a8fbbc3f3e0d4f0f4bfc8131bcb4eebe8849b8e5c773f3a1c582a53",
    "typing_inspection-0.4.5-py3-none-any.whl": "bc210535442b39e1bf2805e0c7a17dfd6a4ace760c84c7f7d16245d23a6b1c39",
}


def requirement(filename: str) -> str:
    """`pydantic_core-2.50.5-cp314-...whl` -> `pydantic_core==2.50.5`."""
    name, version = filename.split("-")[:2]
    return f"{name}=={version}"


def fetch(cache: Path = CACHE) -> list[Path]:
    """Every pinned wheel in `cache`, downloaded with pip when missing, each hash checked."""
    missing = [name for name in WHEELS if not (cache / name).is_file()]
    if missing:
        cache.mkdir(parents=True, exist_ok=True)
        # pip's own chatter (e.g. warnings about this machine's pip configuration) stays out of
        # the build log, which --strict builds keep free of warnings; it is shown when pip fails.
        done = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", *PLATFORM,
                               "-d", str(cache), *map(requirement, missing)], capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"pip could not download the page's Pydantic wheels into {cache} "
                               f"(exit {done.returncode}):\n{done.stdout}{done.stderr}")
    paths = []
    for name, expected in WHEELS.items():
        path = cache / name
        if not path.is_file():
            raise FileNotFoundError(f"pip did not download {name} into {cache}")
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest != expected:
            raise ValueError(f"{path}: sha256 {digest}, pinned {expected} (delete it to download again)")
        paths.append(path)
    return paths


def on_post_build(config, **kwargs) -> None:
    out = Path(config["site_dir"]) / "assets" / "runtime" / "vendor" / "wheels"
    out.mkdir(parents=True, exist_ok=True)
    for path in fetch():
        shutil.copyfile(path, out / path.name)
    listing = {"wheels": list(WHEELS), "bytes": sum((out / name).stat().st_size for name in WHEELS)}
    (out / "wheels.json").write_text(json.dumps(listing, indent=1) + "\n", encoding="utf-8")
    log.info(f"pydantic wheels for the page: {len(WHEELS)} files, {listing['bytes']} bytes")
