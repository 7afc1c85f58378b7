"""MkDocs hook · recorded demos: every agent demo (and the reasoning lab's Run) runs once in CPython
at build time, and the page plays that recording where the in-page runtime cannot start.

Read site/assets/agents/demos.mjs (the widget) and lllm/web/demos.py (what it runs) first. A page
places a demo as `<div class="lllm-demo" data-demo="react" data-goal="...">`; the widget turns the
element's data-* attributes into params and runs `run_json(params)` in the page's Python. This hook
builds the same params from the same attributes (`default_params` mirrors the widget's controls),
runs the same `run_demo` in CPython on the same models and seeds, and writes

    assets/recorded/<page>-<n>.json   {"params": ..., "result": ..., "python": "3.x.y", "note": ...}

adding `data-recording="<its URL>"` to the element. site/assets/runtime/recorded.mjs plays it,
labelled "recorded", when the runtime cannot start (no JSPI and no SharedArrayBuffer, or the
runtime failed to load); tests/browser/test_course_recorded_browser.py checks the page's params equal the
recorded ones. The reasoning lab (`<div class="lllm-reasoning-lab">`, site/assets/reasoning/lab.mjs)
is recorded for its Run button's defaults (`lab_params`, `lab_json`). All together take about 3 s here. A demo whose model is missing
(LLLM_ALLOW_MISSING_MODEL) is recorded as its error, which the page then shows.
"""

from __future__ import annotations

import json
import platform
import re
import sys
from pathlib import Path

from mkdocs.structure.files import File
from mkdocs.utils import get_relative_url

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ROOT = Path(__file__).resolve().parent.parent
DEMOS_JS = ROOT / "site" / "assets" / "agents" / "demos.mjs"
DEMO_RE = re.compile(r'<div class="(lllm-demo|lllm-reasoning-lab)"([^>]*)>')
ATTR_RE = re.compile(r'data-([\w-]+)="([^"]*)"')
NOTE = "Recorded when the site was built: the same Python, params and seed in CPython (onnxruntime for the models)."


def default_script() -> str:
    """The widget's default scripted replies (DEFAULT_SCRIPT in demos.mjs: JSON string literals)."""
    block = re.search(r"const DEFAULT_SCRIPT = \[(.*?)\]\.join\((\"[^\"]*\")\)", DEMOS_JS.read_text(encoding="utf-8"), re.S)
    items = [json.loads(literal) for literal in re.findall(r'"(?:[^"\\]|\\.)*"', block.group(1))]
    return json.loads(block.group(2)).join(items)


def lab_params() -> dict:
    """What the reasoning lab's Run sends when untouched (site/assets/reasoning/lab.mjs: setUp)."""
    return {"kind": "run", "task": "game24", "model": "stand-in", "error_rate": 0.5, "value_noise": 0.5,
            "puzzle": 900, "framework": "got", "seed": 1}


def default_params(attrs: dict[str, str]) -> dict:
    """The params demos.mjs sends for an untouched widget with these data-* attributes."""
    kind, script = attrs["demo"], default_script()

    def brain() -> dict:
        return {"brain": attrs.get("brain", "rule"), "temperature": float(attrs.get("temperature", 0.8)),
                "seed": int(attrs.get("seed", 0)), "script": script}

    category = {"categories": [attrs["category"]]} if attrs.get("category") else {}
    p: dict = {"demo": kind}
    if kind == "react":
        p.update(goal=attrs.get("goal", "What is 17 * 23?"), **brain(), max_steps=5)
    elif kind == "versus":
        p.update(goal=attrs.get("goal", "What is 48 plus 17?"), brains=["tinyllm", "tinyllm-agent"])
    elif kind == "judge":
        p.update(goal=attrs.get("goal", "Quick one: 48 plus 7?"))
    elif kind == "before-after":
        p.update(per_group=int(attrs.get("per-group", 2)))
    elif kind == "lab":
        p.update(**brain(), **category)
    elif kind == "evaluate":
        seeds = [int(s) if s.strip().isdigit() else s.strip() for s in attrs.get("seeds", "0,1,2").split(",") if s.strip()]
        p.update(seeds=seeds, **brain(), **category)
    elif kind == "memory":
        goals = attrs.get("goals", "What is 17 * 23?\nWhat is that plus 9?\nWho is Pip?\nWhere does Lina live?")
        p.update(goals=goals.rstrip().split("\n"), **brain())
    elif kind == "playground":
        p.update(brains=["rule", "tinyllm"], script=script, **category)
    elif kind == "retrieve":
        p.update(context=attrs.get("context", "Who is Pip?"), recent=["user: What is 17 * 23? | agent: 391"], k=2)
    return p


def record(params: dict) -> dict:
    from lllm.web.demos import run_demo          # imported here: only builds with demos pay for it
    from lllm.labs.reasoning_bench.benchmark import lab_json
    try:
        result = json.loads(lab_json(json.dumps(params))) if "kind" in params else run_demo(params)
    except Exception as error:                   # a missing model file: the page shows this sentence
        result = {"ok": False, "error": f"{type(error).__name__}: {error}"}
    return {"params": params, "result": result, "python": platform.python_version(), "note": NOTE}


def recording_path(src_uri: str, n: int) -> str:
    return f"assets/recorded/{src_uri.removesuffix('.md').replace('/', '-')}-{n}.json"


# ---- the MkDocs events ------------------------------------------------------------------------------

def on_files(files, config, **kwargs):
    for f in list(files.documentation_pages()):
        text = Path(f.abs_src_path).read_text(encoding="utf-8") if f.abs_src_path else ""
        for n, match in enumerate(DEMO_RE.finditer(text)):
            attrs = dict(ATTR_RE.findall(match.group(2)))
            params = lab_params() if match.group(1) == "lllm-reasoning-lab" else default_params(attrs)
            content = json.dumps(record(params), ensure_ascii=False)
            files.append(File.generated(config, recording_path(f.src_uri, n), content=content))
    return files


def on_page_markdown(markdown_text, page, config, files, **kwargs):
    count = iter(range(10_000))

    def tag(match):
        url = get_relative_url(recording_path(page.file.src_uri, next(count)), page.file.url)
        return f'<div class="{match.group(1)}" data-recording="{url}"{match.group(2)}>'

    return DEMO_RE.sub(tag, markdown_text)
