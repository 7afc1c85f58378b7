"""MkDocs hook · the HTML that screen readers and the HTML validator read, fixed where it is made.

Two things in Material's and mkdocstrings' markup, fixed in the built pages (rather than by a
script in every reader's page, as site/assets/javascripts/a11y.js once did for the first):

- Material's search dialog (`role="dialog"`) and its loading bar (`role="progressbar"`, shown on
  instant navigation) get accessible names (axe: aria-dialog-name, aria-progressbar-name). Material's
  templates are not copied into hooks/overrides/ for one attribute each: the hook adds it to the
  exact tag, and stops the build if a Material upgrade changed that tag.
- mkdocstrings highlights every signature (`separate_signature`) as a code block of its own, each
  numbered as a page's first, so with pymdownx.highlight's `line_spans` and `anchor_linenums` every
  signature line had the same ids (`__span-0-1`, `__codelineno-0-1`: 638 duplicates on the API
  pages). A signature is one or two lines that nobody links to: its line ids are dropped.

- Material's colour-palette component is turned off: its form's `data-md-component="palette"`
  becomes `data-lllm-palette`, and site/assets/runtime/palette.mjs switches the palette with the
  same markup and saved choice. Material's component made the browser style the whole page again
  four times as it started (tags added to <head>, attributes on <body>, a computed style read).
- Material's script tag gets `defer`: it stood at the end of the body, so the parser waited for it
  and the first paint came after it had arrived (Lighthouse counts such a script as render-blocking);
  deferred, it still runs after the document is parsed and before DOMContentLoaded, as before, and in
  order with the site's own scripts (mkdocs.yml defers those too).

- Material's script, as it starts, writes every relative `href` and `src` in the page back as an
  absolute URL (for instant navigation, which compares the <head> of the page it fetches with this
  one's). In the page being read only the <head> needs it: rewriting every link in the body (two
  thousand on a code-heavy page) made the browser style the whole page again. The built bundle is
  patched to do the <head> only (`head_only_urls`), and the build stops if a Material upgrade
  changed the code it patches. (Pages fetched by instant navigation are still rewritten whole.)
- Material's script wraps every table (`table:not([class])`) in two <div>s as it starts, so a wide
  table scrolls; each insertion made the browser style the rest of the article again. The built
  pages have the same two <div>s (`wrap_tables`), and the bundle is patched to skip a table already
  in them (`skip_wrapped_tables`).
- Material's script swaps the page's `no-js` class for `js` as it starts, which restyles the whole
  page; hooks/overrides/main.html swaps it before the first paint instead.
- Material writes `<link rel="prev">` and `<link rel="next">` into every page's <head>, read only by
  its p/n keys. Firefox prefetches the page a `rel="next"` names, before the service worker has
  taken the page over, and the worker then saved that page for offline use: on a busy machine the
  next page was sent twice (1 visit in 10, measured 2026-12-08). The built pages have neither link
  (`drop_page_links`), and the bundle's keys take the footer's previous and next links instead
  (`keys_from_footer`: the same pages, `navigation.footer` is on), so no page is fetched ahead.

tests/site/test_site_markup.py checks every built page: no duplicate id, both names present, every
script deferred.
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.exceptions import PluginError

# (Material's tag, the same tag with a name)
NAMES = [
    ('<div class="md-search" data-md-component="search" role="dialog">',
     '<div class="md-search" data-md-component="search" role="dialog" aria-label="Search">'),
    ('<div class="md-progress" data-md-component="progress" role="progressbar">',
     '<div class="md-progress" data-md-component="progress" role="progressbar" aria-label="Loading the page">'),
]

PALETTE = ('<form class="md-header__option" data-md-component="palette">',
           '<form class="md-header__option" data-lllm-palette>')
BUNDLE = re.compile(r'<script src="([^"]*assets/javascripts/bundle\.[0-9a-f]+\.min\.js)"></script>')
SIGNATURE = re.compile(r'<div class="[^"]*\bdoc-signature\b[^"]*">.*?</div>', re.S)
LINE_SPAN = re.compile(r'<span id="__span-[^"]*">')
# Material's function that writes relative URLs back as absolute, and its call on the first page
ABSOLUTE_URLS = re.compile(r'function ([\w$]+)\(e\)\{for\(let t of [\w$]+\("\[href\], \[src\]",e\)\)')
TABLE = re.compile(r"<table(?![^>]*\bclass=)(?:\s[^>]*)?>.*?</table>", re.S)
TABLE_WRAP = ('<div class="md-typeset__scrollwrap"><div class="md-typeset__table">', "</div></div>")
UNWRAPPED_TABLES = ('"table:not([class])"', '"table:not([class]):not(.md-typeset__table>table)"')
PAGE_LINKS = re.compile(r'\n?[ \t]*<link rel="(?:prev|next)" href="[^"]*">')
FOOTER_KEYS = (('"link[rel=prev]"', '".md-footer__link--prev"'), ('"link[rel=next]"', '".md-footer__link--next"'))
LINE_ANCHOR = re.compile(r'<a id="__codelineno-[^"]*" name="__codelineno-[^"]*" href="#__codelineno-[^"]*"></a>')


def name_dialogs(html: str, where: str) -> str:
    """Material's search dialog and loading bar, each with its accessible name."""
    for tag, named in NAMES:
        if tag not in html:
            raise PluginError(f"hooks/markup.py: {where} has no `{tag}` (did Material change its markup?)")
        html = html.replace(tag, named, 1)
    return html


def own_palette(html: str, where: str) -> str:
    """The header's palette form, left for palette.mjs instead of Material's component."""
    if PALETTE[0] not in html:
        raise PluginError(f"hooks/markup.py: {where} has no `{PALETTE[0]}` (did Material change its markup?)")
    return html.replace(*PALETTE)


def defer_bundle(html: str, where: str) -> str:
    """Material's script tag with `defer` (it runs when it did, without holding up the first paint)."""
    html, count = BUNDLE.subn(r'<script defer src="\1"></script>', html)
    if count != 1:
        raise PluginError(f"hooks/markup.py: {where} has {count} Material script tags, expected 1 (did Material change its markup?)")
    return html


def drop_signature_line_ids(html: str) -> str:
    """mkdocstrings' signature blocks without their (repeated) per-line ids."""
    return SIGNATURE.sub(lambda m: LINE_ANCHOR.sub("", LINE_SPAN.sub("<span>", m.group(0))), html)


def head_only_urls(bundle: str) -> str:
    """Material's bundle with its start-up rewrite of relative URLs limited to the page's <head>."""
    found = ABSOLUTE_URLS.findall(bundle)
    if len(found) != 1:
        raise PluginError("hooks/markup.py: Material's bundle has no single URL-rewriting function (did Material change it?)")
    if f"(document.head).subscribe({found[0]})" in bundle:
        return bundle   # patched already
    call = re.compile(r"([\w$]+)\(document\)\.subscribe\(" + re.escape(found[0]) + r"\)")
    bundle, count = call.subn(lambda m: f"{m.group(1)}(document.head).subscribe({found[0]})", bundle)
    if count != 1:
        raise PluginError(f"hooks/markup.py: Material's bundle calls {found[0]} on the page {count} times, expected 1 (did Material change it?)")
    return bundle


def wrap_tables(html: str) -> str:
    """Every table without a class in the two <div>s Material's script would put it in."""
    return TABLE.sub(lambda m: TABLE_WRAP[0] + m.group(0) + TABLE_WRAP[1], html)


def skip_wrapped_tables(bundle: str) -> str:
    """Material's bundle with its start-up table wrapping limited to tables not wrapped yet."""
    old, new = UNWRAPPED_TABLES
    if new in bundle:
        return bundle   # patched already
    if bundle.count(old) != 1:
        raise PluginError(f"hooks/markup.py: Material's bundle has {bundle.count(old)} `{old}`, expected 1 (did Material change it?)")
    return bundle.replace(old, new)


def drop_page_links(html: str) -> str:
    """The page without Material's `<link rel="prev">`/`<link rel="next">` (Firefox prefetches the next one).

    >>> drop_page_links('<head>\\n  <link rel="prev" href="../">\\n  <link rel="next" href="../memory/">\\n</head>')
    '<head>\\n</head>'
    """
    return PAGE_LINKS.sub("", html)


def keys_from_footer(bundle: str) -> str:
    """Material's bundle with its p/n keys following the footer's links rather than <head>'s."""
    for old, new in FOOTER_KEYS:
        if new in bundle:
            continue    # patched already
        if bundle.count(old) != 1:
            raise PluginError(f"hooks/markup.py: Material's bundle has {bundle.count(old)} `{old}`, expected 1 (did Material change it?)")
        bundle = bundle.replace(old, new)
    return bundle


# ---- the MkDocs events ------------------------------------------------------------------------------

def on_page_content(html, page, config, files, **kwargs):
    return wrap_tables(drop_signature_line_ids(html))


def on_post_page(output, page, config, **kwargs):
    where = page.file.src_uri
    return drop_page_links(own_palette(defer_bundle(name_dialogs(output, where), where), where))


def on_post_template(output_content, template_name, config, **kwargs):
    # 404.html is a theme template, not a page: it has the same header and loading bar
    if not template_name.endswith(".html"):
        return output_content
    return own_palette(defer_bundle(name_dialogs(output_content, template_name), template_name), template_name)


def on_post_build(config, **kwargs):
    bundles = list((Path(config["site_dir"]) / "assets" / "javascripts").glob("bundle.*.min.js"))
    if len(bundles) != 1:
        raise PluginError(f"hooks/markup.py: {len(bundles)} Material bundles in the build, expected 1")
    bundle = bundles[0].read_text(encoding="utf-8")
    bundles[0].write_text(keys_from_footer(skip_wrapped_tables(head_only_urls(bundle))), encoding="utf-8")
