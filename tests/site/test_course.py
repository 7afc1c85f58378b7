"""The course (course.yml, hooks/course.py) and the recorded demos (hooks/recorded.py), without a
browser: the file is valid and a broken one names the file and the field; the built site has the
Course page, linked first from the home page, units in order, "Next in the course" at the end of
each unit's last page; code questions' tests are in no page, only in assets/quiz/checks; every demo
has a recording that is what CPython prints for the page's own params today."""

from __future__ import annotations

import base64
import json
import os
import posixpath
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from html import escape as html_escape

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from hooks import course as course_hook  # noqa: E402
from hooks import recorded  # noqa: E402
from hooks.course import CourseError, load  # noqa: E402

UNIT = {"id": "one", "title": "One", "minutes": 20, "why": "Because.", "pages": ["tinyllm/generation.md"],
        "run": "tinyllm/generation.md", "quiz": "generation", "exercise": "gen-pick-code",
        "exercise_title": "Pick the next character"}


def write(tmp_path, units, title="A course") -> Path:
    path = tmp_path / "course.yml"
    path.write_text(yaml.safe_dump({"title": title, "units": units}), encoding="utf-8")
    return path


# ---- the file ------------------------------------------------------------------------------------------

def test_the_course_file_is_valid_and_ordered():
    course = load()
    assert 8 <= len(course.units) <= 12
    assert [u.id for u in course.units][:4] == ["next-token", "training", "inside-model", "onnx-page"]
    assert course.units[-1].id == "reasoning"
    pages = [p for u in course.units for p in u.pages]
    assert len(pages) == len(set(pages)), "a page belongs to one unit"
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert all(p in nav for p in pages), "every unit page is in the nav"


def test_a_minimal_file_loads(tmp_path):
    course = load(write(tmp_path, [UNIT]))
    assert course.units[0].question_ids[0] and "gen-pick-code" in course.units[0].question_ids


@pytest.mark.parametrize("change, field, words", [
    ({"quiz": "nope"}, "units[0] (one).quiz", "no quiz named 'nope'"),
    ({"pages": ["tinyllm/missing.md"]}, "units[0] (one).pages[0]", "site/tinyllm/missing.md does not exist"),
    ({"exercise": "gen-temperature"}, "units[0] (one).exercise", "is not a code question"),
    ({"run": "tinyllm/index.md"}, "units[0] (one).run", "is not one of the unit's pages"),
    ({"minutes": 0}, "units[0] (one).minutes", "from 5 to 120"),
    ({"quiz": "react"}, "units[0] (one).quiz", "is not shown on any of the unit's pages"),
    ({"colour": "blue"}, "units[0].colour", "unknown field"),
    ({"exercise_title": " "}, "units[0] (one).exercise_title", "expected text"),
])
def test_a_bad_unit_names_the_file_and_the_field(tmp_path, change, field, words):
    with pytest.raises(CourseError) as caught:
        load(write(tmp_path, [{**UNIT, **change}]))
    assert str(caught.value).startswith(f"course.yml: {field}: "), str(caught.value)
    assert words in str(caught.value)


def test_missing_fields_and_shared_pages_are_named(tmp_path):
    unit = dict(UNIT)
    del unit["exercise"]
    with pytest.raises(CourseError, match=r"^course.yml: units\[0\].exercise: missing$"):
        load(write(tmp_path, [unit]))
    with pytest.raises(CourseError, match=r"units\[1\] \(two\).pages\[0\]: tinyllm/generation.md is already in unit 'one'"):
        load(write(tmp_path, [UNIT, {**UNIT, "id": "two"}]))
    with pytest.raises(CourseError, match=r"^course.yml: units: expected a non-empty list"):
        load(write(tmp_path, []))


def test_a_bad_file_stops_the_build_with_its_message(tmp_path):
    env = {**os.environ, "LLLM_COURSE_FILE": str(write(tmp_path, [{**UNIT, "quiz": "nope"}])), "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "out")],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode != 0
    assert "invalid course: course.yml: units[0] (one).quiz: no quiz named 'nope'" in result.stdout + result.stderr


# ---- the built pages -----------------------------------------------------------------------------------

def html(site_build, path: str) -> str:
    return (site_build.dir / path).read_text(encoding="utf-8")


def content(text: str) -> str:
    return text[text.index('<article class="md-content__inner'):text.index("</article>")]


def test_the_home_page_links_the_course_first(site_build):
    links = re.findall(r'<a href="([^"#]+)"', content(html(site_build, "index.html")))
    assert links[0] == "course/"
    assert 'data-course-progress="home"' in html(site_build, "index.html")


def test_the_course_page_lists_the_units_in_order(site_build):
    page = html(site_build, "course/index.html")
    units = load().units
    headings = re.findall(r'<h3 id="unit-([\w-]+)"', page)
    assert headings == [u.id for u in units]
    for n, unit in enumerate(units, 1):
        assert f"Unit {n} · {unit.title}" in page
        assert f"<em>{html_escape(unit.exercise_title, quote=False)}</em>" in page and f"About {unit.minutes} min." in page
        assert unit.exercise not in page.replace(f'"{unit.exercise}"', ""), "an exercise is named by its title, not its id"
    assert 'data-course-progress="course"' in page and "data-course-summary" in page


def url_of(src: str) -> str:
    """A page's directory URL path: tinyllm/generation.md -> /tinyllm/generation/, agents/index.md -> /agents/."""
    stem = src.removesuffix(".md")
    stem = stem.removesuffix("index").rstrip("/")
    return "/" + (stem + "/" if stem else "")


def resolve(src: str, href: str) -> str:
    """The URL path a relative link on page `src` points at."""
    return posixpath.normpath(posixpath.join(url_of(src), href)).rstrip("/") + "/"


def test_each_units_last_page_ends_with_next_in_the_course(site_build):
    units = load().units
    for n, unit in enumerate(units):
        last = unit.pages[-1]
        body = content(html(site_build, url_of(last).lstrip("/") + "index.html"))
        tail = body[body.rindex("lllm-course-next"):]
        assert "Next in the course:" in tail, unit.id
        assert "<h2" not in tail and "lllm-quiz" not in tail, f"{unit.id}: Next in the course is not the end"
        if n + 1 < len(units):
            href = re.search(r'<a href="([^"]+)">Unit ' + str(n + 2) + " · ", tail).group(1)
            assert resolve(last, href) == url_of(units[n + 1].pages[0]), (unit.id, href)
        else:
            assert "this was the last unit" in tail
    others = [p for u in units for p in u.pages[:-1]]
    assert all("lllm-course-next" not in html(site_build, url_of(p).lstrip("/") + "index.html") for p in others)


def footer_link(page: str, which: str) -> str | None:
    match = re.search(r'<a href="([^"]+)" class="md-footer__link md-footer__link--' + which + '"', page)
    return match.group(1) if match else None


def test_the_footer_follows_the_course_inside_and_between_units(site_build):
    """Unit 1's first page must lead to Unit 1's second, not to Unit 2 (the nav's order)."""
    order = [p for u in load().units for p in u.pages]
    for here, following in zip(order, order[1:]):
        page = html(site_build, url_of(here).lstrip("/") + "index.html")
        assert resolve(here, footer_link(page, "next")) == url_of(following), here
        back = html(site_build, url_of(following).lstrip("/") + "index.html")
        assert resolve(following, footer_link(back, "prev")) == url_of(here), following
    first = load().units[0].pages
    assert resolve(first[0], footer_link(html(site_build, url_of(first[0]).lstrip("/") + "index.html"), "next")) \
        == url_of(first[1])


def test_course_json_has_every_unit_with_urls(site_build):
    data = json.loads(html(site_build, "assets/course/course.json"))
    assert [u["id"] for u in data["units"]] == [u.id for u in load().units]
    for unit in data["units"]:
        for page in unit["pages"]:
            assert (site_build.dir / page["url"] / "index.html").is_file(), page


def blobs(text: str) -> list:
    return [json.loads(base64.b64decode(b)) for b in re.findall(r'data-quiz-blob="([^"]+)"', text)]


def test_code_checks_are_in_no_page_only_in_their_file(site_build):
    quiz = yaml.safe_load((ROOT / "quizzes" / "reasoning.yml").read_text(encoding="utf-8"))
    code = next(q for q in quiz["questions"] if q["id"] == "reasoning-majority")
    page = html(site_build, "reasoning/index.html")
    for view in blobs(page):
        for q in view["questions"]:
            assert "tests" not in q, q["id"]
    for test in code["tests"]:
        assert test not in page and json.dumps(test)[1:-1] not in page
    checks = json.loads(html(site_build, "assets/quiz/checks/reasoning-majority.json"))
    assert checks == {"id": "reasoning-majority", "tests": code["tests"]}


# ---- the recorded demos ----------------------------------------------------------------------------------

def test_the_default_script_is_the_widgets():
    assert recorded.default_script().startswith("Thought: I should search the web\nAction: search[17 * 23]\n---\n")
    assert recorded.default_script().endswith("Final Answer: 391")


def test_every_demo_has_a_current_recording(site_build):
    from lllm.labs.reasoning_bench.benchmark import lab_json
    from lllm.web.demos import run_demo
    demos = 0
    for md in sorted((ROOT / "site").rglob("*.md")):
        src = md.relative_to(ROOT / "site").as_posix()
        for n, match in enumerate(recorded.DEMO_RE.finditer(md.read_text(encoding="utf-8"))):
            demos += 1
            saved = json.loads(html(site_build, recorded.recording_path(src, n)))
            if match.group(1) == "lllm-reasoning-lab":
                params = recorded.lab_params()
                assert saved["params"] == params and saved["result"]["ok"], src
                assert saved["result"] == json.loads(lab_json(json.dumps(params))), src
                continue
            params = recorded.default_params(dict(recorded.ATTR_RE.findall(match.group(2))))
            assert saved["params"] == params and saved["result"]["ok"], src
            again = run_demo(params)
            if params["demo"] == "playground":       # timings are measured, so they differ; the rest may not
                for row in again["rows"] + saved["result"]["rows"]:
                    for timing in ("seconds", "ms_per_call", "chars_per_second"):
                        row.pop(timing)
            assert json.loads(json.dumps(again)) == saved["result"], src
    assert demos >= 11
