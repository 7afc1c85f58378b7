"""MkDocs hook: the code editor's bundle, assets/editor/codemirror.mjs, built from node_modules/.

hooks/editor.mjs imports CodeMirror 6 from npm (versions pinned by package-lock.json); esbuild (a
devDependency) bundles it with every import it reaches into one minified ES module, which is added
to MkDocs' file list like any other page asset. Nothing generated is committed. The page loads it
only where a learner types code (site/assets/editor/editor.mjs), and only when that code comes near.

    python -c "from hooks.editor import bundle; print(len(bundle()))"   # bytes of the module

Bundling takes well under a second, so it runs on every build (and every `mkdocs serve` rebuild).
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
ENTRY = ROOT / "hooks" / "editor.mjs"
ESBUILD = ROOT / "node_modules" / ".bin" / "esbuild"
DEST = "assets/editor/codemirror.mjs"
# es2020: every engine the site supports (module workers, optional chaining); no newer syntax.
FLAGS = ["--bundle", "--format=esm", "--minify", "--target=es2020", "--legal-comments=none", "--log-level=warning"]


def bundled_packages(inputs: list[str]) -> list[tuple[str, str, str]]:
    """(name, version, licence) of each npm package among esbuild's `inputs`, from the lockfile."""
    lock = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    names = set()
    for path in inputs:
        if "node_modules/" in path:
            parts = path.rsplit("node_modules/", 1)[1].split("/")
            names.add("/".join(parts[:2]) if parts[0].startswith("@") else parts[0])
    return sorted((name, lock[f"node_modules/{name}"]["version"], lock[f"node_modules/{name}"].get("license", "?"))
                  for name in names)


def bundle() -> bytes:
    """The editor module's bytes: esbuild's output, headed by the packages it holds and their licences."""
    if not ESBUILD.is_file():
        raise PluginError("hooks/editor.py: node_modules/.bin/esbuild is missing; run `make node` (npm ci)")
    with tempfile.TemporaryDirectory() as tmp:
        out, meta = Path(tmp) / "editor.mjs", Path(tmp) / "meta.json"
        done = subprocess.run([str(ESBUILD), str(ENTRY), *FLAGS, f"--outfile={out}", f"--metafile={meta}"],
                              capture_output=True, cwd=ROOT)
        if done.returncode != 0:
            raise PluginError(f"hooks/editor.py: esbuild failed on hooks/editor.mjs:\n{done.stderr.decode(errors='replace')}")
        code, [output] = out.read_bytes(), json.loads(meta.read_text(encoding="utf-8"))["outputs"].values()
    inputs = [path for path, used in output["inputs"].items() if used["bytesInOutput"] > 0]   # tree-shaken ones out
    names = ", ".join(f"{name} {version} ({licence})" for name, version, licence in bundled_packages(inputs))
    banner = f"/* The site's code editor (hooks/editor.mjs), bundled by esbuild from: {names}. */\n"
    return banner.encode() + code


def on_files(files: Files, config: MkDocsConfig) -> Files:
    files.append(File.generated(config, DEST, content=bundle()))
    return files
