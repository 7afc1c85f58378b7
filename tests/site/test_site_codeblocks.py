"""Code blocks decorated at build time (hooks/codeblocks.py), read without a browser: every block
Material would decorate has exactly one copy button aimed at its own code, line-numbered code has
Material's class, the theme's own copy feature is off, and the hook refuses what it cannot do."""

from __future__ import annotations

import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from hooks.codeblocks import decorate, on_config, plain_tokens  # noqa: E402
from mkdocs.exceptions import PluginError  # noqa: E402

LINES = '<span id="__span-0-1"><a id="__codelineno-0-1" name="__codelineno-0-1" href="#__codelineno-0-1"></a>x\n</span>'


def test_each_block_gets_a_numbered_button_and_line_numbered_code_gets_the_class():
    html = (f'<div class="highlight"><pre><span></span><code>{LINES}</code></pre></div>'
            '<div class="highlight"><pre><code class="language-text">plain</code></pre></div>'
            '<pre class="mermaid"><code>flowchart TD</code></pre>')
    out = decorate(html, "x.md")
    assert out.count('class="md-code__button"') == 2
    assert '<pre data-lllm-code="1"><span></span><nav class="md-code__nav">' in out
    assert "data-clipboard-target=\"pre[data-lllm-code='2'] > code\"" in out
    assert f'<code class="md-code__content">{LINES}' in out
    assert '<code class="language-text">plain' in out          # no line spans: Material adds no class either
    assert '<pre class="mermaid"><code>flowchart TD' in out     # Material leaves Mermaid blocks alone


def test_the_hook_refuses_no_copy_and_a_block_decorated_twice():
    with pytest.raises(PluginError, match="no-copy"):
        decorate('<div class="no-copy"><pre><code>x</code></pre></div>', "a.md")
    with pytest.raises(PluginError, match="decorated already"):
        decorate(decorate("<pre><code>x</code></pre>", "b.md"), "b.md")


def test_the_theme_feature_that_would_draw_a_second_button_stops_the_build():
    with pytest.raises(PluginError, match="content.code.copy"):
        on_config({"theme": {"features": ["navigation.instant", "content.code.copy"]}})
    assert on_config({"theme": {"features": ["navigation.instant"]}, "docs_dir": str(ROOT / "site")})


def test_names_and_whitespace_in_code_lose_their_spans_and_nothing_else_does(tmp_path):
    code = ('<p><span class="n">prose</span></p><pre><code><span class="k">def</span><span class="w"> </span>'
            '<span class="nf">f</span><span class="p">(</span><span class="n">x</span><span class="p">):</span></code></pre>')
    out = plain_tokens(code)
    assert out == ('<p><span class="n">prose</span></p><pre><code><span class="k">def</span> '
                   '<span class="nf">f</span><span class="p">(</span>x<span class="p">):</span></code></pre>')
    assert re.sub("<[^>]+>", "", out) == re.sub("<[^>]+>", "", code)     # the same text
    css = tmp_path / "assets" / "stylesheets"
    css.mkdir(parents=True)
    (css / "a11y.css").write_text(":root { --md-code-hl-name-color: #123456; }", encoding="utf-8")
    with pytest.raises(PluginError, match="both colour schemes"):   # a name coloured apart needs its span
        on_config({"theme": {"features": []}, "docs_dir": str(tmp_path)})


class Blocks(HTMLParser):
    """Per `<pre>`: its data-lllm-code, the targets of the buttons inside it, and its `<code>`'s class."""

    def __init__(self):
        super().__init__()
        self.blocks, self.open, self.config = [], None, None
        self._config = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "pre":
            self.open = {"number": attrs.get("data-lllm-code"), "mermaid": "mermaid" in (attrs.get("class") or ""),
                         "targets": [], "code": None}
            self.blocks.append(self.open)
        elif self.open is not None and tag == "button" and "data-clipboard-target" in attrs:
            self.open["targets"].append(attrs["data-clipboard-target"])
        elif self.open is not None and tag == "code" and self.open["code"] is None:
            self.open["code"] = attrs.get("class") or ""
        self._config = tag == "script" and attrs.get("id") == "__config"

    def handle_endtag(self, tag):
        if tag == "pre":
            self.open = None

    def handle_data(self, data):
        if self._config:
            self.config, self._config = json.loads(data), False


def test_every_built_block_has_one_button_for_its_own_code(site_build):
    pages = sorted(site_build.dir.rglob("*.html"))
    checked, wrong = 0, []
    for path in pages:
        parsed = Blocks()
        parsed.feed(path.read_text(encoding="utf-8"))
        if parsed.config is None:
            continue                       # not a site page
        assert "content.code.copy" not in parsed.config["features"], path
        numbers = [b["number"] for b in parsed.blocks if not b["mermaid"] and b["code"] is not None]
        if numbers != [str(n) for n in range(1, len(numbers) + 1)]:
            wrong.append(f"{path.relative_to(site_build.dir)}: numbers {numbers[:8]}")
        for block in parsed.blocks:
            if block["mermaid"] or block["code"] is None:
                continue
            checked += 1
            if block["targets"] != [f"pre[data-lllm-code='{block['number']}'] > code"]:
                wrong.append(f"{path.relative_to(site_build.dir)}: block {block['number']} targets {block['targets']}")
    assert checked > 300, f"only {checked} code blocks found: did the markup change?"
    assert not wrong, wrong[:10]


def test_built_code_has_no_per_line_anchors_or_spans(site_build):
    """mkdocs.yml keeps pymdownx.highlight from writing an anchor and a span per line (nobody sees
    them; on the ReAct page they were a sixth of the elements the browser styles at start)."""
    html = (site_build.dir / "agents" / "react" / "index.html").read_text(encoding="utf-8")
    assert html.count("data-lllm-code=") >= 10
    assert "__codelineno-" not in html and 'id="__span-' not in html
    assert '<span class="n">' not in html and '<span class="nf">' in html   # names bare, functions coloured
