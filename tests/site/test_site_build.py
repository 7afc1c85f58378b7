"""The reference site's build: strict MkDocs build, links, off-site resources, Cloudflare limits,
the generated architecture and roadmap content, and the README's prototypes list."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from hooks import architecture, roadmap

ROOT = Path(__file__).resolve().parents[2]
MiB = 1024 * 1024


# ---- what the built HTML points at -----------------------------------------------------------------

class Refs(HTMLParser):
    """Every URL an HTML file references (tag, attribute, url) and every id it defines."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.refs: list[tuple[str, str, str]] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name == "id" and value:
                self.ids.add(value)
            if value and name in ("href", "src", "poster", "data") or (name == "srcset" and value):
                urls = [part.split()[0] for part in value.split(",")] if name == "srcset" else [value]
                self.refs += [(tag, name, url) for url in urls if url.strip()]


def parse(path: Path) -> Refs:
    refs = Refs()
    refs.feed(path.read_text(encoding="utf-8"))
    return refs


def html_files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.html"))


def target_file(site: Path, page: Path, url: str, site_path: str) -> Path | None:
    """The file an internal URL resolves to (None if it leaves the site)."""
    parts = urlsplit(url)
    if parts.scheme or parts.netloc:
        return None
    path = unquote(parts.path)
    if path.startswith("/"):
        base = path[len(site_path):] if path.startswith(site_path) else path.lstrip("/")
        resolved = site / base
    elif page.name == "404.html":  # a 404 page is served at any depth: links must be absolute
        resolved = site / path
    else:
        resolved = (page.parent / path) if path else page
    resolved = Path(str(resolved.resolve()))
    if resolved.is_dir() or path.endswith("/"):
        resolved = resolved / "index.html"
    return resolved


def test_build_is_strict_and_complete(site_build):
    for name in ["index.html", "404.html", "_headers", "_redirects", "architecture/index.html",
                 "roadmap/index.html", "deploying/index.html", "tinyllm/index.html",
                 "assets/model/loss.svg", "assets/javascripts/diagrams.js", "search/search_index.json"]:
        assert (site_build.dir / name).is_file(), f"public/{name} missing from the build"
    # diagrams are drawn at build time (hooks/diagrams.py): no Mermaid is shipped
    assert not list(site_build.dir.rglob("*mermaid*")), "a Mermaid file is still shipped"
    # the loss curve is the real one from `make model`, not the local-iteration placeholder
    assert "run `make model` first" not in (site_build.dir / "assets/model/loss.svg").read_text()
    assert "WARNING" not in site_build.log


def test_no_broken_internal_links(site_build):
    site, site_path = site_build.dir, "/"
    broken = []
    ids_cache: dict[Path, set[str]] = {}
    for page in html_files(site):
        for tag, attr, url in parse(page).refs:
            if url.startswith(("mailto:", "javascript:", "data:", "blob:")):
                continue
            parts = urlsplit(url)
            if parts.scheme in ("http", "https") and f"{parts.scheme}://{parts.netloc}/" == site_build.url:
                url = parts.path + (f"#{parts.fragment}" if parts.fragment else "")
            target = target_file(site, page, url, site_path)
            if target is None:
                continue
            rel = page.relative_to(site)
            if not target.is_file():
                broken.append(f"{rel}: <{tag} {attr}={url!r}> -> {target.relative_to(site) if target.is_relative_to(site) else target} missing")
                continue
            fragment = urlsplit(url).fragment
            if fragment and target.suffix == ".html":
                if target not in ids_cache:           # parse each target once (setdefault would parse every time)
                    ids_cache[target] = parse(target).ids
                ids = ids_cache[target]
                if unquote(fragment) not in ids:
                    broken.append(f"{rel}: <{tag} {attr}={url!r}> -> no id {fragment!r} in {target.relative_to(site)}")
    assert not broken, "broken internal links:\n  " + "\n  ".join(broken)


def test_no_off_site_resources(site_build):
    """Nothing a page loads may come from another origin (links to read elsewhere are fine)."""
    offsite = []
    for page in html_files(site_build.dir):
        for tag, attr, url in parse(page).refs:
            loads = attr in ("src", "srcset", "poster", "data") or (tag == "link" and attr == "href")
            parts = urlsplit(url)
            if loads and (parts.netloc or url.startswith("//")) and f"{parts.scheme}://{parts.netloc}/" != site_build.url:
                offsite.append(f"{page.relative_to(site_build.dir)}: <{tag} {attr}={url}>")
    for css in site_build.dir.rglob("*.css"):
        for url in re.findall(r"url\(\s*['\"]?(https?:)?//[^)]*\)", css.read_text(encoding="utf-8", errors="replace")):
            offsite.append(f"{css.relative_to(site_build.dir)}: url({url}...)")
    assert not offsite, "off-site resources:\n  " + "\n  ".join(offsite)


def test_cloudflare_pages_limits(site_build):
    files = [p for p in site_build.dir.rglob("*") if p.is_file()]
    assert len(files) <= 20_000, f"{len(files)} files: Cloudflare Pages allows 20,000"
    too_big = [f"{p.relative_to(site_build.dir)}: {p.stat().st_size / MiB:.1f} MiB" for p in files if p.stat().st_size > 25 * MiB]
    assert not too_big, "files over Cloudflare's 25 MiB limit:\n  " + "\n  ".join(too_big)


def test_headers_file_has_the_security_headers(site_build):
    from hooks.serve import parse_headers_file

    rules = dict(parse_headers_file(site_build.dir / "_headers"))
    headers = {name.lower(): value for name, value in rules["/*"]}
    csp = headers["content-security-policy"]
    assert "'unsafe-eval'" not in csp
    for directive in ["default-src 'self'", "'wasm-unsafe-eval'", "worker-src 'self' blob:", "connect-src 'self'"]:
        assert directive in csp
    assert headers["x-content-type-options"] == "nosniff"
    assert "referrer-policy" in headers
    assert any("immutable" in v for p, hs in rules.items() for n, v in hs if n.lower() == "cache-control")


def test_404_page_is_real(site_build):
    text = (site_build.dir / "404.html").read_text(encoding="utf-8")
    assert "Page not found" in text
    # served at any depth, so its links are absolute
    assert f'href="{site_build.url}architecture/"' in text or 'href="/architecture/"' in text


def test_wrangler_toml_points_at_public():
    import tomllib

    config = tomllib.loads((ROOT / "wrangler.toml").read_text())
    assert config["pages_build_output_dir"] == "public"
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", config["compatibility_date"])


# ---- snippets: code on pages comes from source ------------------------------------------------------

def test_a_missing_snippet_section_fails_the_build(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text('```python\n--8<-- "lllm/model/sampling.py:no-such-section"\n```\n')
    (tmp_path / "mkdocs.yml").write_text(
        f"site_name: t\ndocs_dir: docs\nsite_dir: out\nmarkdown_extensions:\n"
        f"  - pymdownx.snippets:\n      base_path: ['{ROOT}']\n      check_paths: true\n")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    assert "no-such-section" in result.stdout + result.stderr


def test_every_snippet_used_by_the_site_exists():
    missing = []
    for md in sorted((ROOT / "site").rglob("*.md")):
        for n, line in enumerate(md.read_text(encoding="utf-8").splitlines(), 1):
            m = re.match(r'\s*--8<-- "([^":]+)(?::([\w-]+))?"', line)
            if m:
                path, section = ROOT / m[1], m[2]
                if not path.is_file():
                    missing.append(f"{md.relative_to(ROOT)}:{n}: {m[1]} does not exist")
                elif section and f"--8<-- [start:{section}]" not in path.read_text(encoding="utf-8"):
                    missing.append(f"{md.relative_to(ROOT)}:{n}: {m[1]} has no section {section!r}")
    assert not missing, "\n".join(missing)


def test_included_code_is_the_source(site_build):
    page = (site_build.dir / "tinyllm" / "generation" / "index.html").read_text(encoding="utf-8")
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    assert "def sample(logits: Sequence[float]" in text
    assert "--8<--" not in text


# ---- the worked sampling example on the generation page ---------------------------------------------

def test_worked_sampling_example_matches_the_code():
    from lllm.model.sampling import Mulberry32, sample, softmax

    text = (ROOT / "site" / "tinyllm" / "generation.md").read_text(encoding="utf-8")
    logits = [2.0, 1.0, 0.5, -1.0]
    rows = {k: [float(x) for x in re.findall(r"[\d.]+", line)] for k, line in re.findall(
        r"^\| `(\w)` \| [−\-\d.]+ \|(.*)\|$", text, re.M)}
    assert list(rows) == ["e", "a", "o", "x"]
    for column, temperature in enumerate([0.5, 1.0, 2.0]):
        probs = softmax(logits, temperature)
        assert [row[column] for row in rows.values()] == [round(p, 3) for p in probs]
    assert f"`u = {Mulberry32(1).uniform():.3f}`" in text
    chars = "eaox"
    expected = {
        "greedy (T = 0)": sample(logits, temperature=0),
        "T = 1": sample(logits, temperature=1.0, rng=Mulberry32(1)),
        "T = 1, top-k = 2": sample(logits, temperature=1.0, top_k=2, rng=Mulberry32(1)),
        "T = 1, top-p = 0.9": sample(logits, temperature=1.0, top_p=0.9, rng=Mulberry32(1)),
    }
    for strategy, choice in expected.items():
        row = re.search(rf"^\| {re.escape(strategy)} \|.*\| `(\w)` \|$", text, re.M)
        assert row, f"no row for {strategy!r} in the worked example"
        assert row[1] == chars[choice], f"{strategy}: page says {row[1]!r}, code picks {chars[choice]!r}"


def test_worked_example_doctest_runs():
    import doctest

    text = (ROOT / "site" / "tinyllm" / "generation.md").read_text(encoding="utf-8")
    block = re.search(r"```python\n(>>> .*?)```", text, re.S)[1]
    test = doctest.DocTestParser().get_doctest(block, {}, "generation.md", "site/tinyllm/generation.md", 0)
    runner = doctest.DocTestRunner()
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 3


# ---- architecture: generated from the code ----------------------------------------------------------

def test_import_graph_sees_real_imports():
    graph = architecture.import_graph()
    assert {"lllm.model.sampling", "lllm.model.tokenizer"} <= graph["lllm.model.generate"].imports
    assert "lllm.model.generate" in graph["lllm.model.onnx_backend"].imports
    assert "lllm.model.files" in graph["lllm.model.onnx_backend"].imports       # the one loader
    assert "onnxruntime" in graph["lllm.model.files"].external      # lazy, inside a function
    assert graph["lllm.predictors.contract"].imports == set()
    assert graph["lllm"].is_package


def test_import_graph_resolves_relative_and_reexported_imports(tmp_path):
    pkg = tmp_path / "lllm"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .a import A\n")
    (pkg / "a.py").write_text("import json\nclass A: pass\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "b.py").write_text("from .. import A\nfrom ..a import A as B\nfrom lllm import missing_mod\n"
                                      "def f():\n    import numpy\n")
    graph = architecture.import_graph(tmp_path)
    assert graph["lllm.sub.b"].imports == {"lllm.a", "lllm"}
    assert graph["lllm.sub.b"].external == {"numpy"}
    assert graph["lllm"].imports == {"lllm.a"}


def test_architecture_page_table_matches_the_code(site_build):
    page = (site_build.dir / "architecture" / "index.html").read_text(encoding="utf-8")
    graph = architecture.import_graph()
    rows = {}
    for row in re.findall(r"<tr>(.*?)</tr>", page, re.S):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        if len(cells) == 5:
            name = re.sub(r"<[^>]+>", "", cells[0])
            rows[name] = set(re.findall(r"<code>([\w.]+)</code>", cells[2]))
    assert rows.keys() == graph.keys(), "the table must list every lllm module"
    for name, module in graph.items():
        assert rows[name] == module.imports, f"{name}: table says {rows[name]}, code imports {module.imports}"


def test_architecture_page_shows_every_piece_in_generated_diagrams(site_build):
    page = html.unescape((site_build.dir / "architecture" / "index.html").read_text(encoding="utf-8"))
    diagrams = architecture.generated_diagrams()
    for marker, text in diagrams.items():
        assert text.strip() in page, f"{marker} is not on the architecture page"
    pieces = "".join(text for marker, text in diagrams.items() if "overview" not in marker)
    for item in roadmap.load().items:
        assert f'        {item.id}["' in pieces, f"{item.id} has no box of its own in any family diagram"
    assert "Sampling --> Generation" in diagrams["<!-- lllm:pieces 000-base -->"]
    assert "Tokenizer --> Generation" in diagrams["<!-- lllm:pieces 000-base -->"]
    imports, designed = architecture.item_edges(roadmap.load(), architecture.import_graph())
    assert not imports & designed


# ---- the diagrams' arrows: real, complete up to chains, and reduced ------------------------------------

ARROW = re.compile(r"^\s+(\w+) (-->|-\.->) (\w+)$", re.M)
BOX = re.compile(r'^\s+(\w+)\["', re.M)


def chain(edges, a, c, through):
    """Independent of the hook: is there a path a -> ... -> c over edges, inner nodes in `through`?"""
    todo, seen = [a], {a}
    while todo:
        node = todo.pop()
        for x, y in edges:
            if x == node and y == c:
                return True
            if x == node and y not in seen and y in through:
                seen.add(y)
                todo.append(y)
    return False


def check_view(text: str, items, imports, designed):
    """The drawn arrows of one generated diagram against the item-level graph from the code."""
    boxes = set(BOX.findall(text)) - {"L1", "L2", "L3", "L4"}
    pieces = boxes & {item.id for item in items}
    group = {item.id: f"S{item.seed}L{item.layer}" for item in items}
    node = lambda i: i if i in pieces else group[i]
    drawn = {kind: {(a, b) for a, k, b in ARROW.findall(text) if k == kind} for kind in ("-->", "-.->")}
    real = {(node(a), node(b)) for a, b in imports if node(a) != node(b)}
    planned = {(node(a), node(b)) for a, b in designed if node(a) != node(b)} - real
    touches = (lambda e: True) if not pieces else (lambda e: bool(pieces & set(e)))
    through = pieces or boxes
    problems = []
    for a, b in drawn["-->"] - real:
        problems.append(f"{a} --> {b} is drawn but no module of {a} is imported by {b}")
    for a, b in drawn["-.->"] - planned:
        problems.append(f"{a} -.-> {b} is drawn but is no designed dependency")
    for a, b in {e for e in real if touches(e) and set(e) <= boxes}:
        if not chain(drawn["-->"], a, b, through):
            problems.append(f"{b} imports {a}, but no chain of solid arrows leads there")
    for kind, edges in drawn.items():
        for a, b in edges:
            others = (drawn["-->"] | (drawn["-.->"] if kind == "-.->" else set())) - {(a, b)}
            if chain(others, a, b, through):
                problems.append(f"{a} {kind} {b} is implied by a chain of other arrows (not reduced)")
    return problems


def test_every_generated_diagram_draws_real_reduced_arrows():
    rm, graph = roadmap.load(), architecture.import_graph()
    imports, designed = architecture.item_edges(rm, graph)
    for marker, text in architecture.generated_diagrams(rm, graph).items():
        problems = check_view(text, rm.items, imports, designed)
        assert not problems, f"{marker}:\n  " + "\n  ".join(problems)
        for item in rm.items:   # planned pieces look planned
            if item.status == "planned" and f'        {item.id}["' in text:
                assert re.search(rf"^    class .*\b{item.id}\b.* planned$", text, re.M), f"{marker}: {item.id}"


def test_reduction_drops_only_arrows_a_chain_already_shows():
    assert architecture.reduce_edges({("A", "B"), ("B", "C"), ("A", "C")}) == {("A", "B"), ("B", "C")}
    assert architecture.reduce_edges({("A", "B"), ("A", "C")}) == {("A", "B"), ("A", "C")}
    # two pieces that import each other: every node stays reachable
    kept = architecture.reduce_edges({("A", "B"), ("B", "A"), ("A", "C"), ("B", "C")})
    assert chain(kept, "A", "C", {"A", "B", "C"}) and chain(kept, "B", "C", {"A", "B", "C"})
    # a chain through a folded group does not count in a piece view
    assert ("A", "C") in architecture.reduce_edges({("A", "G"), ("G", "C"), ("A", "C")}, through={"A", "C"})


def test_diagram_and_table_on_a_small_package(tmp_path):
    """a imports b and c, b imports c: the table lists all three imports, the diagram draws two arrows."""
    (tmp_path / "lllm").mkdir()
    (tmp_path / "lllm" / "__init__.py").write_text("")
    (tmp_path / "lllm" / "c.py").write_text("X = 1\n")
    (tmp_path / "lllm" / "b.py").write_text("from lllm.c import X\n")
    (tmp_path / "lllm" / "a.py").write_text("from lllm.b import X\nfrom lllm import c\n")
    (tmp_path / "roadmap.yml").write_text(
        "layers: {1: Base, 2: Waist, 3: Composition, 4: Usage}\nitems:\n"
        "  - {id: C, name: C, layer: 1, seed: '000', status: done, where: x, summary: s, modules: [lllm.c]}\n"
        "  - {id: B, name: B, layer: 2, seed: '000', status: done, where: x, summary: s, modules: [lllm.b]}\n"
        "  - {id: A, name: A, layer: 4, seed: '000', status: done, where: x, summary: s, modules: [lllm.a]}\n"
        "  - {id: P, name: P, layer: 4, seed: '000', status: planned, where: x, summary: s, uses: [A, C]}\n")
    rm, graph = roadmap.load(tmp_path / "roadmap.yml"), architecture.import_graph(tmp_path)
    arrows = lambda view: re.findall(r"^    (\w+ -\.?-> \w+)$", architecture.view_mermaid(view, rm, graph), re.M)
    assert arrows("000-base") == ["B --> S000L4", "C --> B"]          # C --> S000L4 is implied by C --> B --> ...
    # A's own view folds B and C into groups; a chain through a group proves nothing, so both stay
    assert arrows("000-agents") == ["S000L1 --> A", "S000L2 --> A", "A -.-> P"]
    everything = architecture.view_mermaid("overview", rm, graph)
    assert "S000L1 --> S000L2" in everything and "S000L2 --> S000L4" in everything
    assert "S000L1 --> S000L4" not in everything
    table = architecture.interconnections_table(rm, graph)
    assert "| `lllm.a` | A | `lllm.b`, `lllm.c` |" in table


def test_every_lllm_module_belongs_to_a_roadmap_piece():
    """The documentation rule: landing a module means listing it in roadmap.yml."""
    graph = architecture.import_graph()
    owners = architecture.owners(roadmap.load(), graph)
    unclaimed = [name for name, m in graph.items() if not m.is_package and name not in owners]
    assert not unclaimed, f"add these modules to a piece's `modules` in roadmap.yml: {unclaimed}"


# ---- roadmap and README -------------------------------------------------------------------------------

def test_roadmap_covers_the_seeds():
    names = {item.name for item in roadmap.load().items}
    for expected in ["TinyLLM", "Predictor", "ReAct agent", "Memory", "Reliability lab", "Trajectory evaluator",
                     "Brain timings", "Memory explainer", "Synthetic data factory", "Typed workflow",
                     "Human-in-the-loop", "Multi-agent debate", "Prompt", "Dialog", "Tactic", "Tools",
                     "Framework", "Environment", "State", "Data", "Verification and Inference"]:
        assert expected in names


def test_roadmap_rejects_bad_entries(tmp_path):
    bad = tmp_path / "roadmap.yml"
    bad.write_text("layers: {1: Base}\nitems:\n  - {id: A, name: A, layer: 1, seed: '000', status: finished,"
                   " where: x, summary: s}\n")
    with pytest.raises(ValueError, match="item 1 \\(A\\): status 'finished'"):
        roadmap.load(bad)


def test_roadmap_page_lists_every_piece(site_build):
    page = (site_build.dir / "roadmap" / "index.html").read_text(encoding="utf-8")
    for item in roadmap.load().items:
        assert html.escape(item.summary, quote=False) in page or item.summary in html.unescape(page)
    assert page.count('class="lllm-status lllm-status--') == len(roadmap.load().items)


def test_readme_prototypes_list_matches_roadmap():
    readme = (ROOT / "README.md")
    assert readme.is_file(), "README.md is missing"
    text = readme.read_text(encoding="utf-8")
    assert roadmap.README_START in text, "README.md needs the <!-- prototypes:start --> ... end markers"
    assert roadmap.readme_with_block(text, roadmap.load()) == text, \
        "README.md's prototypes list differs from roadmap.yml: run .venv/bin/python -m hooks.roadmap --readme"
