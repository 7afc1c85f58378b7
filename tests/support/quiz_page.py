"""Answering choice questions in a real page by what a choice says, never by where it is.

The page shows choices in a per-learner order (site/assets/quiz/order.mjs), so "the first input"
means a different choice for every learner. A choice is named by its key (its place in the quiz
file, as stored answers name it) or by its rendered HTML (as the page's data carries it):

    check_keys(form, "predictor-returns", 0)        # the first choice written in the file
    check_html(form, [c["html"] for c in q["choices"] if c["correct"]])
"""

from __future__ import annotations

import html as html_lib
import re
from functools import lru_cache

from hooks import quiz as hook
from hooks import quiz_files


def html_text(html: str) -> str:
    """The text a browser shows for some HTML, spacing collapsed."""
    return " ".join(html_lib.unescape(re.sub(r"<[^>]+>", " ", html)).split())


def shown_texts(form) -> list[str]:
    """The choices of one question's form, in the order this page shows them (once the quiz is drawn:
    its module loads after the page, so right after a reload there may be none yet)."""
    form.locator(".lllm-q__choice label").first.wait_for(state="attached")
    return [" ".join(t.split()) for t in form.locator(".lllm-q__choice label").all_inner_texts()]


@lru_cache(maxsize=None)
def _choices() -> dict[str, list[str]]:
    quizzes, _ = quiz_files.load_all(run_code=False)
    return {q["id"]: [hook.html(c["text"], inline=True) for c in q["choices"]]
            for quiz in quizzes.values() for q in quiz.questions if q.get("kind") in ("single", "multiple")}


def check_html(form, htmls) -> None:
    texts = shown_texts(form)
    for html in htmls:
        form.locator("input").nth(texts.index(html_text(html))).check()


def check_keys(form, qid: str, *keys: int) -> None:
    check_html(form, [_choices()[qid][key] for key in keys])
