"""MkDocs hook · the course: course.yml -> the Course page, "Next in the course", the progress widgets.

Read course.yml (the format, in its header comment) first. When the build starts the file is
checked, and a mistake stops the build naming the file and the field:

    course.yml: units[3].quiz: no quiz named 'reactt' (quizzes/reactt.yml does not exist)

In a page, a line

    <!-- course -->             (site/course/index.md) the units in order, each with its pages, its
                                 demo or cell, its quiz, its exercise and minutes; a progress bar;
                                 the printable summary once every unit is done
    <!-- course-progress -->    (site/index.md) the progress bar and "Continue where you left off"

becomes Markdown and empty containers that site/assets/course/course.mjs fills from the reader's
progress (kept in the quiz store, site/assets/quiz/store.mjs). Each unit's last page gets
"Next in the course" at its end, written here so it is in the HTML. On a course page the
footer's Previous and Next follow the course, not the nav: inside a unit they go to its previous
and next page, and from a unit's last page on to the next unit's first. The hook also writes
assets/course/course.json: the units with their page URLs and quiz question ids, for course.mjs.

LLLM_COURSE_FILE=<path> reads another course file (the tests build broken ones).
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from hooks.quiz_files import QUIZ_DIR  # noqa: E402  (MkDocs loads hook files by path)

ROOT = Path(__file__).resolve().parent.parent
COURSE = ROOT / "course.yml"
SITE = ROOT / "site"
ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")
UNIT_KEYS = ("id", "title", "minutes", "why", "pages", "run", "quiz", "exercise", "exercise_title")
COURSE_MARKER, PROGRESS_MARKER = "<!-- course -->", "<!-- course-progress -->"
COURSE_JSON = "assets/course/course.json"
RUNNABLE_RE = re.compile(r'\{\.runnable\}|class="lllm-demo"')


class CourseError(ValueError):
    """A mistake in the course file: the message names the file and the field."""


@dataclass
class Unit:
    id: str
    title: str
    minutes: int
    why: str
    pages: list[str]
    run: str
    quiz: str
    exercise: str
    exercise_title: str
    quiz_title: str = ""
    question_ids: tuple[str, ...] = ()


@dataclass
class Course:
    title: str
    units: list[Unit]

    def unit_of(self, page: str) -> Unit | None:
        return next((u for u in self.units if page in u.pages), None)


# ---- reading and checking course.yml ----------------------------------------------------------------

def _quiz(topic: str, quiz_dir: Path) -> dict | None:
    path = quiz_dir / f"{topic}.yml"
    return yaml.safe_load(path.read_text(encoding="utf-8")) if path.is_file() else None


def load(path: Path = COURSE, site: Path = SITE, quiz_dir: Path = QUIZ_DIR) -> Course:
    """Read and check the course file; the first mistake is a CourseError naming the file and field."""
    name = path.name

    def fail(field: str, message: str):
        raise CourseError(f"{name}: {field}: {message}")

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CourseError(f"{name}: the file does not exist ({path})") from None
    except yaml.YAMLError as error:
        raise CourseError(f"{name}: not valid YAML: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("units"), list) or not data["units"]:
        fail("units", "expected a non-empty list of units")
    if not isinstance(data.get("title"), str) or not data["title"].strip():
        fail("title", "expected the course's title (text)")
    units, owner = [], {}
    for n, raw in enumerate(data["units"]):
        at = f"units[{n}]"
        if not isinstance(raw, dict):
            fail(at, "expected a mapping with " + ", ".join(UNIT_KEYS))
        for key in UNIT_KEYS:
            if key not in raw:
                fail(f"{at}.{key}", "missing")
        for key in raw:
            if key not in UNIT_KEYS:
                fail(f"{at}.{key}", f"unknown field (a unit has: {', '.join(UNIT_KEYS)})")
        uid = raw["id"]
        if not isinstance(uid, str) or not ID_RE.match(uid) or any(u.id == uid for u in units):
            fail(f"{at}.id", f"{uid!r} must be unique and use only a-z, 0-9 and -")
        at = f"units[{n}] ({uid})"
        for key in ("title", "why", "exercise_title"):
            if not isinstance(raw[key], str) or not raw[key].strip():
                fail(f"{at}.{key}", "expected text")
        if not isinstance(raw["minutes"], int) or isinstance(raw["minutes"], bool) or not 5 <= raw["minutes"] <= 120:
            fail(f"{at}.minutes", f"expected a whole number of minutes from 5 to 120, got {raw['minutes']!r}")
        pages = raw["pages"]
        if not isinstance(pages, list) or not pages:
            fail(f"{at}.pages", "expected a non-empty list of pages under site/")
        for i, page in enumerate(pages):
            if not isinstance(page, str) or not (site / page).is_file():
                fail(f"{at}.pages[{i}]", f"no page {page!r} (site/{page} does not exist)")
            if page in owner:
                fail(f"{at}.pages[{i}]", f"{page} is already in unit {owner[page]!r}; a page belongs to one unit")
            owner[page] = uid
        if raw["run"] not in pages:
            fail(f"{at}.run", f"{raw['run']!r} is not one of the unit's pages")
        if not RUNNABLE_RE.search((site / raw["run"]).read_text(encoding="utf-8")):
            fail(f"{at}.run", f"{raw['run']} has no demo (class=\"lllm-demo\") and no runnable cell ({{.runnable}})")
        quiz = _quiz(raw["quiz"], quiz_dir) if isinstance(raw["quiz"], str) and ID_RE.match(raw["quiz"]) else None
        if quiz is None:
            known = ", ".join(sorted(p.stem for p in quiz_dir.glob("*.yml")))
            fail(f"{at}.quiz", f"no quiz named {raw['quiz']!r} (known: {known})")
        marker = f"<!-- quiz: {raw['quiz']} -->"
        if not any(marker in (site / p).read_text(encoding="utf-8") for p in pages):
            fail(f"{at}.quiz", f"quiz {raw['quiz']!r} is not shown on any of the unit's pages ({marker})")
        questions = quiz.get("questions") or []
        codes = [q.get("id") for q in questions if q.get("kind") == "code"]
        if raw["exercise"] not in codes:
            fail(f"{at}.exercise", f"{raw['exercise']!r} is not a code question of quizzes/{raw['quiz']}.yml "
                                   f"(its code questions: {', '.join(map(str, codes)) or 'none'})")
        units.append(Unit(**{k: raw[k] for k in UNIT_KEYS}, quiz_title=str(quiz.get("title", raw["quiz"])),
                          question_ids=tuple(q["id"] for q in questions)))
    return Course(title=data["title"], units=units)


# ---- what the pages receive --------------------------------------------------------------------------

def rel(target: str, page: str) -> str:
    """A Markdown link from site page `page` to site page `target` (MkDocs checks it with --strict)."""
    return posixpath.relpath(target, posixpath.dirname(page) or ".")


def page_title(page: str) -> str:
    """A page's first heading (its title in the course list)."""
    for line in (SITE / page).read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return page


def unit_heading(n: int, unit: Unit) -> str:
    return f"Unit {n} · {unit.title}"


def quiz_page(unit: Unit) -> str:
    """The unit's page that shows its quiz (load() checked there is one)."""
    return next(p for p in unit.pages if f"<!-- quiz: {unit.quiz} -->" in (SITE / p).read_text(encoding="utf-8"))


# What the marks mean, in words beside them: the navigation's marks (course.mjs) and each unit's steps.
LEGEND = ('<p class="lllm-course-legend" data-course-legend><strong>The marks:</strong> beside a page in the '
          'navigation, <span class="lllm-course-legend__mark">✓</span> its unit is done, '
          '<span class="lllm-course-legend__mark">◐</span> started, '
          '<span class="lllm-course-legend__mark">○</span> not started; in a unit\'s steps '
          'below, ✓ done and ○ not yet.</p>\n')


def course_markdown(course: Course, here: str) -> str:
    """The Course page's body: the progress bar and the units in order."""
    total = sum(u.minutes for u in course.units)
    out = [f'<div class="lllm-course-progress" data-course-progress="course"></div>\n',
           f"{len(course.units)} units, about {total // 60} h {total % 60:02d} min in all.\n",
           LEGEND]
    for n, unit in enumerate(course.units, 1):
        reads = ", ".join(f"[{page_title(p)}]({rel(p, here)})" for p in unit.pages)
        run_kind = "the demo" if 'class="lllm-demo"' in (SITE / unit.run).read_text(encoding="utf-8") else "a code cell"
        out.append(f"### {unit_heading(n, unit)} {{ #unit-{unit.id} }}\n\n"
                   f'<div class="lllm-course-unit" data-unit="{unit.id}" markdown>\n\n'
                   f"*About {unit.minutes} min.* {unit.why}\n\n"
                   f"- **Read:** {reads}\n"
                   f"- **Run:** {run_kind} on [{page_title(unit.run)}]({rel(unit.run, here)}), to the end once\n"
                   f"- **Quiz:** [{unit.quiz_title}]({rel(quiz_page(unit), here)}#quiz-{unit.quiz}), 80 % right or better on a first attempt\n"
                   f"- **Exercise:** *{unit.exercise_title}*, the code question in that quiz, passed against its hidden checks before its solution is shown\n\n"
                   f'<p class="lllm-course-unit__status" data-unit-status="{unit.id}"></p>\n\n</div>\n')
    return "\n".join(out)


def next_markdown(course: Course, unit: Unit, here: str) -> str:
    """The end of a unit's last page: where the course goes next."""
    n = course.units.index(unit)
    if n + 1 < len(course.units):
        following = course.units[n + 1]
        target = f"[{unit_heading(n + 2, following)}]({rel(following.pages[0], here)})"
        tail = f" (about {following.minutes} min). See all units on [the course page]({rel('course/index.md', here)})."
    else:
        target = f"[your summary]({rel('course/index.md', here)}#your-course-summary)"
        tail = ": this was the last unit."
    return (f'\n\n<div class="lllm-course-next" data-course-next="{unit.id}" markdown>\n\n'
            f"**Next in the course:** {target}{tail}\n\n</div>\n")


def course_json(course: Course, files) -> str:
    """What course.mjs reads: every unit with its pages' URLs (relative to the site root)."""
    url = {f.src_uri: f.url for f in files.documentation_pages()}
    units = [{"id": u.id, "number": n, "title": u.title, "minutes": u.minutes,
              "pages": [{"src": p, "url": url[p], "title": page_title(p)} for p in u.pages],
              "run": u.run, "quiz": u.quiz, "quizTitle": u.quiz_title, "quizPage": quiz_page(u),
              "questions": list(u.question_ids), "exercise": u.exercise,
              "exerciseTitle": u.exercise_title} for n, u in enumerate(course.units, 1)]
    return json.dumps({"title": course.title, "course": url["course/index.md"], "units": units}, ensure_ascii=False, indent=1)


# ---- the MkDocs events ------------------------------------------------------------------------------

_state: dict = {"course": None}


def on_config(config, **kwargs):
    try:
        _state["course"] = load(Path(os.environ.get("LLLM_COURSE_FILE", COURSE)))
    except CourseError as error:
        raise PluginError(f"invalid course: {error}") from None
    return config


def on_files(files, config, **kwargs):
    files.append(File.generated(config, COURSE_JSON, content=course_json(_state["course"], files)))
    return files


def on_page_markdown(markdown_text, page, config, files, **kwargs):
    course, here = _state["course"], page.file.src_uri
    if COURSE_MARKER in markdown_text:
        markdown_text = markdown_text.replace(COURSE_MARKER, course_markdown(course, here))
    if PROGRESS_MARKER in markdown_text:
        markdown_text = markdown_text.replace(
            PROGRESS_MARKER, '<div class="lllm-course-progress" data-course-progress="home"></div>')
    unit = course.unit_of(here)
    if unit and here == unit.pages[-1]:
        markdown_text += next_markdown(course, unit, here)
    return markdown_text


def on_page_context(context, page, config, nav, **kwargs):
    """The footer of a course page walks the course (the nav's order puts Unit 2's pages between
    Unit 1's); pages outside the course keep the nav's neighbours."""
    order = [p for unit in _state["course"].units for p in unit.pages]
    here = page.file.src_uri
    if here in order:
        by_src, i = {p.file.src_uri: p for p in nav.pages}, order.index(here)
        if i > 0:
            page.previous_page = by_src.get(order[i - 1], page.previous_page)
        if i + 1 < len(order):
            page.next_page = by_src.get(order[i + 1], page.next_page)
    return context
