"""MkDocs hook · Reflect and Attempt: quiz files in quizzes/ become quizzes on the pages.

Read quizzes/README.md (the format) and hooks/quiz_files.py (the checks) first. When the build
starts, every quiz file is checked and an invalid one stops the build with its file, line and
question id (`quizzes/react.yml:41 [react-parse-order] ...`), and so does a file whose right answers
are the longest choice more often than chance allows (hooks/quiz_fairness.py). In a page, a line

    <!-- quiz: predictor -->     the quiz of quizzes/predictor.yml, under a heading with its title
    <!-- quiz-review -->          (site/review.md) every question of the site, for spaced review
    <!-- quiz-progress -->        (site/progress.md) progress per quiz, export and import

becomes a `<div class="lllm-quiz">` whose questions travel as base64-encoded JSON in a data
attribute, inside an element marked `data-search-exclude`: answers and explanations are never
plain text in the page source or in the search index. site/assets/quiz/quiz.mjs decodes them. A
code question's tests are not in the page at all: they are written to assets/quiz/checks/<id>.json,
which questions.mjs fetches only when the learner submits.
Page-anchor sources (`tinyllm/generation.md#the-loop`) are checked once every page is rendered.

LLLM_QUIZ_DIR=<folder> reads the quiz files from another folder (the tests build broken ones).
"""

from __future__ import annotations

import base64
import hashlib
import html as html_lib
import json
import os
import re
import sys
from pathlib import Path

import markdown
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File
from mkdocs.utils import get_relative_url

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from hooks.quiz_files import (  # noqa: E402  (MkDocs loads hook files by path)
    QUIZ_DIR, Quiz, QuizError, check_page_sources, check_teaches, is_page_source, load_all, normalise,
    teaches_target)
from hooks.quiz_fairness import length_cue_errors  # noqa: E402
from hooks.roadmap import api_page  # noqa: E402

MARKER_RE = re.compile(r"^<!--\s*quiz:\s*([A-Za-z0-9_-]+)\s*-->\s*$", re.M)
REVIEW_MARKER, PROGRESS_MARKER = "<!-- quiz-review -->", "<!-- quiz-progress -->"
BLOB_RE = re.compile(r"@lllm-quiz-blob-(\d+)@")   # a blob's place until every page's headings are known
HEADING_RE = re.compile(r"<h([1-6])\b[^>]*?\sid=\"([^\"]+)\"[^>]*>(.*?)</h\1>", re.S)
CHECKS_DIR = "assets/quiz/checks"     # one <question id>.json per code question (questions.mjs fetches it)


def fail(errors: list[QuizError]) -> None:
    if errors:
        raise PluginError("invalid quiz:\n  " + "\n  ".join(str(e) for e in errors))


# ---- what the page receives -------------------------------------------------------------------------

_MD_EXTENSIONS = ["pymdownx.superfences", "pymdownx.highlight", "pymdownx.inlinehilite", "tables", "attr_list"]
_MD_CONFIG = {"pymdownx.highlight": {"pygments_lang_class": True}}


def html(text: str | None, inline: bool = False) -> str | None:
    if text is None:
        return None
    out = markdown.markdown(str(text), extensions=_MD_EXTENSIONS, extension_configs=_MD_CONFIG).strip()
    if inline and out.startswith("<p>") and out.endswith("</p>") and out.count("<p>") == 1:
        out = out[3:-4]
    return out


def source_view(source: str, here: str, pages: dict[str, str]) -> dict:
    """{label, url, path}: what a question is about, in plain words — a page by its title (and the
    section's words), code by its section and file ("the sampler in sampling.py") — linked to the
    page, or to the module's API reference when it has one; `path` is the exact source (the tooltip)."""
    if is_page_source(source):
        page, _, anchor = source.partition("#")
        url = get_relative_url(pages[page], here) if page in pages else None
        label = _state["titles"].get(page, page) + (f", {_words(anchor)}" if anchor else "")
        return {"label": label, "url": (url + ("#" + anchor if anchor else "")) if url else None, "path": source}
    file, _, section = source.partition(":")
    name, module = file.rsplit("/", 1)[-1], file.removesuffix(".py").replace("/", ".")
    api = api_page(module)
    url = get_relative_url(pages[api], here) + "#" + module if api in pages else None
    return {"label": f"the {_words(section)} in {name}" if section else name, "url": url, "path": source}


def _words(name: str) -> str:
    """A section or anchor name as words: "generate-loop" -> "generate loop"."""
    return re.sub(r"[-_]+", " ", name).strip()


def build_order(q: dict) -> list[tuple[int, dict]]:
    """A question's choices with their keys (places in the file), in an order fixed by a hash of the
    question id: authors tend to write the right answer first, and the page's data should not say so.
    The page then shuffles per learner (site/assets/quiz/order.mjs); answers are stored by key."""
    def rank(pair: tuple[int, dict]) -> str:
        return hashlib.sha256(f"{q['id']}:{pair[0]}".encode("utf-8")).hexdigest()
    return sorted(enumerate(q["choices"]), key=rank)


def teaches_view(teaches: str, quiz_page: str | None, here: str, pages: dict[str, str]) -> dict:
    """{page, anchor, url, label}: the section of a page that teaches a question ("Read it again: ...").
    The label (the heading's words) is filled in by on_post_page, once every page is rendered."""
    page, anchor = teaches_target(teaches, quiz_page)
    url = get_relative_url(pages[page], here) + "#" + anchor if page in pages else None
    return {"page": page, "anchor": anchor, "url": url, "label": None}


def question_view(q: dict, here: str, pages: dict[str, str], quiz_page: str | None = None) -> dict:
    kind = q["kind"]
    view = {"id": q["id"], "kind": kind, "prompt": html(q["prompt"]), "source": source_view(q["source"], here, pages),
            "teaches": teaches_view(q["teaches"], quiz_page, here, pages)}
    if kind in ("single", "multiple"):
        view["choices"] = [{"key": i, "html": html(c["text"], inline=True), "correct": bool(c.get("correct")),
                            "why": html(c["why"], inline=True)} for i, c in build_order(q)]
    elif kind == "short":
        view["answers"] = [normalise(a) for a in q["answers"]]
        view["shown"] = str(q["answers"][0])
        view["explanation"] = html(q["explanation"])
        view["misconceptions"] = [{"answer": normalise(m["answer"]), "why": html(m["why"], inline=True)}
                                  for m in q.get("misconceptions") or []]
    elif kind == "reflection":
        view["model_answer"] = html(q["model_answer"])
        view["explanation"] = html(q.get("explanation"))
    elif kind == "code":
        view.update(stub=q["stub"], solution=q["solution"], checks=len(q["tests"]),
                    tries=q.get("tries", 3), remarks=html(q["remarks"]),    # the tests: checks_file()
                    hints=[html(h, inline=True) for h in q.get("hints") or []])
    return view


def checks_file(q: dict) -> tuple[str, str]:
    """(site path, JSON) of a code question's hidden tests: fetched by questions.mjs only when the
    learner submits, so they are in no page's text (nor its blob)."""
    return f"{CHECKS_DIR}/{q['id']}.json", json.dumps({"id": q["id"], "tests": list(q["tests"])}, ensure_ascii=False)


def quiz_view(quiz: Quiz, here: str, pages: dict[str, str]) -> dict:
    page_url = get_relative_url(pages[quiz.page], here) if quiz.page in pages else None
    return {"topic": quiz.topic, "title": quiz.title, "url": page_url,
            "questions": [question_view(q, here, pages, quiz.page) for q in quiz.questions]}


def encode(payload) -> str:
    return base64.b64encode(json.dumps(payload, ensure_ascii=False).encode("utf-8")).decode("ascii")


def label_teaches(payload):
    """Fill in each question's "Read it again" label from the built pages' headings (page -> {id: title})."""
    headings, titles = _state["headings"], _state["titles"]
    for quiz in payload if isinstance(payload, list) else [payload]:
        for q in quiz.get("questions", []) if isinstance(quiz, dict) else []:
            t = q.get("teaches")
            if t and t["label"] is None:
                words = headings.get(t["page"], {}).get(t["anchor"]) or _words(t["anchor"])
                t["label"] = words if t["page"] == _state["quizzes"][quiz["topic"]].page else \
                    f"{words} ({titles.get(t['page'], t['page'])})"
    return payload


def container(mode: str, payload, extra: str = "") -> str:
    """The quiz's element; its blob is written by on_post_page (the sections' titles are known then)."""
    _state["blobs"].append(payload)
    return (f'<div class="lllm-quiz" data-quiz-mode="{mode}" data-quiz-blob="@lllm-quiz-blob-{len(_state["blobs"]) - 1}@"{extra} '
            f'data-search-exclude><p class="lllm-quiz__fallback">This quiz needs JavaScript.</p></div>')


# ---- the MkDocs events ------------------------------------------------------------------------------

_state: dict = {"quizzes": {}, "pages": {}, "titles": {}, "anchors": {}, "headings": {}, "marker_lines": {}, "blobs": []}


def _title(f) -> str:
    """A page's first level-1 heading (what a question's "About:" calls it), else its path."""
    text = Path(f.abs_src_path).read_text(encoding="utf-8") if f.abs_src_path else (f.content_string or "")
    return next((line[2:].strip() for line in text.splitlines() if line.startswith("# ")), f.src_uri)


def on_config(config, **kwargs):
    quizzes, errors = load_all(Path(os.environ.get("LLLM_QUIZ_DIR", QUIZ_DIR)))
    fail(errors)
    fail(length_cue_errors(quizzes))      # right answers must not be the longest choice beyond chance
    _state["quizzes"] = quizzes
    _state["blobs"], _state["headings"], _state["anchors"] = [], {}, {}
    return config


def on_files(files, config, **kwargs):
    """Find which page shows which quiz before any page is rendered (the review page links them all)."""
    quizzes = _state["quizzes"]
    _state["pages"] = {f.src_uri: f.url for f in files.documentation_pages()}
    _state["titles"] = {f.src_uri: _title(f) for f in files.documentation_pages()}
    _state["marker_lines"] = {}
    for quiz in quizzes.values():
        quiz.page = None
    errors = []
    for f in files.documentation_pages():
        text = Path(f.abs_src_path).read_text(encoding="utf-8") if f.abs_src_path else (f.content_string or "")
        where = os.path.relpath(f.abs_src_path) if f.abs_src_path else f.src_uri
        for match in MARKER_RE.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            topic = match.group(1)
            if topic not in quizzes:
                errors.append(QuizError(where, line, None,
                                        f"no quiz named '{topic}' (known: {', '.join(sorted(quizzes))})"))
            elif quizzes[topic].page:
                errors.append(QuizError(where, line, None,
                                        f"quiz '{topic}' is already shown on {quizzes[topic].page}"))
            else:
                quizzes[topic].page = f.src_uri
                _state["marker_lines"][topic] = line
    fail(errors)
    for quiz in quizzes.values():
        for q in quiz.questions:
            if q["kind"] == "code":
                path, content = checks_file(q)
                files.append(File.generated(config, path, content=content))
    return files


def on_nav(nav, config, files, **kwargs):
    """The Review and Progress pages list quizzes in the order their pages appear in the nav."""
    order = {page.file.src_uri: i for i, page in enumerate(nav.pages)}
    lines = _state["marker_lines"]
    ranked = sorted(_state["quizzes"].values(),
                    key=lambda q: (order.get(q.page, len(order)), lines.get(q.topic, 0), q.topic))
    _state["quizzes"] = {quiz.topic: quiz for quiz in ranked}
    return nav


def on_page_markdown(markdown_text, page, config, files, **kwargs):
    quizzes, pages, here = _state["quizzes"], _state["pages"], page.file.url

    def one(match):
        quiz = quizzes[match.group(1)]
        return (f"## {quiz.title} {{ #quiz-{quiz.topic} }}\n\n"
                + container("quiz", quiz_view(quiz, here, pages), f' data-quiz-topic="{quiz.topic}"') + "\n")

    markdown_text = MARKER_RE.sub(one, markdown_text)
    if REVIEW_MARKER in markdown_text or PROGRESS_MARKER in markdown_text:
        everything = [quiz_view(q, here, pages) for q in quizzes.values()]
        markdown_text = markdown_text.replace(REVIEW_MARKER, container("review", everything))
        summary = [{"topic": q["topic"], "title": q["title"], "url": q["url"],
                    "ids": [x["id"] for x in q["questions"]],
                    "code": [x["id"] for x in q["questions"] if x["kind"] == "code"]} for q in everything]
        markdown_text = markdown_text.replace(PROGRESS_MARKER, container("progress", summary))
    return markdown_text


def on_page_content(html_text, page, config, files, **kwargs):
    _state["anchors"][page.file.src_uri] = set(re.findall(r'\sid="([^"]+)"', html_text))
    _state["headings"][page.file.src_uri] = {anchor: _heading_words(inner) for _, anchor, inner in HEADING_RE.findall(html_text)}
    return html_text


def _heading_words(inner: str) -> str:
    """A rendered heading's text: its permalink and tags dropped, entities read."""
    inner = re.sub(r'<a class="headerlink".*?</a>', "", inner, flags=re.S)
    return " ".join(html_lib.unescape(re.sub(r"<[^>]+>", "", inner)).split())


def on_env(env, config, files, **kwargs):
    """Every page is rendered now, so page anchors named as sources can be checked."""
    fail(check_page_sources(_state["quizzes"], _state["anchors"]))
    fail(check_teaches(_state["quizzes"], _state["headings"]))    # every `teaches` names a real heading
    return env


def on_post_page(output, page, config, **kwargs):
    """Write each quiz blob in place, its "Read it again" labels taken from the rendered headings."""
    return BLOB_RE.sub(lambda m: encode(label_teaches(_state["blobs"][int(m.group(1))])), output)
