"""MkDocs hook: every Mermaid diagram is drawn to SVG at build time, so a reading page fetches no Mermaid.

Read the Design page's "Diagrams" section (site/design.md) first. A ```mermaid fence becomes
`<pre class="mermaid">` in the HTML; here, as each page is written, every such block is replaced by:

    <div class="mermaid lllm-mermaid"><svg role="img" aria-label="Diagram: …" viewBox=…>…</svg></div>
    <details class="lllm-mermaid-source"><summary>Diagram source</summary><pre><code>…</code></pre></details>

The SVG is inline: it is laid out with the text (no request, nothing moves when it appears), its
colours are Material's --md-mermaid-* variables, so the one drawing follows the light and the dark
scheme, and its text stays text (selectable, found by the browser's search). Material only looks for
`pre.mermaid`, so with none left it never loads Mermaid (nor fetches it from a CDN).

Drawing: the `mermaid` package in node_modules/ (pinned by package-lock.json), in headless Chromium
driven by Playwright, with Material's own Mermaid settings (its themeCSS, read from its bundle) and
the dagre layout, inside Material's stylesheets, so text is measured as the page will show it. One
browser for the whole build, started only when a diagram is not in the cache; every diagram of a
page is drawn in one call. A diagram Mermaid cannot draw stops the build, naming page and diagram.

Cache: build/diagrams-svg/<key>.svg, the key a hash of the diagram's text and of everything else that
shapes the drawing (Mermaid's and Material's versions, the settings, this file, our diagram CSS), so a
rebuild draws nothing it has drawn before.

    >>> blocks('<p>x</p><pre class="mermaid"><code>flowchart TD\\n  A --&gt; B</code></pre>')
    ['flowchart TD\\n  A --> B']
    >>> name_of('flowchart LR\\n  A["read the goal"] --> B[act]\\n  B --> A')
    'Diagram: read the goal, act'
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
from pathlib import Path

from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "build" / "diagrams-svg"          # build/ is shared: a folder of our own, written atomically
MERMAID = ROOT / "node_modules" / "mermaid"
STYLESHEETS = [ROOT / "site/assets/stylesheets/lllm.css", ROOT / "site/assets/stylesheets/diagrams.css"]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
BLOCK = re.compile(r'<pre class="mermaid"><code>(.*?)</code></pre>', re.S)
SOURCE = Path(__file__).read_text(encoding="utf-8")   # as imported: part of every cache key
NO_BROWSER = "Diagrams are drawn at build time in Chromium, and none could be started ({why}): run `make browsers`."


class DiagramError(PluginError):
    """A diagram that cannot be drawn, or no browser to draw it in: the build stops."""


# ---- what a page holds, and what replaces it -----------------------------------------------------------

def blocks(page_html: str) -> list[str]:
    """Each Mermaid block's text, as Mermaid reads it (the HTML unescaped), in page order."""
    return [html.unescape(m.group(1)) for m in BLOCK.finditer(page_html)]


LABEL = re.compile(r'\b[A-Za-z_]\w*\s*[\[\(\{]+"?([^"\]\)\}]+)"?[\]\)\}]')


def name_of(text: str) -> str:
    """The SVG's accessible name: the diagram's `accTitle` if it has one, else its first node labels."""
    title = re.search(r"^\s*accTitle\s*:\s*(.+)$", text, re.M)
    if title:
        return title.group(1).strip()
    labels = []
    plain = re.sub(r"\|[^|]*\||%%.*", "", text)        # edge labels and comments name no box
    for label in LABEL.findall(plain):
        label = re.sub(r"\s+", " ", re.sub(r"<br\s*/?>", " ", label)).strip()
        if label and label not in labels:
            labels.append(label)
    shown = ", ".join(labels[:6]) + (", …" if len(labels) > 6 else "")
    return f"Diagram: {shown}" if shown else "Diagram"


def figure(svg: str, text: str) -> str:
    """The block's replacement: the drawing, then its source for copying and for screen readers."""
    svg = re.sub(r'\s(?:role|aria-roledescription)="[^"]*"', "", svg.split(">", 1)[0]) + ">" + svg.split(">", 1)[1]
    svg = svg.replace("<svg ", f'<svg role="img" aria-label="{html.escape(name_of(text))}" ', 1)
    source = html.escape(text.rstrip("\n"), quote=False)
    return (f'<div class="mermaid lllm-mermaid">{svg}</div>\n<details class="lllm-mermaid-source">'
            f"<summary>Diagram source</summary><pre><code>{source}</code></pre></details>")


STYLE = re.compile(r"<style>(.*?)</style>", re.S)
ALL = ".lllm-mermaid>svg:not(#_)"


def rules(css: str) -> list[str]:
    """Minified CSS split into its top-level rules (an @keyframes block is one rule)."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(css):
        depth += (ch == "{") - (ch == "}")
        if ch == "}" and depth == 0:
            out.append(css[start:i + 1])
            start = i + 1
    return out


def shared_styles(svgs: list[tuple[str, str]]) -> list[str]:
    """Mermaid writes ~30 KB of CSS into every SVG, scoped to its id and otherwise nearly the same:
    a page keeps each rule once, in its first SVG (an SVG's <style> applies to the whole document;
    a <style> in the body would not be valid HTML). A rule every SVG of the page uses is scoped to
    them all with `ALL` (`:not(#_)` keeps the weight of an id selector, as Mermaid's scope has), the
    others to the ids that use them. `svgs` is [(id, svg)]; returns the SVGs in the same order."""
    users: dict[str, list[str]] = {}               # rule, its ids written as \0 -> the SVGs that use it
    bare = []
    for svg_id, svg in svgs:
        m = STYLE.search(svg)
        for rule in rules(m.group(1)) if m else []:
            users.setdefault(rule.replace(svg_id, "\0"), []).append(svg_id)
        bare.append(STYLE.sub("", svg, count=1))
    everyone = {i for i, _ in svgs}

    def scoped(rule: str, ids: list[str]) -> str:
        scope = ALL if set(ids) == everyone else ":is(" + ",".join(f"#{i}" for i in ids) + ")"
        return re.sub(r"#\0(?=[ {,:>])", scope, rule).replace("\0", ids[0])

    # Mermaid's colour palette for nodes that ask for one (`data-color-id`, 22 KB): none of ours do
    coloured = any("data-color-id" in svg for svg in bare)
    css = "".join(scoped(rule, ids) for rule, ids in users.items() if coloured or "[data-color-id" not in rule)
    if css:
        bare[0] = re.sub(r"(<svg\b[^>]*>)", lambda m: m.group(1) + f"<style>{css}</style>", bare[0], count=1)
    return bare


def slim(svg: str) -> str:
    """Drop what the drawing does not use: edges' points (base64, read only by Mermaid's own scripts)
    and the arrow heads no edge points to (Mermaid defines a dozen in every SVG)."""
    svg = re.sub(r'\sdata-points="[^"]*"', "", svg)
    used = set(re.findall(r"url\(#([^)]+)\)", svg))
    return re.sub(r'<marker id="([^"]+)".*?</marker>', lambda m: m.group(0) if m.group(1) in used else "", svg, flags=re.S)


# ---- the cache -----------------------------------------------------------------------------------------

def material_assets() -> Path:
    import material
    return Path(material.__file__).parent / "templates" / "assets"


def fingerprint() -> str:
    """Everything but the text that shapes a drawing; part of every cache key."""
    from importlib.metadata import version
    parts = [json.loads((MERMAID / "package.json").read_text(encoding="utf-8"))["version"],
             version("mkdocs-material"), SOURCE,
             *(css.read_text(encoding="utf-8") for css in STYLESHEETS)]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def key(text: str, salt: str) -> str:
    return hashlib.sha256((salt + "\0" + text).encode("utf-8")).hexdigest()[:20]


def cached(k: str) -> str | None:
    path = CACHE / f"{k}.svg"
    return path.read_text(encoding="utf-8") if path.exists() else None


def store(k: str, svg: str) -> None:
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = CACHE / f".{k}.{os.getpid()}.tmp"         # other builds share this folder: rename is atomic
    tmp.write_text(svg, encoding="utf-8")
    os.replace(tmp, CACHE / f"{k}.svg")


# ---- drawing: Mermaid in Chromium ------------------------------------------------------------------------

def material_mermaid_settings() -> dict:
    """The settings Material passes to mermaid.initialize (themeCSS: colours as its CSS variables)."""
    bundle = next((material_assets() / "javascripts").glob("bundle.*.min.js")).read_text(encoding="utf-8")
    call = re.search(r"mermaid\.initialize\(\{startOnLoad:!1,themeCSS:(\w+),sequence:(\{[^}]*\})\}\)", bundle)
    theme = call and re.search(rf"\b{call.group(1)}=(\"(?:[^\"\\]|\\.)*\")", bundle)
    if not theme:
        raise DiagramError("hooks/diagrams.py: Material's Mermaid settings were not found in its bundle; "
                           "read how this Material version calls mermaid.initialize and update the pattern.")
    sequence = json.loads(re.sub(r"(\w+):", r'"\1":', call.group(2)))
    return {"startOnLoad": False, "layout": "dagre", "themeCSS": json.loads(theme.group(1)) + OUR_CSS,
            "sequence": sequence}


# A box with a colour of its own (`classDef … color:`) keeps its text colour: Material's CSS gives every
# label's <p> the scheme's label colour, light in dark mode, on the box's light fill (1.05:1).
OUR_CSS = '.label[style*="color"] .nodeLabel p{color:inherit}'


# The page Mermaid draws in: Material's stylesheets and ours, a typeset article like a page's, in the
# default scheme (the colours are CSS variables: the scheme changes no size).
PAGE = ('<!doctype html><html><head><meta charset="utf-8"></head><body dir="ltr" data-md-color-scheme="default" '
        'data-md-color-primary="indigo" data-md-color-accent="indigo"><div class="md-content"><article '
        'class="md-content__inner md-typeset"><div class="mermaid lllm-mermaid" id="host"></div></article></div></body></html>')

DRAW = """async ({settings, diagrams}) => {
  const host = document.getElementById('host');
  mermaid.initialize(settings);
  const drawn = [];
  for (const [id, text] of diagrams) {
    try { drawn.push({svg: (await mermaid.render(id, text, host)).svg}); }
    catch (e) { drawn.push({error: String((e && e.message) || e)}); }
    host.replaceChildren();       // a failed render leaves its error drawing behind
  }
  return drawn;
}"""


class Renderer:
    """One Chromium and one page with Mermaid loaded, started on first use; close() when done."""

    def __init__(self, chromium: str = CHROMIUM):
        self.chromium, self.playwright, self.browser, self.page = chromium, None, None, None

    def start(self) -> None:
        from playwright.sync_api import sync_playwright
        if not Path(self.chromium).exists():
            raise DiagramError(NO_BROWSER.format(why=f"{self.chromium} does not exist"))
        self.playwright = sync_playwright().start()
        try:
            self.browser = self.playwright.chromium.launch(
                executable_path=self.chromium, args=["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"])
        except Exception as error:
            self.close()
            raise DiagramError(NO_BROWSER.format(why=str(error).splitlines()[0])) from error
        self.page = self.browser.new_page()
        self.page.set_content(PAGE)
        styles = material_assets() / "stylesheets"
        for css in [*sorted(styles.glob("*.min.css")), *STYLESHEETS]:
            self.page.add_style_tag(path=str(css))
        self.page.add_script_tag(path=str(MERMAID / "dist" / "mermaid.min.js"))
        self.settings = material_mermaid_settings()

    def draw(self, diagrams: list[tuple[str, str]]) -> list[dict]:
        """[(id, text)] -> [{"svg": ...} or {"error": Mermaid's message}], in one call."""
        if self.page is None:
            self.start()
        return self.page.evaluate(DRAW, {"settings": self.settings, "diagrams": diagrams})

    def close(self) -> None:
        if self.browser:
            self.browser.close()
        if self.playwright:
            self.playwright.stop()
        self.playwright = self.browser = self.page = None


# ---- one page -----------------------------------------------------------------------------------------

def render_page(page_html: str, where: str, renderer: Renderer, salt: str) -> str:
    """`page_html` with every Mermaid block drawn (from the cache, or by `renderer`); `where` names the page."""
    texts = blocks(page_html)
    if not texts:
        return page_html
    keys = [key(t, salt) for t in texts]
    svgs = {k: cached(k) for k in keys}
    missing = {k: t for k, t in zip(keys, texts) if svgs[k] is None}
    if missing:
        drawn = renderer.draw([(f"m{k}", t) for k, t in missing.items()])
        for (k, text), result in zip(missing.items(), drawn):
            if "error" in result:
                n = keys.index(k) + 1
                first = next((line.strip() for line in text.splitlines() if line.strip()), "")
                raise DiagramError(f"{where}: diagram {n} of {len(texts)} (starting {first!r}) cannot be drawn: "
                                   + result["error"].replace("\n", " | "))
            svgs[k] = slim(result["svg"])
            store(k, svgs[k])
    # a diagram shown twice on one page gets its own ids the second time
    ids, seen = [], {}
    for k in keys:
        seen[k] = seen.get(k, 0) + 1
        ids.append(f"m{k}" + (f"-{seen[k]}" if seen[k] > 1 else ""))
    parts = iter(shared_styles([(i, svgs[k].replace(f"m{k}", i)) for i, k in zip(ids, keys)]))
    texts_iter = iter(texts)
    return BLOCK.sub(lambda m: figure(next(parts), next(texts_iter)), page_html)


# ---- MkDocs events --------------------------------------------------------------------------------------

_renderer = Renderer()
_salt: list[str] = []


def on_post_page(output: str, page, config) -> str:
    if '<pre class="mermaid">' not in output:
        return output
    if not _salt:
        _salt.append(fingerprint())
    return render_page(output, page.file.src_uri, _renderer, _salt[0])


def on_post_build(config) -> None:
    _renderer.close()
    _salt.clear()


def on_build_error(error) -> None:
    _renderer.close()
    _salt.clear()
