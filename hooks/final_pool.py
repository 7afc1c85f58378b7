"""Build helper · the course final's question pool: course.yml's units and their quizzes -> lllm/labs/final/pool.json.

Read course.yml and quizzes/README.md first. The final draws questions from the units' quizzes, and
it is graded in two places that have no YAML and no Markdown: the page's Python (Pyodide) and
`python -m lllm grade` in a terminal. So this helper writes the pool once, as JSON inside the
package (prompts and choices rendered to HTML, short answers normalised, each `teaches` resolved to
a page, an anchor and the heading's words), and `tests/labs/test_final_pool.py` fails, naming this
command, when the committed file is no longer what the quizzes say:

    .venv/bin/python -m hooks.final_pool          # rewrites lllm/labs/final/pool.json

Only the kinds a record can hold and a grader can check without a person are drawn: single,
multiple and short (reflections are graded by the learner; code questions by their own harness).

    >>> heading_ids("## Time travel: step back, edit\\n## Usage notes { #notes }\\n")
    {'time-travel-step-back-edit': 'Time travel: step back, edit', 'notes': 'Usage notes'}
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from hooks.quiz import html
from hooks.quiz_files import QUIZ_DIR, ROOT, load_quiz, normalise, teaches_target

POOL_FILE = ROOT / "lllm" / "labs" / "final" / "pool.json"
KINDS = ("single", "multiple", "short")
QUIZ_MARKER = re.compile(r"<!-- quiz: ([a-z0-9-]+) -->")


def heading_ids(markdown_text: str) -> dict[str, str]:
    """A page's headings as MkDocs names them: {id: the heading's words}."""
    out = {}
    for line in markdown_text.splitlines():
        match = re.match(r"^#{1,6}\s+(.*?)\s*(?:\{\s*#([\w-]+)[^}]*\})?\s*$", line)
        if match:
            words = match.group(1).strip()
            slug = match.group(2) or re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", words.lower())).strip("-")
            out[slug] = words.replace("`", "")
    return out


def quiz_pages(site: Path = ROOT / "site") -> dict[str, str]:
    """topic -> the page (under site/) that shows its quiz."""
    pages = {}
    for page in sorted(site.rglob("*.md")):
        for topic in QUIZ_MARKER.findall(page.read_text(encoding="utf-8")):
            pages.setdefault(topic, page.relative_to(site).as_posix())
    return pages


def pool_question(q: dict, quiz_page: str, site: Path) -> dict:
    page, anchor = teaches_target(q["teaches"], quiz_page)
    title = heading_ids((site / page).read_text(encoding="utf-8")).get(anchor, anchor.replace("-", " "))
    out = {"id": q["id"], "kind": q["kind"], "prompt": html(q["prompt"]),
           "teaches": {"page": page, "anchor": anchor, "title": title}}
    if q["kind"] == "short":
        out["answers"] = sorted({normalise(a) for a in q["answers"]})
    else:
        out["choices"] = [{"html": html(c["text"], inline=True), "correct": c.get("correct") is True}
                          for c in q["choices"]]
    return out


def build_pool(root: Path = ROOT) -> dict:
    """{"units": [{id, title, questions}]}: every unit of course.yml with its quiz's drawable questions."""
    course = yaml.safe_load((root / "course.yml").read_text(encoding="utf-8"))
    pages = quiz_pages(root / "site")
    units = []
    for unit in course["units"]:
        quiz = load_quiz(QUIZ_DIR / f"{unit['quiz']}.yml", root)
        questions = [pool_question(q, pages[unit["quiz"]], root / "site") for q in quiz.questions if q["kind"] in KINDS]
        units.append({"id": unit["id"], "title": unit["title"], "questions": questions})
    return {"units": units}


def pool_text(pool: dict) -> str:
    return json.dumps(pool, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


if __name__ == "__main__":
    POOL_FILE.write_text(pool_text(build_pool()), encoding="utf-8")
    print(f"wrote {POOL_FILE.relative_to(ROOT)}")
