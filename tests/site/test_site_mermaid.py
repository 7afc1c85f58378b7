"""Every Mermaid diagram follows the seed's rules (site/design.md, "Diagrams") and parses with the Mermaid the
site ships, in Chromium. Failures name the file and line.

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

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from hooks import architecture

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


# ---- parsing with the shipped Mermaid, in Chromium -------------------------------------------------------

PARSE_ALL = """async ({url, diagrams}) => {
  const mermaid = (await import(url)).default;
  mermaid.initialize({startOnLoad: false});
  const errors = [];
  for (const text of diagrams) {
    try { await mermaid.parse(text); errors.push(null); }
    catch (e) { errors.push(String((e && e.message) || e)); }
  }
  return errors;
}"""


@pytest.mark.browser
def test_every_diagram_parses_with_the_shipped_mermaid(page, site_server):
    diagrams = all_diagrams()
    page.page.goto(site_server.url + "roadmap/")
    url = site_server.url + "assets/vendor/mermaid/mermaid.esm.min.mjs"
    errors = page.page.evaluate(PARSE_ALL, {"url": url, "diagrams": [d.text for d in diagrams]})
    failures = []
    for diagram, error in zip(diagrams, errors):
        if error:
            m = re.search(r"line (\d+)", error)
            line = diagram.line + int(m[1]) - 1 if m else diagram.line
            failures.append(f"{diagram.where}:{line}: {error.splitlines()[0]}\n    " + "\n    ".join(error.splitlines()[1:4]))
    assert not failures, "Mermaid cannot parse:\n  " + "\n  ".join(failures)
    page.assert_clean()


@pytest.mark.browser
def test_a_broken_diagram_is_reported_with_its_line(page, site_server):
    page.page.goto(site_server.url + "roadmap/")
    url = site_server.url + "assets/vendor/mermaid/mermaid.esm.min.mjs"
    [error] = page.page.evaluate(PARSE_ALL, {"url": url, "diagrams": ["flowchart TD\n  A --> B\n  B -->|x| |y| C[\n"]})
    assert error and re.search(r"line \d+", error)
