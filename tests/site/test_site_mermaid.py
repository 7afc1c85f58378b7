"""Every Mermaid diagram follows the seed's rules (site/design.md, "Diagrams") and is drawn at build time into
its page (hooks/diagrams.py: Mermaid in Chromium); a diagram Mermaid cannot draw stops the build, naming the page
and the diagram, and so does a machine without Chromium. Rule failures name the file and line.

The rules, as checked here:
  1. The first statement is `flowchart TD` or `flowchart LR`.
  2. Node text with `<br/>`, punctuation or more than 40 characters is quoted: `A["text"]`.
  3. Edge labels with punctuation are quoted: `-->|"Action: name[args]"|`.
  4. `subgraph`, `classDef` and `class` only in the high-level overview; per-module flows are flat.
  5. No exotic shapes (`[[ ]]`, `(( ))`, `[( )]`, `([ ])`, `{{ }}`, `>text]`, `[/ /]`, `@{ }`), no
     `style`/`linkStyle`/`click`, no unicode arrows.
  6. No node is named `end`.
"""

from __future__ import annotations

import doctest
import html
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path

import pytest

from hooks import architecture, diagrams

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "site"


@dataclass
class Diagram:
    where: str          # "site/architecture.md"
    line: int           # line of the first diagram line (after the fence)
    text: str
    overview: bool = False


def diagrams_in_site() -> list[Diagram]:
    found = []
    for md in sorted(SITE.rglob("*.md")):
        lines = md.read_text(encoding="utf-8").splitlines()
        i = 0
        while i < len(lines):
            if re.match(r"^\s*```+\s*mermaid\s*$", lines[i]):
                start, body = i + 1, []
                i += 1
                while i < len(lines) and not re.match(r"^\s*```+\s*$", lines[i]):
                    body.append(lines[i])
                    i += 1
                text = "\n".join(body) + "\n"
                found.append(Diagram(md.relative_to(ROOT).as_posix(), start + 1, text, "%% overview" in text))
            i += 1
    return found


def all_diagrams() -> list[Diagram]:
    # the architecture page's generated diagrams (the four layers and one per seed family) are
    # overviews: layer subgraphs and status classes are allowed there
    generated = [Diagram(f"hooks/architecture.py ({marker})", 1, text, overview=True)
                 for marker, text in architecture.generated_diagrams().items()]
    assert len(generated) >= 4
    return diagrams_in_site() + generated


# ---- the rules ------------------------------------------------------------------------------------

EXOTIC = re.compile(r"[\w\]\)]\s*(\[\[|\(\(|\[\(|\(\[|\{\{|\[/|\[\\|@\{)|(?<![-=.])>[^\s>-]")
NODE = re.compile(r"(?<![\w|])([A-Za-z_][\w]*)\s*([\[\(\{])")
EDGE_LABEL = re.compile(r"\|([^|]*)\|")
ARROWS = re.compile(r"\s*(?:-->|---|-\.->|==>|--o|--x|<-->|&)\s*(?:\|[^|]*\|)?\s*")
UNICODE_ARROWS = set("→←↔⇒⇐⇔⟶⟵➜➔➝↦")
PLAIN = re.compile(r"^[A-Za-z0-9 _]*$")
CLOSER = {"[": "]", "(": ")", "{": "}"}


def check_rules(diagram: Diagram) -> list[str]:
    problems = []
    first_statement_seen = False
    for offset, raw in enumerate(diagram.text.splitlines()):
        where = f"{diagram.where}:{diagram.line + offset}"
        line = raw.split("%%")[0].rstrip()
        if not line.strip():
            continue
        if any(ch in UNICODE_ARROWS for ch in line):
            problems.append(f"{where}: unicode arrow (use --> ): {raw.strip()}")
        stripped = line.strip()
        if not first_statement_seen:
            first_statement_seen = True
            if stripped not in ("flowchart TD", "flowchart LR"):
                problems.append(f"{where}: a diagram starts with `flowchart TD` or `flowchart LR`, not {stripped!r}")
            continue
        keyword = stripped.split()[0]
        if keyword in ("subgraph", "classDef", "class") or stripped == "end":
            if not diagram.overview:
                problems.append(f"{where}: `{keyword}` only in the high-level overview; module flows stay flat")
            if keyword != "subgraph":
                continue
        if keyword in ("style", "linkStyle", "click"):
            problems.append(f"{where}: no `{keyword}` (heavy styling breaks fragile renderers)")
            continue
        # quoted text is always fine: check it, then blank it out so the scan below skips it
        for label in EDGE_LABEL.findall(line):
            if not (label.startswith('"') and label.endswith('"')) and not PLAIN.match(label):
                problems.append(f'{where}: edge label with punctuation must be quoted: |"{label}"|')
        scan = re.sub(r'"[^"]*"', '"Q"', line)
        scan = EDGE_LABEL.sub("|L|", scan)
        if EXOTIC.search(scan):
            problems.append(f"{where}: exotic shape: {raw.strip()}")
        for match in NODE.finditer(scan):
            node, opener = match.groups()
            if node.lower() == "end":
                problems.append(f"{where}: never name a node `end`")
            rest = scan[match.end():]
            if rest.startswith('"Q"'):
                continue
            text = rest.split(CLOSER[opener])[0]
            if "<br" in text or not PLAIN.match(text) or len(text) > 40:
                problems.append(f'{where}: node text with <br/>, punctuation or length must be quoted: {node}{opener}"{text}"{CLOSER[opener]}')
        if keyword != "subgraph":
            for token in ARROWS.split(NODE.sub(lambda m: m[1], scan)):
                if token.strip().lower() == "end":
                    problems.append(f"{where}: never name a node `end`")
    return problems


def test_the_site_has_diagrams():
    diagrams = diagrams_in_site()
    pages = {d.where for d in diagrams}
    assert {"site/index.md", "site/architecture.md"} <= pages
    assert sum(d.where == "site/architecture.md" for d in diagrams) >= 8


def test_every_diagram_follows_the_mermaid_rules():
    problems = [p for d in all_diagrams() for p in check_rules(d)]
    assert not problems, "Mermaid rule violations:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("text, expected", [
    ("graph TD\n  A --> B\n", "starts with `flowchart TD`"),
    ("flowchart TD\n  A[Load <br/> data] --> B\n", "must be quoted"),
    ("flowchart TD\n  A[fetch: data] --> B\n", "must be quoted"),
    ("flowchart TD\n  A -->|Action: calc[1]| B\n", "edge label with punctuation"),
    ("flowchart TD\n  subgraph S\n  A --> B\n  end\n", "only in the high-level overview"),
    ("flowchart TD\n  A[[Sub]] --> B\n", "exotic shape"),
    ("flowchart TD\n  A((Circle)) --> B\n", "exotic shape"),
    ("flowchart TD\n  A --> end\n", "never name a node `end`"),
    ("flowchart TD\n  A --> end[Done]\n", "never name a node `end`"),
    ("flowchart TD\n  A → B\n", "unicode arrow"),
    ("flowchart TD\n  A --> B\n  style A fill:#f00\n", "no `style`"),
])
def test_rules_catch_each_mistake(text, expected):
    problems = check_rules(Diagram("x.md", 10, text))
    assert any(expected in p for p in problems), problems
    assert all(p.startswith("x.md:1") for p in problems)


def test_rules_accept_the_seed_style():
    text = ('flowchart TD\n    Start["run_react(goal)"] --> Build["build_prompt<br/>(goal + history)"]\n'
            '    Parse -->|"Action: name[args]"| Exec["Execute tool fn"]\n    Parse -->|yes| Done\n'
            '    Stop{"more?"} -->|no| Done\n    A & B --> C\n    A -.-> B\n')
    assert check_rules(Diagram("x.md", 1, text)) == []


# ---- drawing: every diagram is drawn at build time (hooks/diagrams.py) ---------------------------------

def test_the_renderer_s_own_examples():
    assert doctest.testmod(diagrams, optionflags=doctest.ELLIPSIS).failed == 0


def test_every_diagram_is_drawn_into_its_page(site_build):
    """Each fence in a page's source is an SVG in its built page, named, with its source beside it."""
    missing = []
    for md, found in groupby(diagrams_in_site(), key=lambda d: d.where):
        rel = Path(md).relative_to("site").with_suffix("")
        page = site_build.dir / (rel.parent if rel.name == "index" else rel) / "index.html"
        built = page.read_text(encoding="utf-8")
        assert '<pre class="mermaid">' not in built, f"{md}: a Mermaid block was left for the page to draw"
        sources = [html.unescape(t) for t in re.findall(r'class="lllm-mermaid-source"><summary>Diagram source'
                                                        r'</summary><pre[^>]*>(?:<nav .*?</nav>)?<code>(.*?)</code>', built, re.S)]
        missing += [f"{d.where}:{d.line}" for d in found if d.text.rstrip("\n") not in sources]
        for svg in re.findall(r'<div class="mermaid lllm-mermaid">(<svg [^>]*>)', built):
            assert 'role="img"' in svg and 'aria-label="Diagram' in svg and "viewBox=" in svg, f"{md}: {svg[:200]}"
    assert not missing, f"drawn in no page: {missing}"
    assert len(diagrams_in_site()) >= 60


def tiny_site(tmp_path: Path, fences: list[str]) -> Path:
    """A one-page MkDocs site with the site's theme, fences and diagram hook (hooks/diagrams.py)."""
    (tmp_path / "docs").mkdir()
    body = "".join(f"\n```mermaid\n{text}```\n" for text in fences)
    (tmp_path / "docs" / "index.md").write_text("# Tiny\n" + body, encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: Tiny\ntheme: {name: material}\n"
        f"hooks: [{ROOT / 'hooks' / 'diagrams.py'}]\n"
        "markdown_extensions:\n  - pymdownx.superfences:\n      custom_fences:\n        - name: mermaid\n"
        "          class: mermaid\n          format: !!python/name:pymdownx.superfences.fence_code_format\n",
        encoding="utf-8")
    return tmp_path


def build(folder: Path, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q"], cwd=folder,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1", **env},
                          capture_output=True, text=True, timeout=300)


@pytest.mark.browser
def test_a_broken_diagram_stops_the_build_naming_page_and_diagram(tmp_path):
    good = "flowchart TD\n  A --> B\n"
    folder = tiny_site(tmp_path, [good, "flowchart TD\n  A --> B\n  B -->|x| |y| C[\n"])
    result = build(folder)
    assert result.returncode != 0
    assert re.search(r"index\.md: diagram 2 of 2 \(starting 'flowchart TD'\) cannot be drawn: Parse error on line 3",
                     result.stderr + result.stdout), result.stderr[-2000:]


@pytest.mark.browser
def test_a_tiny_site_gets_its_svg(tmp_path):
    folder = tiny_site(tmp_path, ['flowchart LR\n  A["read the goal"] --> B[act]\n'])
    result = build(folder)
    assert result.returncode == 0, result.stderr[-2000:]
    page = (folder / "site" / "index.html").read_text(encoding="utf-8")
    assert 'aria-label="Diagram: read the goal, act"' in page and "read the goal</p>" in page
    assert "<style>" in page and 'pre class="mermaid"' not in page


def test_without_chromium_the_build_says_run_make_browsers(tmp_path):
    # a diagram no cache holds (the text is new each run), so the build must start a browser
    folder = tiny_site(tmp_path, [f"flowchart TD\n  A --> B{time.time_ns()}\n"])
    result = build(folder, CHROMIUM=str(tmp_path / "no-chromium"))
    assert result.returncode != 0
    assert "none could be started" in result.stderr and "run `make browsers`." in result.stderr, result.stderr[-2000:]


def test_one_copy_of_the_css_per_page():
    a, b = "m0123456789abcdef0123", "m3210fedcba9876543210"        # ids as render_page makes them
    svgs = [(a, f'<svg id="{a}"><style>#{a}{{fill:red}}#{a} .node{{stroke:blue}}</style><g/></svg>'),
            (b, f'<svg id="{b}"><style>#{b}{{fill:red}}#{b} .node{{stroke:blue}}#{b} .x{{fill:url(#{b}-s)}}</style><g/></svg>')]
    first, second = diagrams.shared_styles(svgs)
    assert second == f'<svg id="{b}"><g/></svg>'
    assert first == (f'<svg id="{a}"><style>{diagrams.ALL}{{fill:red}}{diagrams.ALL} .node{{stroke:blue}}'
                     f':is(#{b}) .x{{fill:url(#{b}-s)}}</style><g/></svg>')


def test_slim_keeps_the_arrow_heads_in_use():
    svg = ('<svg><marker id="s_end"><path/></marker><marker id="s_circle"><path/></marker>'
           '<path data-points="W3s=" marker-end="url(#s_end)"/></svg>')
    assert diagrams.slim(svg) == '<svg><marker id="s_end"><path/></marker><path marker-end="url(#s_end)"/></svg>'
