"""MkDocs hook: put the files the site needs but does not own into public/.

Nothing vendored is committed. JavaScript comes from node_modules/ (installed by `make node` from
the committed package-lock.json) and the trained model's pictures from build/model/ (`make model`).
Each file is added to MkDocs' file list, so pages can link to it and `--strict` checks those links.

To ship another file, add a line to VENDOR (npm) or MODEL_FILES (model outputs).
"""

from __future__ import annotations

import os
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
NODE_MODULES = ROOT / "node_modules"
MODEL_DIR = ROOT / "build" / "model"

# (source folder under node_modules, glob, destination folder in the site)
# (None today: Mermaid, the one such file, now draws the diagrams at build time, hooks/diagrams.py.)
VENDOR: list[tuple[str, str, str]] = []

# files from build/model/ -> destination folder in the site
MODEL_FILES: dict[str, str] = {"loss.svg": "assets/model"}

# Local iteration only: build the pages before `make model` has run (pictures become placeholders).
ALLOW_MISSING_MODEL = os.environ.get("LLLM_ALLOW_MISSING_MODEL") == "1"

PLACEHOLDER_SVG = """<svg xmlns="http://www.w3.org/2000/svg" width="480" height="60">
<text x="10" y="35" font-family="sans-serif" font-size="16">{name}: run `make model` first</text></svg>
"""


def vendor_files() -> list[tuple[Path, str]]:
    """Every (absolute source, site path) pair the VENDOR table selects; fails if npm did not run."""
    pairs = []
    for folder, pattern, dest in VENDOR:
        sources = sorted((NODE_MODULES / folder).glob(pattern))
        if not sources:
            raise PluginError(f"hooks/assets.py: nothing matches node_modules/{folder}/{pattern}; run `make node` (npm ci)")
        pairs += [(src, f"{dest}/{src.name}") for src in sources]
    return pairs


def on_files(files: Files, config: MkDocsConfig) -> Files:
    # the story the /tinyllm/train/ page trains on (site/assets/train/train-worker.mjs fetches it)
    files.append(File.generated(config, "assets/train/story.txt", abs_src_path=str(ROOT / "export" / "story.txt")))
    for src, dest in vendor_files():
        files.append(File.generated(config, dest, abs_src_path=str(src)))
    for name, dest in MODEL_FILES.items():
        src = MODEL_DIR / name
        if src.is_file():
            files.append(File.generated(config, f"{dest}/{name}", abs_src_path=str(src)))
        elif ALLOW_MISSING_MODEL:
            files.append(File.generated(config, f"{dest}/{name}", content=PLACEHOLDER_SVG.format(name=name)))
        else:
            raise PluginError(
                f"hooks/assets.py: build/model/{name} is missing; run `make model` first "
                "(or set LLLM_ALLOW_MISSING_MODEL=1 to preview pages without the model)"
            )
    return files
