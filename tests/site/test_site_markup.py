"""The built HTML is valid where our build makes it (hooks/markup.py, hooks/quiz.py), read without a
browser: no id twice in a page, no `markdown=` attribute left over from md_in_html, and Material's
search dialog and loading bar have accessible names on every page."""

from __future__ import annotations

import re
import sys
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
import pytest  # noqa: E402
from mkdocs.exceptions import PluginError  # noqa: E402

from hooks.markup import drop_signature_line_ids, head_only_urls, keys_from_footer, skip_wrapped_tables, wrap_tables  # noqa: E402


class Markup(HTMLParser):
    """The ids, the tags that kept a `markdown` attribute, and the attributes of role=dialog/progressbar."""

    def __init__(self):
        super().__init__()
        self.ids, self.markdown, self.roles = Counter(), [], {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids[attrs["id"]] += 1
        if "markdown" in attrs:
            self.markdown.append(f"<{tag} class={attrs.get('class')!r} markdown={attrs['markdown']!r}>")
        if attrs.get("role") in ("dialog", "progressbar"):
            self.roles[attrs["role"]] = attrs

    handle_startendtag = handle_starttag


def read(path: Path) -> Markup:
    parser = Markup()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def pages(site_dir: Path) -> list[Path]:
    found = sorted(site_dir.rglob("*.html"))
    assert len(found) > 40, f"only {len(found)} pages built"
    return found


def test_no_page_has_an_id_twice(site_build):
    repeated = {}
    for path in pages(site_build.dir):
        twice = sorted(i for i, n in read(path).ids.items() if n > 1)
        if twice:
            repeated[str(path.relative_to(site_build.dir))] = twice[:5]
    assert not repeated, repeated


def test_no_markdown_attribute_is_left_in_the_html(site_build):
    left = {str(p.relative_to(site_build.dir)): m for p in pages(site_build.dir) if (m := read(p).markdown)}
    assert not left, left


def test_the_search_dialog_and_the_loading_bar_are_named_on_every_page(site_build):
    unnamed = []
    for path in pages(site_build.dir):
        roles = read(path).roles
        if "dialog" not in roles and "progressbar" not in roles:
            continue   # not a site page (e.g. a file under assets/)
        unnamed += [f"{path.relative_to(site_build.dir)}: {role}" for role in ("dialog", "progressbar")
                    if not roles.get(role, {}).get("aria-label")]
    assert not unnamed, unnamed


def test_a_signature_keeps_its_code_and_loses_only_its_line_ids():
    signature = ('<div class="language-python doc-signature highlight"><pre><span></span><code>'
                 '<span id="__span-0-1"><a id="__codelineno-0-1" name="__codelineno-0-1" href="#__codelineno-0-1"></a>'
                 '<span class="nf">f</span><span class="p">()</span>\n</span></code></pre></div>')
    other = '<div class="language-python highlight"><pre><code><span id="__span-0-1">x</span></code></pre></div>'
    assert drop_signature_line_ids(signature + other) == (
        '<div class="language-python doc-signature highlight"><pre><span></span><code>'
        '<span><span class="nf">f</span><span class="p">()</span>\n</span></code></pre></div>' + other)


def test_every_script_with_a_source_waits_for_the_parser(site_build):
    """No script holds up the first paint: each is deferred or a module (deferred by nature)."""
    blocking = {}
    for path in pages(site_build.dir):
        tags = re.findall(r"<script\b[^>]*\bsrc=[^>]*>", path.read_text(encoding="utf-8"))
        if late := [t for t in tags if "defer" not in t and 'type="module"' not in t]:
            blocking[str(path.relative_to(site_build.dir))] = late
    assert not blocking, list(blocking.items())[:5]
    home = (site_build.dir / "index.html").read_text(encoding="utf-8")
    assert re.search(r'<script defer src="[^"]*bundle\.[0-9a-f]+\.min\.js">', home)


MATERIAL_LIKE = ('function vi(e){for(let t of M("[href], [src]",e))for(let r of["href","src"]){t[r]=t[r]}return $(e)}'
                 'function gi(){$(document).subscribe(vi);let s=t.pipe(b(vi))}')


def test_materials_url_rewrite_at_start_is_limited_to_the_head():
    patched = head_only_urls(MATERIAL_LIKE)
    assert "$(document.head).subscribe(vi)" in patched and "$(document).subscribe(vi)" not in patched
    assert "t.pipe(b(vi))" in patched            # pages fetched by instant navigation: still rewritten whole
    assert head_only_urls(patched) == patched     # a second build of the same files changes nothing
    with pytest.raises(PluginError, match="URL-rewriting function"):
        head_only_urls(MATERIAL_LIKE.replace('"[href], [src]"', '"[href]"'))
    with pytest.raises(PluginError, match="0 times"):
        head_only_urls(MATERIAL_LIKE.replace("$(document).subscribe(vi)", "$(window).subscribe(vi)"))


def test_the_built_bundle_is_patched(site_build):
    bundles = list((site_build.dir / "assets" / "javascripts").glob("bundle.*.min.js"))
    assert len(bundles) == 1
    bundle = bundles[0].read_text(encoding="utf-8")
    assert "(document.head).subscribe(" in bundle and '"table:not([class]):not(.md-typeset__table>table)"' in bundle
    assert '".md-footer__link--next"' in bundle and '"link[rel=next]"' not in bundle and '"link[rel=prev]"' not in bundle


def test_no_built_page_names_a_next_page_for_the_browser_to_prefetch(site_build):
    with_links = [str(p.relative_to(site_build.dir)) for p in site_build.dir.rglob("*.html")
                  if re.search(r'<link rel="(?:next|prev)"', p.read_text(encoding="utf-8"))]
    assert with_links == []
    react = (site_build.dir / "agents" / "react" / "index.html").read_text(encoding="utf-8")
    assert 'class="md-footer__link md-footer__link--next"' in react    # what the n key follows instead


def test_the_keys_patch_follows_the_footer_and_stops_on_a_changed_material():
    bundle = 'case"p":let t=ue("link[rel=prev]");st(t);break;case"n":let r=ue("link[rel=next]");st(r)'
    patched = keys_from_footer(bundle)
    assert patched == 'case"p":let t=ue(".md-footer__link--prev");st(t);break;case"n":let r=ue(".md-footer__link--next");st(r)'
    assert keys_from_footer(patched) == patched
    with pytest.raises(PluginError, match="link\\[rel=next\\]"):
        keys_from_footer(bundle.replace('"link[rel=next]"', '"link[rel~=next]"'))


def test_tables_are_wrapped_as_materials_script_would_and_it_skips_them():
    html = '<table>\n<tr><td>a</td></tr></table><p>x</p><table class="own"><tr><td>b</td></tr></table>'
    assert wrap_tables(html) == ('<div class="md-typeset__scrollwrap"><div class="md-typeset__table"><table>\n'
                                 '<tr><td>a</td></tr></table></div></div><p>x</p><table class="own"><tr><td>b</td></tr></table>')
    bundle = 'M("table:not([class])",e).map(i=>ti(i))'
    assert skip_wrapped_tables(bundle) == 'M("table:not([class]):not(.md-typeset__table>table)",e).map(i=>ti(i))'
    assert skip_wrapped_tables(skip_wrapped_tables(bundle)) == skip_wrapped_tables(bundle)
    with pytest.raises(PluginError, match="expected 1"):
        skip_wrapped_tables("M(\"table\",e)")


def test_every_table_in_a_built_page_is_wrapped_once(site_build):
    wrong = {}
    for path in pages(site_build.dir):
        html = path.read_text(encoding="utf-8")
        tables = re.findall(r"(.{70})<table(?![^>]*class=)", html, re.S)
        if bad := [t for t in tables if not t.endswith('<div class="md-typeset__table">')]:
            wrong[str(path.relative_to(site_build.dir))] = bad[:2]
        if html.count('<div class="md-typeset__table"><div class="md-typeset__scrollwrap">'):
            wrong[str(path.relative_to(site_build.dir))] = "wrapped twice"
    assert not wrong, wrong
