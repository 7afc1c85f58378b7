"""Reader-facing pages speak plainly: no seed or issue numbers (the project's history stays on the
design page), and the pages a learner meets first say what they are (course links, page names)."""

from __future__ import annotations

import re

import pytest

HISTORY = ("design/",)          # the design page keeps the project's history, seed numbers included
NUMBERED = [
    (re.compile(r"\bseeds? 0\d\d\b", re.I), "a seed number"),
    (re.compile(r"\bseed-0\d\d\b", re.I), "a seed number"),
    (re.compile(r"\bissues? #?\d+\b", re.I), "an issue number"),
    (re.compile(r"\((?:see )?#\d+\)"), "an issue reference"),
]
HIDDEN = re.compile(r"<(pre|code|script|style)\b.*?</\1>", re.S)   # code and data are not prose


def prose(page: str) -> str:
    """The text a reader sees in a built page's article: tags, code and scripts removed."""
    start = page.find('<article class="md-content__inner')
    body = page[start:page.index("</article>", start)] if start >= 0 else page
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", HIDDEN.sub(" ", body)))


def reader_pages(site_build):
    for path in sorted(site_build.dir.rglob("*.html")):
        rel = path.relative_to(site_build.dir).as_posix()
        if not rel.startswith(HISTORY):
            yield rel, path.read_text(encoding="utf-8")


def test_prose_finds_text_but_not_code():
    page = '<article class="md-content__inner">Read <code>seed 004</code>, then <em>issue</em> 7.</article>'
    assert prose(page).split() == ["Read", ",", "then", "issue", "7."]
    assert [why for rule, why in NUMBERED if rule.search(prose(page))] == ["an issue number"]


def test_no_reader_facing_page_names_a_seed_or_an_issue_number(site_build):
    found = []
    for rel, page in reader_pages(site_build):
        text = prose(page)
        for rule, why in NUMBERED:
            found += [f"{rel}: {why}: ...{text[max(0, m.start() - 40):m.end() + 40]}..." for m in rule.finditer(text)]
    assert not found, "\n".join(found)


def test_the_design_page_may_keep_the_history(site_build):
    """The exclusion is real: the design page is built, and it is where seed numbers are allowed."""
    assert (site_build.dir / "design" / "index.html").is_file()
    assert not any(rel.startswith("design/") for rel, _ in reader_pages(site_build))


def test_the_roadmap_table_has_no_seed_column(site_build):
    page = (site_build.dir / "roadmap" / "index.html").read_text(encoding="utf-8")
    headers = re.findall(r"<th[^>]*>(.*?)</th>", page)
    assert headers[:5] == ["piece", "layer", "status", "where", "what"], headers[:6]


@pytest.mark.parametrize("path, title", [("playground/index.html", "Sampling playground"),
                                         ("agents/inference-playground/index.html", "Brain timings")])
def test_the_two_playgrounds_are_named_for_what_they_do(site_build, path, title):
    page = (site_build.dir / path).read_text(encoding="utf-8")
    assert re.search(rf"<h1[^>]*>{title}", page), title                       # the page's title
    assert f'<span class="md-ellipsis"> {title} </span>' in re.sub(r"\s+", " ", page), title   # its nav label


def test_the_home_page_leads_with_the_site_and_the_course_not_a_status_list(site_build):
    page = (site_build.dir / "index.html").read_text(encoding="utf-8")
    text = prose(page)
    assert len(text.split()) < 700, len(text.split())
    assert "Where to start" in text and "Current prototypes" not in text
    roadmap = prose((site_build.dir / "roadmap" / "index.html").read_text(encoding="utf-8"))
    assert "Current prototypes" in roadmap and "Brain timings" in roadmap
