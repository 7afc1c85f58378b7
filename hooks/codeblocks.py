"""MkDocs hook · code blocks decorated when the page is built, not by Material's script in the reader's phone.

Material's script decorates every code block as the page starts, one block at a time: it adds the
class `md-code__content` to a `<code>` that has per-line spans (a class whose CSS makes the block a
grid, so its whole layout is rebuilt), inserts a copy button before it, then reads the block's width.
Each read after a change forces the browser to lay out the page again: on the ReAct page (18 blocks)
that was most of the style and layout work of the page's start, in one long task (the performance
page has the trace figures). This hook writes the same markup into the HTML, and mkdocs.yml leaves the feature off:

- `<code class="md-code__content">` where the code has line spans (Material adds a class already
  there: no change, no new layout);
- the copy button, `<nav class="md-code__nav"><button class="md-code__button" ...>`, as Material
  draws it (the theme's feature `content.code.copy` stays off, so it is not drawn twice). Material's own
  clipboard handler serves every `[data-clipboard-target]` on the page, so the click, the "Copied to
  clipboard" notice and the copied text are the theme's. The target is the block's `data-lllm-code`
  number, because Material renames every `<pre>`'s id as it starts.

Highlighted code also loses the spans that change nothing on screen: Pygments wraps every name
(`<span class="n">`) and run of whitespace (`class="w"`) in one, a third of a code-heavy page's
elements (617 names on the ReAct page), each styled and laid out as the page starts. A name's colour
is the code's own colour in both schemes (assets/stylesheets/a11y.css sets it so, and the build stops
if it no longer does), so the bare text looks the same.

A runnable cell (a Python block with the class `runnable`) is followed by its bar and output,
empty and hidden, for site/assets/runtime/cells.mjs to fill and show: elements it inserted after the
block made the browser style the rest of the article again.

Blocks Material leaves alone are left alone here too: `pre.mermaid`, and any block inside `.no-copy`
(none on the site today; the hook refuses the class rather than guess).
tests/site/test_site_codeblocks.py checks the built pages; tests/browser/test_codeblocks_browser.py
that the button copies and that Material's start changes no block.
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.exceptions import PluginError

FEATURE = "content.code.copy"
BLOCK = re.compile(r'<pre((?:\s[^>]*)?)>((?:<span></span>)?)<code((?:\s[^>]*)?)>(<span id="__span-)?')
CODE = re.compile(r"(<code\b[^>]*>)(.*?)(</code>)", re.S)
PLAIN = re.compile(r'<span class="[nw]">([^<]*)</span>')
NAME_COLOUR = "--md-code-hl-name-color: var(--md-code-fg-color);"   # in a11y.css, once per scheme
RUNNABLE = re.compile(r'<div class="[^"]*\brunnable\b[^"]*">.*?</code></pre></div>', re.S)
SLOTS = '<div class="lllm-cell__bar" hidden></div><pre class="lllm-cell__output" hidden></pre>'
BUTTON = ('<nav class="md-code__nav"><button class="md-code__button" title="Copy to clipboard" '
          'data-clipboard-target="pre[data-lllm-code=\'{n}\'] > code" data-md-type="copy"></button></nav>')


def decorate(html: str, where: str) -> str:
    """Every `pre > code` block of a page's content with Material's class and copy button, numbered."""
    if "no-copy" in html:
        raise PluginError(f"hooks/codeblocks.py: {where} uses the class no-copy, which this hook does not support")
    if "data-lllm-code=" in html:
        raise PluginError(f"hooks/codeblocks.py: {where} has code blocks decorated already (the hook ran twice)")
    count = 0

    def block(m: re.Match) -> str:
        nonlocal count
        pre, span, code, lines = m.group(1), m.group(2), m.group(3), m.group(4) or ""
        if re.search(r'\bclass="[^"]*\bmermaid\b', pre):
            return m.group(0)
        count += 1
        if lines:
            code = re.sub(r'\bclass="', 'class="md-code__content ', code, 1) if 'class="' in code \
                else code + ' class="md-code__content"'
        return f'<pre{pre} data-lllm-code="{count}">{span}{BUTTON.format(n=count)}<code{code}>{lines}'

    return BLOCK.sub(block, html)


def cell_slots(html: str) -> str:
    """After every runnable cell, its bar and output: empty and hidden until cells.mjs fills them."""
    return RUNNABLE.sub(lambda m: m.group(0) + SLOTS, html)


def plain_tokens(html: str) -> str:
    """Inside every `<code>`, Pygments' name and whitespace spans replaced by their text."""
    return CODE.sub(lambda m: m.group(1) + PLAIN.sub(r"\1", m.group(2)) + m.group(3), html)


# ---- the MkDocs events ------------------------------------------------------------------------------

def on_config(config, **kwargs):
    if FEATURE in (config["theme"]["features"] or []):   # the theme would draw a second button per block
        raise PluginError(f"hooks/codeblocks.py draws the copy buttons: remove {FEATURE} from mkdocs.yml's features")
    css = Path(config["docs_dir"]) / "assets" / "stylesheets" / "a11y.css"
    if css.read_text(encoding="utf-8").count(NAME_COLOUR) != 2:
        raise PluginError(f"hooks/codeblocks.py drops the spans around names in code, so {css} must keep "
                          f"`{NAME_COLOUR}` in both colour schemes")
    return config


def on_post_page(output, page, config, **kwargs):
    # After hooks/diagrams.py (listed before this hook), whose diagram-source blocks get buttons too.
    return decorate(cell_slots(plain_tokens(output)), page.file.src_uri)
