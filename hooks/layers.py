"""The one table of lllm/'s folders and their layers, and the maps drawn from it.

`FOLDERS` is read by the layer test (tests/house/test_layers.py: a module's docstring names its
folder's layer), by the site build (the design and architecture pages' `<!-- lllm:layers -->` and
`<!-- lllm:tree -->` markers) and by a test that checks the package docstring shows `layer_map()`
as it is now. Change a folder here and every map follows; forget to, and a test names the drift.

    >>> layer_of_folder("runtimes"), LAYER_NAMES[6]
    (3, 'Command line')
    >>> layer_map().splitlines()[0]
    '    lllm/model/          1 · TinyLLM in Python: tokenizer, sampling, generation, the ONNX backend'
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# (folder under lllm/, its layer, what lives there), bottom to top. 5 and 6 are edges, not layers:
# the page adapters and the command line import the library; nothing in the library imports them.
FOLDERS = [
    ("model", 1, "TinyLLM in Python: tokenizer, sampling, generation, the ONNX backend"),
    ("predictors", 2, "the narrow waist: predictor(prompt, max_new_tokens) -> completion"),
    ("agents", 3, "ReAct, its tools and memory, composed over a predictor"),
    ("protocol", 3, "the LLLM protocol: the typed Tactic, call context, trace, events, errors"),
    ("runtimes", 3, "the LLLM native runtime (Prompt, Agent, Dialog, Tactic) and tactics from functions"),
    ("reasoning", 3, "the reasoning-framework API: Framework, Agent, Environment, State"),
    ("timetravel", 4, "time travel: any run recorded at the seam, re-run from any call; every demo's run files"),
    ("labs", 4, "usage and testing: labs, evaluator, factory, held-out sets, debate, workflows"),
    ("services", 4, "tactics over HTTP: the protocol service, its servers, the client's import path"),
    ("create", 4, "new projects, written whole or not at all"),
    ("web", 5, "the page adapters: the browser predictor, code cells, the demos' JSON"),
    ("commands", 6, "the command line: one module per `python -m lllm` subcommand"),
]
LAYER_NAMES = {1: "Layer 1", 2: "Layer 2", 3: "Layer 3", 4: "Layer 4", 5: "Platform adapter", 6: "Command line"}
LAYER_LABELS = {1: "1 · Base", 2: "2 · Narrow waist", 3: "3 · Composition", 4: "4 · Usage and testing",
                5: "page adapters", 6: "command line"}
# The three files to read first, and to imitate when writing a new one.
EXEMPLARS = [("lllm/predictors/contract.py", "the narrow waist: a contract, its errors and a runnable example"),
             ("lllm/model/sampling.py", "one small idea, exact, with its twin in JavaScript"),
             ("export/model.py", "the model in numpy, every shape named")]


def layer_of_folder(folder: str) -> int:
    return {name: layer for name, layer, _ in FOLDERS}[folder]


def layer_map() -> str:
    """The folder-to-layer map as the package docstring shows it (an indented block)."""
    return "\n".join(f"    {'lllm/' + name + '/':<20} {str(layer) + ' ·' if layer <= 4 else '   '} {what}"
                     for name, layer, what in FOLDERS)


def layers_table() -> str:
    rows = ["| folder | layer | what lives there |", "|---|---|---|"]
    rows += [f"| `lllm/{name}/` | {LAYER_LABELS[layer]} | {what} |" for name, layer, what in FOLDERS]
    return "\n".join(rows) + "\n"


def tree(root: Path = ROOT) -> str:
    """Every folder of the package, one line each (its `__init__` docstring's first line), as a tree."""
    lines = ["lllm/"]
    order = {name: i for i, (name, _, _) in enumerate(FOLDERS)}
    inits = [init for init in (root / "lllm").rglob("__init__.py") if init.parent != root / "lllm"]
    for init in sorted(inits, key=lambda p: (order.get(p.parent.relative_to(root / "lllm").parts[0], 99),
                                             p.parent.relative_to(root / "lllm").parts)):
        folder = init.parent.relative_to(root / "lllm")
        doc = (ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or "").splitlines()
        summary = doc[0].split(" · ", 1)[-1] if doc else ""
        indent = "    " * (len(folder.parts) - 1)
        lines.append(f"    {indent}{folder.name + '/':<{24 - len(indent)}} {summary}")
    return "```text\n" + "\n".join(lines) + "\n```\n"


def exemplars() -> str:
    return "\n".join(f"- `{path}`: {why}" for path, why in EXEMPLARS) + "\n"


API_PAGES = ("model", "predictors", "agents", "native", "labs", "web")


def api_index(root: Path = ROOT) -> str:
    """The API reference's index: each page's title and the modules it documents (its `:::` lines)."""
    rows = []
    for page in API_PAGES:
        lines = (root / "site" / "api" / f"{page}.md").read_text(encoding="utf-8").splitlines()
        title = next(line[2:] for line in lines if line.startswith("# "))
        modules = [line[4:].strip() for line in lines if line.startswith("::: ")]
        rows.append(f"- [{title}]({page}.md): " + ", ".join(f"`{m}`" for m in modules))
    return "\n".join(rows) + "\n"


def on_page_markdown(markdown: str) -> str:
    for marker, make in (("<!-- lllm:layers -->", layers_table), ("<!-- lllm:tree -->", tree),
                         ("<!-- lllm:exemplars -->", exemplars), ("<!-- lllm:api -->", api_index)):
        if marker in markdown:
            markdown = markdown.replace(marker, make())
    return markdown
