"""hooks/quiz.py and hooks/quiz_files.py: every quiz file is valid; a broken one fails the build naming file, line and id.

Each bad-input test writes one small quiz file, loads it with the hook's own loader and checks
the message `<file>:<line> [<id>] ...`. Two tests run a real `mkdocs build` on a tiny site to show
the build itself stops (LLLM_QUIZ_DIR points the hook at the broken folder).
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path


ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from hooks import quiz as hook  # noqa: E402
from hooks import quiz_files  # noqa: E402

GOOD_CHOICE = """\
  - id: {id}
    kind: single
    prompt: What does a predictor return?
    source: lllm/predictors/contract.py:contract
    choices:
      - text: The completion only
        correct: true
        why: That is the contract.
      - text: The prompt and the completion
        why: That was the old echo bug.
    teaches: "#start"
"""


def errors_for(tmp_path: Path, text: str, name: str = "topic.yml") -> list[str]:
    folder = tmp_path / "quizzes"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(textwrap.dedent(text), encoding="utf-8")
    _, errors = quiz_files.load_all(folder)
    return [str(e) for e in errors]


def only_error(tmp_path, text, name="topic.yml") -> str:
    errors = errors_for(tmp_path, text, name)
    assert len(errors) == 1, errors
    return errors[0]


# ---- the real quiz files ---------------------------------------------------------------------------

def test_every_quiz_file_is_valid_and_has_five_questions():
    quizzes, errors = quiz_files.load_all()
    assert [str(e) for e in errors] == []
    assert len(quizzes) >= 6
    for quiz in quizzes.values():
        assert len(quiz.questions) >= 5, f"{quiz.path} has {len(quiz.questions)} questions"


def test_the_seed_quizzes_exist():
    quizzes, _ = quiz_files.load_all()
    titles = {q.title for q in quizzes.values()}
    assert "Test your understanding of the Predictor seam" in titles
    assert "Why we refuse to bloat the base prototype" in titles


def test_every_kind_is_used_and_code_attempts_exist():
    quizzes, _ = quiz_files.load_all()
    kinds = [q["kind"] for quiz in quizzes.values() for q in quiz.questions]
    assert set(kinds) == quiz_files.KINDS
    assert kinds.count("code") >= 5


CONCEPT_PAGES = ["architecture.md", "tinyllm/data.md", "tinyllm/training.md", "tinyllm/generation.md",
                 "tinyllm/onnx.md", "agents/react.md", "agents/memory.md", "agents/lab.md",
                 "agents/evaluator.md", "agents/brains.md", "native/prompt.md", "native/dialog.md",
                 "native/agent.md", "native/tactic.md", "native/tools.md", "agents/debate.md",
                 "reasoning/index.md", "native/proxies.md",
                 "native/configuration.md", "agents/factory.md",
                 "agents/agent-model.md", "agents/human-in-loop.md", "agents/typed-workflow.md"]


def placed_quizzes() -> dict[str, str]:
    """topic -> the page (under site/) whose marker shows it."""
    placed = {}
    for page in (ROOT / "site").rglob("*.md"):
        for topic in hook.MARKER_RE.findall(page.read_text(encoding="utf-8")):
            placed[topic] = page.relative_to(ROOT / "site").as_posix()
    return placed


def test_every_concept_page_has_a_quiz():
    pages = set(placed_quizzes().values())
    assert [p for p in CONCEPT_PAGES if p not in pages] == []
    assert {"architecture.md"} <= pages and len(pages) >= len(CONCEPT_PAGES)


def test_every_quiz_is_placed_on_a_page():
    quizzes, _ = quiz_files.load_all()
    placed = placed_quizzes()
    assert set(quizzes) <= set(placed), f"quizzes on no page: {sorted(set(quizzes) - set(placed))}"


# ---- bad input: each names file, line and id ---------------------------------------------------------

def test_good_file_has_no_errors(tmp_path):
    assert errors_for(tmp_path, "title: T\nquestions:\n" + GOOD_CHOICE.format(id="q-one")) == []


def test_yaml_syntax_error(tmp_path):
    message = only_error(tmp_path, "title: T\nquestions:\n  - id: q-one\n    prompt: [unclosed\n")
    assert re.search(r"topic\.yml:\d+ \[no id\] YAML syntax error", message), message


def test_missing_id(tmp_path):
    text = "title: T\nquestions:\n" + GOOD_CHOICE.format(id="x").replace("  - id: x\n    kind", "  - kind")
    assert only_error(tmp_path, text).endswith("topic.yml:3 [no id] missing 'id'")


def test_duplicate_id_across_files(tmp_path):
    errors_for(tmp_path, "title: A\nquestions:\n" + GOOD_CHOICE.format(id="q-same"), "a.yml")
    errors = errors_for(tmp_path, "title: B\nquestions:\n" + GOOD_CHOICE.format(id="q-same"), "b.yml")
    assert len(errors) == 1 and "b.yml:3 [q-same] duplicate id (first used at" in errors[0], errors
    assert "a.yml:3" in errors[0]


def test_unknown_kind(tmp_path):
    text = "title: T\nquestions:\n" + GOOD_CHOICE.format(id="q-kind").replace("kind: single", "kind: essay")
    assert "topic.yml:4 [q-kind] unknown kind 'essay'" in only_error(tmp_path, text)


def test_single_choice_with_two_correct_answers(tmp_path):
    text = "title: T\nquestions:\n" + GOOD_CHOICE.format(id="q-two").replace(
        "echo bug.\n", "echo bug.\n        correct: true\n")
    message = only_error(tmp_path, text)
    assert "topic.yml:8 [q-two] a single-choice question needs exactly one correct answer" in message
    assert "found 2" in message


def test_answer_not_among_choices(tmp_path):
    text = "title: T\nquestions:\n" + GOOD_CHOICE.format(id="q-none").replace("        correct: true\n", "")
    assert "topic.yml:8 [q-none] a single-choice question needs exactly one correct answer among its choices, found 0" \
        in only_error(tmp_path, text)


def test_missing_explanation_of_a_choice(tmp_path):
    text = "title: T\nquestions:\n" + GOOD_CHOICE.format(id="q-why").replace("        why: That was the old echo bug.\n", "")
    assert "topic.yml:11 [q-why] choice 'The prompt and the completion' has no explanation ('why')" in only_error(tmp_path, text)


def test_missing_explanation_of_a_short_answer(tmp_path):
    text = """\
    title: T
    questions:
      - id: q-short
        kind: short
        prompt: How many?
        source: lllm/predictors/contract.py
        teaches: "#start"
        answers: ["0"]
    """
    assert only_error(tmp_path, text).endswith("topic.yml:3 [q-short] missing 'explanation'")


def test_an_unquoted_yes_is_caught(tmp_path):
    text = """\
    title: T
    questions:
      - id: q-yes
        kind: short
        prompt: Does it?
        source: lllm/predictors/contract.py
        answers: [yes]
        explanation: It does.
        teaches: "#start"
    """
    assert "topic.yml:7 [q-yes] an answer was read as true/false" in only_error(tmp_path, text)


def test_code_source_section_not_found(tmp_path):
    text = "title: T\nquestions:\n" + GOOD_CHOICE.format(id="q-src").replace(
        "lllm/predictors/contract.py:contract", "lllm/predictors/contract.py:no-such-section")
    message = only_error(tmp_path, text)
    assert "topic.yml:6 [q-src] source 'lllm/predictors/contract.py:no-such-section'" in message
    assert "has no section 'no-such-section'" in message


def test_code_source_file_not_found(tmp_path):
    text = "title: T\nquestions:\n" + GOOD_CHOICE.format(id="q-file").replace(
        "lllm/predictors/contract.py:contract", "lllm/nope.py:contract")
    assert "topic.yml:6 [q-file] source 'lllm/nope.py:contract': file lllm/nope.py does not exist" in only_error(tmp_path, text)


def test_source_may_name_a_def_or_class():
    assert quiz_files.code_source_problem("lllm/predictors/contract.py:ScriptedPredictor") is None
    assert quiz_files.code_source_problem("lllm/model/sampling.py:Mulberry32.next_u32") is None
    assert quiz_files.code_source_problem("export/data.py:vocab") is None          # a snippet section


def test_page_anchor_sources_are_checked():
    anchors = {"tinyllm/generation.md": {"the-loop", "sampling-strategies"}}
    assert quiz_files.page_source_problem("tinyllm/generation.md#the-loop", anchors) is None
    assert "has no anchor #temperature" in quiz_files.page_source_problem("tinyllm/generation.md#temperature", anchors)
    assert "page nope.md does not exist" in quiz_files.page_source_problem("nope.md#x", anchors)


def test_unknown_field_is_a_typo(tmp_path):
    text = "title: T\nquestions:\n" + GOOD_CHOICE.format(id="q-typo").replace("    source:", "    sorce: x\n    source:")
    assert "topic.yml:6 [q-typo] unknown field 'sorce' for a single question" in only_error(tmp_path, text)


def test_code_question_solution_must_pass_and_stub_must_fail(tmp_path):
    text = """\
    title: T
    questions:
      - id: q-code
        kind: code
        prompt: Write double(x).
        source: lllm/predictors/contract.py
        stub: |
          def double(x):
              return x * 2
        solution: |
          def double(x):
              return x + 2
        tests:
          - assert double(3) == 6, "double(3) should be 6"
        remarks: Multiply.
        teaches: "#start"
    """
    errors = errors_for(tmp_path, text)
    assert "topic.yml:10 [q-code] the solution fails its hidden tests: Test 1 of 1 failed: double(3) should be 6" in errors[0]
    assert "topic.yml:7 [q-code] the stub already passes the hidden tests" in errors[1]


def test_short_answers_are_normalised():
    assert quiz_files.normalise("  From_ONNX.  ") == "from_onnx"
    assert quiz_files.normalise("'Zero'!") == "zero"
    assert quiz_files.normalise("two   words") == "two words"


# ---- the build itself ----------------------------------------------------------------------------------

def mini_build(tmp_path: Path, quiz_text: str, page_text: str = "# Home\n\n## Start\n\n<!-- quiz: topic -->\n"):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text(page_text, encoding="utf-8")
    quizzes = tmp_path / "quizzes"
    quizzes.mkdir()
    (quizzes / "topic.yml").write_text(textwrap.dedent(quiz_text), encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(textwrap.dedent(f"""\
        site_name: Mini
        docs_dir: docs
        site_dir: out
        theme: {{name: material, font: false}}
        hooks: [{ROOT / 'hooks' / 'quiz.py'}]
        markdown_extensions: [attr_list, md_in_html, toc]
        """), encoding="utf-8")
    env = {**os.environ, "LLLM_QUIZ_DIR": str(quizzes), "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)


def test_build_fails_on_an_invalid_quiz(tmp_path):
    text = "title: T\nquestions:\n" + GOOD_CHOICE.format(id="q-bad").replace("kind: single", "kind: essay")
    result = mini_build(tmp_path, text)
    assert result.returncode != 0
    assert "topic.yml:4 [q-bad] unknown kind 'essay'" in result.stdout + result.stderr


def test_build_fails_on_a_missing_page_anchor(tmp_path):
    text = "title: T\nquestions:\n" + GOOD_CHOICE.format(id="q-anchor").replace(
        "lllm/predictors/contract.py:contract", "index.md#nowhere")
    result = mini_build(tmp_path, text)
    assert result.returncode != 0
    assert "topic.yml:6 [q-anchor] source 'index.md#nowhere': page index.md has no anchor #nowhere" in result.stdout + result.stderr


def test_build_embeds_the_quiz_encoded_and_out_of_search(tmp_path):
    text = "title: T\nquestions:\n" + GOOD_CHOICE.format(id="q-ok").replace(
        "lllm/predictors/contract.py:contract", "index.md#start")
    result = mini_build(tmp_path, text)
    assert result.returncode == 0, result.stdout + result.stderr
    html = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    index = (tmp_path / "out" / "search" / "search_index.json").read_text(encoding="utf-8")
    for secret in ("That was the old echo bug", "That is the contract"):
        assert secret not in html and secret not in index
    blob = re.search(r'data-quiz-blob="([^"]+)"', html).group(1)
    quiz = json.loads(base64.b64decode(blob))
    choices = {c["key"]: c for c in quiz["questions"][0]["choices"]}     # by key: the order is hashed
    assert choices[1]["why"] == "That was the old echo bug." and choices[0]["correct"] is True
    assert quiz["questions"][0]["source"] == {"label": "Home, start", "url": "./#start", "path": "index.md#start"}


def test_a_code_source_is_named_in_words_and_linked_to_its_api_reference():
    from hooks.quiz import source_view
    pages = {"api/model.md": "api/model/", "agents/react.md": "agents/react/"}
    assert source_view("lllm/model/sampling.py:sampler", "agents/react/", pages) == {
        "label": "the sampler in sampling.py", "url": "../../api/model/#lllm.model.sampling",
        "path": "lllm/model/sampling.py:sampler"}
    assert source_view("export/data.py:dataset", "agents/react/", pages) == {      # export/ has no API page
        "label": "the dataset in data.py", "url": None, "path": "export/data.py:dataset"}
    assert source_view("lllm/labs/human_in_loop.py", "agents/react/", pages)["label"] == "human_in_loop.py"


def test_marker_naming_an_unknown_quiz_fails_the_build(tmp_path):
    result = mini_build(tmp_path, "title: T\nquestions:\n" + GOOD_CHOICE.format(id="q-x"),
                        "# Home\n\ntext\n\n<!-- quiz: nosuch -->\n")
    assert result.returncode != 0
    assert "docs/index.md:5 [no id] no quiz named 'nosuch'" in result.stdout + result.stderr


# ---- where a question is taught: `teaches` ------------------------------------------------------------

def test_every_question_names_the_section_that_teaches_it():
    quizzes, errors = quiz_files.load_all(run_code=False)
    assert not errors
    missing = [q["id"] for quiz in quizzes.values() for q in quiz.questions if not q.get("teaches")]
    assert not missing


def test_a_question_without_teaches_is_an_error(tmp_path):
    text = "title: T\nquestions:\n" + GOOD_CHOICE.format(id="q-untaught").replace('    teaches: "#start"\n', "")
    assert only_error(tmp_path, text).endswith("topic.yml:3 [q-untaught] missing 'teaches'")


def test_teaches_must_name_a_heading(tmp_path):
    text = "title: T\nquestions:\n" + GOOD_CHOICE.format(id="q-where").replace('"#start"', '"the start"')
    assert only_error(tmp_path, text).endswith(
        "topic.yml:13 [q-where] teaches 'the start' must name a heading: '#anchor' (on the quiz's own page) "
        "or 'page.md#anchor' (on another page)")


def test_build_fails_on_a_teaches_anchor_that_is_no_heading(tmp_path):
    text = "title: T\nquestions:\n" + GOOD_CHOICE.format(id="q-lost").replace('"#start"', '"#the-parsers"')
    result = mini_build(tmp_path, text)
    assert result.returncode != 0
    assert ("topic.yml:13 [q-lost] teaches '#the-parsers': index.md has no heading with id 'the-parsers' "
            "(its headings: #home, #start") in result.stdout + result.stderr


def test_build_fails_on_a_teaches_page_that_does_not_exist(tmp_path):
    text = "title: T\nquestions:\n" + GOOD_CHOICE.format(id="q-away").replace('"#start"', '"nowhere.md#start"')
    result = mini_build(tmp_path, text)
    assert result.returncode != 0
    assert "topic.yml:13 [q-away] teaches 'nowhere.md#start': page nowhere.md does not exist in the site" in result.stdout + result.stderr


def test_build_links_each_question_to_its_section_by_the_headings_words(tmp_path):
    page = "# Home\n\n## Start *here*, `now`\n\nText.\n\n## The quiz part\n\n<!-- quiz: topic -->\n"
    text = "title: T\nquestions:\n" + GOOD_CHOICE.format(id="q-read").replace('"#start"', '"#start-here-now"')
    result = mini_build(tmp_path, text, page)
    assert result.returncode == 0, result.stdout + result.stderr
    html = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert "@lllm-quiz-blob" not in html
    quiz = json.loads(base64.b64decode(re.search(r'data-quiz-blob="([^"]+)"', html).group(1)))
    assert quiz["questions"][0]["teaches"] == {"page": "index.md", "anchor": "start-here-now",
                                                "url": "./#start-here-now", "label": "Start here, now"}
