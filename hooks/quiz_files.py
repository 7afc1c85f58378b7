"""Build helper · quiz files: read quizzes/*.yml with line numbers and check every question.

Used by hooks/quiz.py (the MkDocs hook) and tests/site/test_quiz_validate.py. The format is described
in quizzes/README.md. Every problem is a QuizError printed as `file:line [question id] message`:

    >>> quizzes, errors = load_all()
    >>> [str(e) for e in errors]
    []

`load_all` checks each file (fields, kinds, one correct answer for a single choice, an
explanation for every choice...), ids unique across files, code sources (`path:section`: a
snippet section or a def/class), and grades every code question in CPython with
site/assets/quiz/harness.py (the solution passes its hidden tests, the stub fails them). Page
anchors (`page.md#anchor`) exist only once the site is rendered: `check_page_sources` checks them
against the anchors the hook collects.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
QUIZ_DIR = ROOT / "quizzes"
HARNESS = ROOT / "site" / "assets" / "quiz" / "harness.py"

KINDS = {"single", "multiple", "short", "reflection", "code"}
ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")
QUESTION_KEYS = {
    "single": {"choices"}, "multiple": {"choices"},
    "short": {"answers", "explanation", "misconceptions"},
    "reflection": {"model_answer", "explanation"},
    "code": {"stub", "solution", "tests", "tries", "remarks", "hints"},
}
COMMON_KEYS = {"id", "kind", "prompt", "source", "teaches"}
TEACHES_RE = re.compile(r"^(?:[A-Za-z0-9_./-]+\.md)?#[A-Za-z0-9_-][A-Za-z0-9_.:-]*$")


# ---- reading YAML with line numbers ----------------------------------------------------------------

class Lined(dict):
    """A YAML mapping as a dict that remembers its own line and the line of each key (1-based)."""
    line: int = 0
    key_lines: dict


class LinedList(list):
    line: int = 0
    item_lines: list


def _plain(node):
    if isinstance(node, yaml.MappingNode):
        out = Lined()
        out.line, out.key_lines = node.start_mark.line + 1, {}
        for key_node, value_node in node.value:
            key = _plain(key_node)
            out[key] = _plain(value_node)
            out.key_lines[key] = key_node.start_mark.line + 1
        return out
    if isinstance(node, yaml.SequenceNode):
        out = LinedList(_plain(item) for item in node.value)
        out.line, out.item_lines = node.start_mark.line + 1, [n.start_mark.line + 1 for n in node.value]
        return out
    return _SCALARS.construct_object(node)


_SCALARS = yaml.SafeLoader("")   # only its scalar constructors are used (str, int, bool, null...)


# ---- validation -------------------------------------------------------------------------------------

@dataclass
class QuizError:
    path: str
    line: int
    qid: str | None
    message: str

    def __str__(self):
        return f"{self.path}:{self.line} [{self.qid or 'no id'}] {self.message}"


@dataclass
class Quiz:
    topic: str
    path: str                       # relative to the repo root
    title: str
    questions: list
    page: str | None = None         # src_uri of the page that shows it
    errors: list = field(default_factory=list)


def normalise(answer: str) -> str:
    """Short answers: case, surrounding whitespace/quotes/final punctuation and inner runs of spaces ignored.
    site/assets/quiz/questions.mjs implements the same function."""
    text = " ".join(str(answer).split()).lower()
    return text.rstrip(".!?").strip("'\"`").rstrip(".!?").strip()


def _text(q: Lined, key: str, err, required=True) -> str | None:
    value = q.get(key)
    if value is None:
        if required:
            err(q.line, f"missing '{key}'")
        return None
    if not isinstance(value, str) or not value.strip():
        err(q.key_lines.get(key, q.line), f"'{key}' must be non-empty text")
        return None
    return value


def check_question(q, err) -> None:
    """Record every problem of one question through err(line, message)."""
    kind = q.get("kind")
    if kind not in KINDS:
        err(q.key_lines.get("kind", q.line), f"unknown kind {kind!r} (use one of: {', '.join(sorted(KINDS))})"
            if kind is not None else "missing 'kind'")
        return
    for key in q:
        if key not in COMMON_KEYS | QUESTION_KEYS[kind]:
            err(q.key_lines[key], f"unknown field '{key}' for a {kind} question")
    _text(q, "prompt", err)
    _text(q, "source", err)
    teaches = _text(q, "teaches", err)
    if teaches and not TEACHES_RE.match(teaches.strip()):
        err(q.key_lines["teaches"], f"teaches {teaches!r} must name a heading: '#anchor' (on the quiz's own page) "
                                    f"or 'page.md#anchor' (on another page)")
    if kind in ("single", "multiple"):
        choices = q.get("choices")
        if not isinstance(choices, list) or len(choices) < 2:
            err(q.key_lines.get("choices", q.line), "needs 'choices': a list of at least two")
            return
        correct = 0
        for line, choice in zip(choices.item_lines, choices):
            if not isinstance(choice, dict):
                err(line, "each choice is a mapping with text, why and (for right answers) correct: true")
                continue
            for key in choice:
                if key not in ("text", "correct", "why"):
                    err(choice.key_lines[key], f"unknown choice field '{key}'")
            if not isinstance(choice.get("text"), str) or not choice["text"].strip():
                err(line, "a choice has no 'text'")
            if not isinstance(choice.get("why"), str) or not choice["why"].strip():
                err(line, f"choice {str(choice.get('text'))[:40]!r} has no explanation ('why')")
            if not isinstance(choice.get("correct", False), bool):
                err(choice.key_lines["correct"], "'correct' must be true or false")
            correct += choice.get("correct") is True
        texts = [str(c.get("text")) for c in choices if isinstance(c, dict)]
        if len(set(texts)) != len(texts):
            err(choices.line, "two choices have the same text")
        if kind == "single" and correct != 1:
            err(choices.line, f"a single-choice question needs exactly one correct answer among its choices, found {correct}")
        if kind == "multiple" and correct < 1:
            err(choices.line, "a multiple-choice question needs at least one correct answer among its choices")
    elif kind == "short":
        answers = q.get("answers")
        if not isinstance(answers, list) or not answers or not all(isinstance(a, (str, int, float)) and str(a).strip() for a in answers):
            err(q.key_lines.get("answers", q.line), "needs 'answers': a list of accepted answers")
            answers = []
        elif any(isinstance(a, bool) for a in answers):
            err(q.key_lines["answers"], "an answer was read as true/false (YAML reads yes, no, on, off so): quote it")
        _text(q, "explanation", err)
        for m in q.get("misconceptions") or []:
            if not isinstance(m, dict) or not str(m.get("answer", "")).strip() or not isinstance(m.get("why"), str):
                err(q.key_lines.get("misconceptions", q.line), "each misconception needs 'answer' and 'why'")
            elif normalise(m["answer"]) in {normalise(a) for a in answers}:
                err(m.line, f"misconception {m['answer']!r} is also an accepted answer")
    elif kind == "reflection":
        _text(q, "model_answer", err)
        _text(q, "explanation", err, required=False)
    elif kind == "code":
        for key in ("stub", "solution", "remarks"):
            _text(q, key, err)
        tests = q.get("tests")
        if not isinstance(tests, list) or not tests or not all(isinstance(t, str) and t.strip() for t in tests):
            err(q.key_lines.get("tests", q.line), "needs 'tests': a list of Python snippets (asserts)")
        tries = q.get("tries", 3)
        if not isinstance(tries, int) or isinstance(tries, bool) or not 1 <= tries <= 10:
            err(q.key_lines.get("tries", q.line), f"'tries' must be an integer from 1 to 10, got {tries!r}")
        hints = q.get("hints", [])
        if not isinstance(hints, list) or not all(isinstance(h, str) and h.strip() for h in hints):
            err(q.key_lines.get("hints", q.line), "'hints' must be a list of texts (Markdown), one per failed try")
        elif isinstance(tries, int) and len(hints) > max(tries - 1, 0):
            err(q.key_lines["hints"], f"{len(hints)} hints but only {tries} tries: a hint follows each failed try "
                                      f"but the last, so at most {max(tries - 1, 0)} can be shown")


def load_quiz(path: Path, root: Path = ROOT) -> Quiz:
    """Parse and check one quiz file (not its sources); problems land in quiz.errors."""
    rel = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
    quiz = Quiz(topic=path.stem, path=rel, title="", questions=[])

    def err(line, qid, message):
        quiz.errors.append(QuizError(rel, line, qid, message))

    try:
        node = yaml.compose(path.read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
        data = _plain(node) if node is not None else None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
        err(mark.line + 1 if mark else 1, None, f"YAML syntax error: {getattr(e, 'problem', None) or e}")
        return quiz
    if not isinstance(data, dict):
        err(1, None, "a quiz file is a mapping with 'title' and 'questions'")
        return quiz
    for key in data:
        if key not in ("title", "questions"):
            err(data.key_lines[key], None, f"unknown top-level field '{key}'")
    if not isinstance(data.get("title"), str) or not data["title"].strip():
        err(data.key_lines.get("title", 1), None, "missing 'title'")
    quiz.title = str(data.get("title") or quiz.topic)
    questions = data.get("questions")
    if not isinstance(questions, list) or not questions:
        err(data.key_lines.get("questions", 1), None, "needs 'questions': a non-empty list")
        return quiz
    for line, q in zip(questions.item_lines, questions):
        if not isinstance(q, dict):
            err(line, None, "a question is a mapping (id, kind, prompt, source, ...)")
            continue
        qid = q.get("id")
        if not isinstance(qid, str) or not ID_RE.match(qid):
            err(q.key_lines.get("id", line), None,
                "missing 'id'" if qid is None else f"id {qid!r} must be lowercase letters, digits and dashes")
            qid = None
        check_question(q, lambda l, m, qid=qid: err(l, qid, m))
        quiz.questions.append(q)
    return quiz


# ---- sources: code sections and page anchors --------------------------------------------------------

def code_source_problem(source: str, root: Path = ROOT) -> str | None:
    """None if `path[:name]` exists (name = a snippet section, or a def/class in a .py file)."""
    path, _, name = source.partition(":")
    file = (root / path).resolve()
    if not file.is_relative_to(root) or not file.is_file():
        return f"source {source!r}: file {path} does not exist"
    if not name:
        return None
    text = file.read_text(encoding="utf-8")
    if re.search(rf"--8<-- \[start:{re.escape(name)}\]", text):
        return None
    if file.suffix == ".py":
        names = set()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
                if isinstance(node, ast.ClassDef):
                    names |= {f"{node.name}.{n.name}" for n in node.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        if name in names:
            return None
    return f"source {source!r}: {path} has no section '{name}' (no `--8<-- [start:{name}]` marker, def or class)"


def page_source_problem(source: str, anchors: dict[str, set[str]]) -> str | None:
    page, _, anchor = source.partition("#")
    if page not in anchors:
        return f"source {source!r}: page {page} does not exist in the site"
    if anchor and anchor not in anchors[page]:
        return f"source {source!r}: page {page} has no anchor #{anchor}"
    return None


def is_page_source(source: str) -> bool:
    return source.split("#")[0].endswith(".md")


def check_code_questions(quiz: Quiz, harness: Path = HARNESS, root: Path = ROOT) -> None:
    """Run every code question's hidden tests in CPython: the solution passes, the stub fails."""
    jobs = [{"id": q["id"], "stub": q["stub"], "solution": q["solution"], "tests": q["tests"]}
            for q in quiz.questions if q.get("kind") == "code" and isinstance(q.get("id"), str)
            and isinstance(q.get("tests"), list) and isinstance(q.get("solution"), str) and isinstance(q.get("stub"), str)]
    if not jobs:
        return
    program = harness.read_text(encoding="utf-8") + (
        "\nimport json, sys\n"
        "out = {}\n"
        "for job in json.load(sys.stdin):\n"
        "    out[job['id']] = [grade(job['solution'], job['tests']), grade(job['stub'], job['tests'])]\n"
        "print(json.dumps(out))\n")
    try:
        done = subprocess.run([sys.executable, "-c", program], input=json.dumps(jobs), capture_output=True,
                              text=True, timeout=60, cwd=root, env={"PYTHONPATH": str(root), "PATH": ""})
        results = json.loads(done.stdout.strip().splitlines()[-1])
    except (subprocess.TimeoutExpired, ValueError, IndexError) as e:
        quiz.errors.append(QuizError(quiz.path, 1, None, f"code questions could not be checked: {e}"))
        return
    for q in quiz.questions:
        if q.get("id") in results:
            solution, stub = results[q["id"]]
            if not solution["ok"]:
                quiz.errors.append(QuizError(quiz.path, q.key_lines.get("solution", q.line), q["id"],
                                             f"the solution fails its hidden tests: {solution['message']}"))
            if stub["ok"]:
                quiz.errors.append(QuizError(quiz.path, q.key_lines.get("stub", q.line), q["id"],
                                             "the stub already passes the hidden tests"))


def load_all(quiz_dir: Path = QUIZ_DIR, root: Path = ROOT, run_code: bool = True) -> tuple[dict[str, Quiz], list[QuizError]]:
    """Every quiz file, checked (ids unique across files, code sources exist, code questions graded)."""
    quizzes, errors, owner = {}, [], {}
    for path in sorted(quiz_dir.glob("*.yml")) + sorted(quiz_dir.glob("*.yaml")):
        quiz = load_quiz(path, root)
        for q in quiz.questions:
            qid = q.get("id")
            if isinstance(qid, str) and ID_RE.match(qid):
                if qid in owner:
                    quiz.errors.append(QuizError(quiz.path, q.key_lines["id"], qid,
                                                 f"duplicate id (first used at {owner[qid]})"))
                else:
                    owner[qid] = f"{quiz.path}:{q.key_lines['id']}"
            source = q.get("source")
            if isinstance(source, str) and source.strip() and not is_page_source(source):
                problem = code_source_problem(source, root)
                if problem:
                    quiz.errors.append(QuizError(quiz.path, q.key_lines["source"], qid, problem))
        if run_code and not quiz.errors:
            check_code_questions(quiz, HARNESS, root)
        quizzes[quiz.topic] = quiz
        errors += quiz.errors
    return quizzes, errors


def check_page_sources(quizzes: dict[str, Quiz], anchors: dict[str, set[str]]) -> list[QuizError]:
    errors = []
    for quiz in quizzes.values():
        for q in quiz.questions:
            source = q.get("source")
            if isinstance(source, str) and is_page_source(source):
                problem = page_source_problem(source, anchors)
                if problem:
                    errors.append(QuizError(quiz.path, q.key_lines["source"], q.get("id"), problem))
    return errors


def teaches_target(teaches: str, quiz_page: str | None) -> tuple[str | None, str]:
    """(page src, anchor) a question's `teaches` names: '#x' is on the quiz's own page."""
    page, _, anchor = teaches.strip().partition("#")
    return (page or quiz_page), anchor


def check_teaches(quizzes: dict[str, Quiz], headings: dict[str, dict[str, str]]) -> list[QuizError]:
    """Every question's `teaches` names a real heading id of a built page (headings: page -> {id: title})."""
    errors = []
    for quiz in quizzes.values():
        for q in quiz.questions:
            teaches = q.get("teaches")
            if not isinstance(teaches, str) or not TEACHES_RE.match(teaches.strip()):
                continue                              # load_quiz reported it
            page, anchor = teaches_target(teaches, quiz.page)
            line = q.key_lines.get("teaches", q.line)
            if page is None:
                problem = f"teaches {teaches!r}: the quiz is shown on no page, so '#{anchor}' names no heading"
            elif page not in headings:
                problem = f"teaches {teaches!r}: page {page} does not exist in the site"
            elif anchor not in headings[page]:
                known = ", ".join(f"#{a}" for a in list(headings[page])[:12]) or "none"
                problem = f"teaches {teaches!r}: {page} has no heading with id '{anchor}' (its headings: {known})"
            else:
                continue
            errors.append(QuizError(quiz.path, line, q.get("id"), problem))
    return errors
