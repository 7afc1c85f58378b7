"""MkDocs hook · the in-page runtime's files: Pyodide, onnxruntime-web, the lllm wheel, TinyLLM.

After the build it fills `public/assets/runtime/` (next to the worker, bridge and widgets that
`site/assets/runtime/` already put there):

    vendor/pyodide/   pyodide.mjs, pyodide.asm.{mjs,wasm}, python_stdlib.zip, pyodide-lock.json (npm, core only)
    vendor/ort/       ort.wasm.min.mjs, ort-wasm-simd-threaded.{mjs,wasm} (npm onnxruntime-web, plain wasm:
                      the default and WebGPU builds exceed Cloudflare's 25 MiB per-file limit)
    lllm_learn-<version>-py3-none-any.whl   lllm/ (modules and package data) zipped (pure Python, reproducible)
    model/            tinyllm.onnx and its card tinyllm.json (from `make model`; LLLM_MODEL_DIR overrides),
                      and tinyllm-agent.onnx / .json when `make agent-model` has built them, and
                      tinyllm-inside.onnx / .json, the inspection graph (manifest key "inside", not a model a predictor asks for),
                      and tinyllm-agent-inside.onnx / .json, the agent model's (key "agentInside", from `make models`:
                      time travel's drilldown loads it the first time one of that model's characters is opened)
    runtime.json      the manifest the workers read: where each piece is and how many bytes each worker
                      downloads as it starts ("bytes": {"model": ..., "python": ...})

The manifest lists every model under "models", by the name a predictor asks for. Each loads the
first time something asks for it by name (a page downloads only the model its first answer uses;
"story" names the default). A model that was not built
is listed as {"missing": "... run `make ...`"}, so the page says what to run instead of failing
on a 404. A missing agent model is only logged (it takes minutes to train, and only its demos need
it); a missing story model is a warning (every page with live code needs it).

Nothing here is committed: node_modules/ comes from the lockfile, build/model/ from `make model`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import os
import shutil
import tomllib
import zipfile
from pathlib import Path

log = logging.getLogger("mkdocs.hooks.runtime")
ROOT = Path(__file__).resolve().parent.parent

PYODIDE_FILES = ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"]
ORT_FILES = ["ort.wasm.min.mjs", "ort-wasm-simd-threaded.mjs", "ort-wasm-simd-threaded.wasm"]
FETCHED = {"pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json", "ort-wasm-simd-threaded.wasm"}
WHEEL_DATE = (2020, 1, 1, 0, 0, 0)   # fixed timestamps: the same sources give the same wheel bytes
STORY_MODEL = "tinyllm"              # the default model (every model loads on demand)
MODELS = {  # name -> (what the page calls it, the command that builds it into build/model/)
    "tinyllm": ("the TinyLLM model", "make model"),
    "tinyllm-agent": ("the agent model", "make agent-model"),
    "tinygpt": ("the TinyGPT model", "make model"),
}
INSIDE_MODEL = "tinyllm-inside"      # the story model's inspection graph (/tinyllm/inside/), not a predictor
AGENT_INSIDE_MODEL = "tinyllm-agent-inside"   # the agent model's (time travel's drilldown), not a predictor
INSIDE = {INSIDE_MODEL: ("the inspection model", "make model"),
          AGENT_INSIDE_MODEL: ("the agent model's inspection model", "make models")}


# ---- the lllm wheel --------------------------------------------------------------------------------

def build_wheel(out_dir: Path) -> Path:
    """A pure-Python wheel of lllm/ (what `pip wheel --no-deps .` would give, without a subprocess)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    name, version = project["name"].replace("-", "_"), project["version"]
    dist_info = f"{name}-{version}.dist-info"
    files: dict[str, bytes] = {}
    for path in sorted((ROOT / "lllm").rglob("*")):        # modules and package data (e.g. CSV files)
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            files[path.relative_to(ROOT).as_posix()] = path.read_bytes()
    files[f"{dist_info}/METADATA"] = (f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {version}\n"
                                      f"Summary: {project.get('description', '')}\n").encode()
    files[f"{dist_info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: hooks/runtime.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = [f"{p},sha256={base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b'=').decode()},{len(b)}"
              for p, b in files.items()]
    files[f"{dist_info}/RECORD"] = ("\n".join(record + [f"{dist_info}/RECORD,,"]) + "\n").encode()
    wheel = out_dir / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as zf:
        for path, data in files.items():
            zf.writestr(zipfile.ZipInfo(path, WHEEL_DATE), data, zipfile.ZIP_DEFLATED)
    return wheel


# ---- copying ---------------------------------------------------------------------------------------

def _copy(files: list[str], src: Path, dst: Path) -> None:
    dst.mkdir(parents=True, exist_ok=True)
    for name in files:
        if not (src / name).is_file():
            raise FileNotFoundError(f"{src / name} is missing: run `npm ci` (or `make node`)")
        shutil.copyfile(src / name, dst / name)


def _version_tag(path: Path) -> str:
    """A short content hash, added as ?v= so a rebuilt file is never served from a stale cache."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def _model_entry(name: str, model_dir: Path, out: Path) -> tuple[dict, list[Path]]:
    """The manifest entry for one model and the files copied for it (none if it was not built)."""
    what, command = {**MODELS, **INSIDE}[name]
    files = [f"{name}.onnx", f"{name}.json"]
    if not all((model_dir / f).is_file() for f in files):
        return {"missing": f"{what} is not built: run `{command}`", "build": command}, []
    _copy(files, model_dir, out / "model")
    copied = [out / "model" / f for f in files]
    return {"model": f"model/{files[0]}?v={_version_tag(copied[0])}",
            "card": f"model/{files[1]}?v={_version_tag(copied[1])}", "build": command}, copied


def on_post_build(config, **kwargs) -> None:
    out = Path(config["site_dir"]) / "assets" / "runtime"
    out.mkdir(parents=True, exist_ok=True)
    _copy(PYODIDE_FILES, ROOT / "node_modules" / "pyodide", out / "vendor" / "pyodide")
    _copy(ORT_FILES, ROOT / "node_modules" / "onnxruntime-web" / "dist", out / "vendor" / "ort")
    wheel = build_wheel(out)

    model_dir = Path(os.environ.get("LLLM_MODEL_DIR", ROOT / "build" / "model"))
    manifest = {"pyodide": "vendor/pyodide/", "ort": "vendor/ort/",
                "wheel": f"{wheel.name}?v={_version_tag(wheel)}", "story": STORY_MODEL, "models": {}}
    # What each worker downloads as it starts, so the page can show bytes against a total:
    # the model worker (model.mjs) onnxruntime-web, the Python worker the rest (models load later).
    fetched = {"python": [out / "vendor" / "pyodide" / f for f in PYODIDE_FILES if f in FETCHED] + [wheel],
               "model": [out / "vendor" / "ort" / f for f in ORT_FILES if f in FETCHED]}
    for name in MODELS:
        manifest["models"][name], copied = _model_entry(name, model_dir, out)
        if not copied:
            say = log.warning if name == STORY_MODEL else log.info
            say(f"no {name} in {model_dir} (run `{MODELS[name][1]}`): the page will say so when it asks for it")
    manifest["inside"], _ = _model_entry(INSIDE_MODEL, model_dir, out)   # only /tinyllm/inside/ and the drilldown load it
    manifest["agentInside"], _ = _model_entry(AGENT_INSIDE_MODEL, model_dir, out)   # only the drilldown, when asked
    manifest["bytes"] = {part: sum(p.stat().st_size for p in files) for part, files in fetched.items()}
    manifest["totalBytes"] = sum(manifest["bytes"].values())
    (out / "runtime.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
