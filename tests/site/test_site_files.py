"""Small files and texts of the built site that once went wrong: the 404 page's links (they pointed
at other hosts: "//architecture/"), robots.txt and sitemap.xml (robots.txt was missing), and text
in angle brackets that Markdown swallowed as an HTML tag ("<n> years old" showed as " years old")."""

from __future__ import annotations

import doctest
import html
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from hooks import robots

ROOT = Path(__file__).resolve().parents[2]


class Links(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.urls += [value for name, value in attrs if name in ("href", "src") and value]


def served_file(site: Path, path: str) -> Path:
    """The file a server answers for `path` (a folder is its index.html)."""
    target = site / path.lstrip("/")
    return target / "index.html" if path.endswith("/") or target.is_dir() else target


# ---- the 404 page ------------------------------------------------------------------------------

def test_every_link_on_the_404_page_opens_a_page_of_this_site_from_any_depth(site_build):
    """The 404 page is answered for any missing path, at any depth: each link, resolved against a
    deep missing address, must stay on the site's host and reach a built file."""
    site, base = site_build.dir, site_build.url
    links = Links()
    links.feed((site / "404.html").read_text(encoding="utf-8"))
    content = re.search(r"<h1>Page not found</h1>(.*?)</ul>", (site / "404.html").read_text(encoding="utf-8"), re.S).group(1)
    assert len(re.findall(r"<a href=", content)) == 4, "the page's own list: Home, Architecture, TinyLLM, Roadmap"
    problems = []
    for url in links.urls:
        if url.startswith("https://squidfunk.github.io/"):     # Material's "Made with" credit: a link out, on purpose
            continue
        if url.startswith("//"):
            problems.append(f"{url}: protocol-relative, so it names another host")
            continue
        for where in ("missing", "a/b/c/missing/"):
            resolved = urljoin(base + where, url)
            parts = urlsplit(resolved)
            if f"{parts.scheme}://{parts.netloc}/" != base:
                problems.append(f"{url} (from /{where}) -> {resolved}: another host")
            elif not served_file(site, parts.path).is_file():
                problems.append(f"{url} (from /{where}) -> {parts.path}: no such file in the build")
    assert not problems, "\n".join(problems)


# ---- robots.txt and the sitemap ------------------------------------------------------------------

def test_robots_txt_allows_every_page_and_names_the_sitemap_the_build_wrote(site_build):
    assert doctest.testmod(robots).failed == 0
    text = (site_build.dir / "robots.txt").read_text(encoding="utf-8")
    assert text == robots.robots_txt(site_build.url)
    lines = [line.strip() for line in text.splitlines()]
    assert "User-agent: *" in lines and "Allow: /" in lines and not any(line.startswith("Disallow: /") for line in lines)
    sitemap_url = next(line.split(":", 1)[1].strip() for line in lines if line.startswith("Sitemap:"))
    assert sitemap_url == site_build.url + "sitemap.xml"
    assert (site_build.dir / urlsplit(sitemap_url).path.lstrip("/")).is_file()


def test_the_sitemap_lists_every_page_at_the_sites_address(site_build):
    tree = ET.parse(site_build.dir / "sitemap.xml")
    locs = [e.text for e in tree.iter("{http://www.sitemaps.org/schemas/sitemap/0.9}loc")]
    pages = sorted(p for p in site_build.dir.rglob("index.html"))
    assert len(locs) == len(pages) and len(locs) > 40
    for loc in locs:
        assert loc.startswith(site_build.url), loc
        assert served_file(site_build.dir, urlsplit(loc).path).is_file(), loc


# ---- text in angle brackets -------------------------------------------------------------------------

HTML_TAGS = set("""a abbr b blockquote br button code dd del details div dl dt em figcaption figure h1 h2 h3
    h4 h5 h6 hr i img input kbd label li mark noscript ol p pre q s samp script small span strong style
    sub summary sup svg table tbody td th thead tr u ul var""".split())
FENCE = re.compile(r"^([ \t]*)(```|~~~).*?^\1\2[ \t]*$", re.S | re.M)
CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.S)
COMMENT = re.compile(r"<!--.*?-->", re.S)
TAG = re.compile(r"</?([A-Za-z][A-Za-z0-9-]*)(?=[\s/>])")


def bare_tags(markdown: str) -> list[str]:
    """Words in angle brackets outside code that are not HTML tags: Markdown passes them to the page
    as unknown tags, and the browser shows nothing."""
    text = CODE_SPAN.sub("", FENCE.sub("", COMMENT.sub("", markdown)))
    return [f"<{m.group(1)}>" for m in TAG.finditer(text) if m.group(1).lower() not in HTML_TAGS]


def test_no_page_has_a_bare_word_in_angle_brackets():
    assert bare_tags('answers "<n> years old", keeps `<n>` and <br> and <div class="x">') == ["<n>"]
    assert bare_tags('```text\n<prompt>\n```\n<!-- quiz: x -->') == []
    found = {str(md.relative_to(ROOT)): tags for md in sorted((ROOT / "site").rglob("*.md")) if (tags := bare_tags(md.read_text(encoding="utf-8")))}
    assert not found, f"write these as code (`<n>`) or &lt;n&gt;: {found}"


HTML5 = set("""a abbr address area article aside audio b base bdi bdo blockquote body br button canvas caption
    cite code col colgroup data datalist dd del details dfn dialog div dl dt em embed fieldset figcaption figure
    footer form h1 h2 h3 h4 h5 h6 head header hgroup hr html i iframe img input ins kbd label legend li link main
    map mark menu meta meter nav noscript object ol optgroup option output p picture pre progress q rp rt ruby s
    samp script search section select slot small source span strong style sub summary sup table tbody td template
    textarea tfoot th thead time title tr track u ul var video wbr math svg""".split())


class UnknownTags(HTMLParser):
    """Start tags that are no HTML element, outside <svg> and <math> (their own vocabularies)."""
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.foreign, self.unknown = 0, []

    def handle_starttag(self, tag, attrs):
        if self.foreign:
            self.foreign += tag in ("svg", "math")
        elif tag in ("svg", "math"):
            self.foreign = 1
        elif tag not in HTML5:
            self.unknown.append(f"<{tag}>")

    def handle_endtag(self, tag):
        if self.foreign and tag in ("svg", "math"):
            self.foreign -= 1


def test_no_built_page_has_an_unknown_element(site_build):
    """What the Markdown check above cannot see: API pages render docstrings, where `"<cell>"` in
    prose vanished the same way (the HTML validator found it)."""
    probe = UnknownTags()
    probe.feed('<p>a "<cell>" b</p><svg><g><foreignObject><div>x</div></foreignObject></g></svg><br>')
    assert probe.unknown == ["<cell>"]
    found = {}
    for page in sorted(site_build.dir.rglob("*.html")):
        parser = UnknownTags()
        parser.feed(page.read_text(encoding="utf-8"))
        if parser.unknown:
            found[str(page.relative_to(site_build.dir))] = sorted(set(parser.unknown))
    assert not found, f"text in angle brackets became an element: write it as code: {found}"


def test_the_reasoning_page_shows_the_placeholder(site_build):
    text = (site_build.dir / "reasoning" / "index.html").read_text(encoding="utf-8")
    plain = html.unescape(re.sub(r"<[^>]+>", "", text))
    assert '"<n> years old"' in plain
