"""Code questions check what they ask: for each stated requirement a plausible wrong solution that
skips just that requirement fails the hidden checks (site/assets/quiz/harness.py), at the check
written for it, while passing all the others. Every code question has a hint ladder.

The requirements below are those the hidden checks once let through (an attempt at gen-pick-code
without its fallback `return order[-1]` passed all four); the reference solutions and stubs
are graded by hooks/quiz_files.py at every build (tests/site/test_quiz_validate.py).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from hooks import quiz_files  # noqa: E402

spec = importlib.util.spec_from_file_location("quiz_harness", quiz_files.HARNESS)
harness = importlib.util.module_from_spec(spec)
spec.loader.exec_module(harness)

# (question id, the requirement, a solution that skips it, the start of the check's message)
SKIPS = [
    ("gen-pick-code", "the last id when the walk runs past the end", """
def pick(order, probs, u):
    target = u * sum(probs)
    acc = 0.0
    for i, p in zip(order, probs):
        acc += p
        if acc > target:
            return i
""", "when the walk ends without acc > target"),
    ("agent-model-masked-code", "never dividing by less than 1", """
def weighted_mean(losses, weights):
    total = sum(weights)
    return sum(l * w for l, w in zip(losses, weights)) / total if total else 0.0
""", "weights that sum to less than 1"),
    ("brains-word-code", "only the words, with their spaces, change", """
def words_to_symbols(goal):
    for word, symbol in [("times", "*"), ("plus", "+"), ("minus", "-"), ("divided by", "/")]:
        goal = goal.replace(word, symbol)
    return goal
""", "only the word ' times ' changes"),
    ("data-encode-code", "a dictionary built once, not vocab.index per character", """
def encode(text, vocab):
    unknown = [ch for ch in text if ch not in vocab]
    if unknown:
        raise ValueError(f"characters not in the vocabulary: {unknown!r}")
    return [vocab.index(ch) for ch in text]
""", "build a dict of ids once"),
    ("debate-verdict-code", "a name not in `names` raises", """
import re

def parse_scores(text, names):
    scores = {}
    for line in text.splitlines():
        if not line.startswith("SCORE"):
            continue
        found = re.fullmatch(r"SCORE\\s+([^\\s:]+)\\s*:\\s*(\\d{1,2})\\s*/\\s*10(\\s.*)?", line)
        if not found or found.group(1) in scores:
            raise ValueError(line)
        scores[found.group(1)] = int(found.group(2))
    if any(n not in scores for n in names):
        raise ValueError("a name has no line")
    return scores
""", "agent-7 is not among the names"),
    ("factory-verify-code", "numbers closer than 1e-9 agree", """
def same_answer(answer, expected):
    try:
        return float(answer) == float(expected)
    except ValueError:
        return answer.strip() == expected.strip()
""", "numbers closer than 1e-9"),
    ("config-merge-code", "the override is not modified", """
def merge(base, override):
    for key, value in base.items():
        if key not in override:
            override[key] = value
        elif isinstance(value, dict) and isinstance(override[key], dict):
            merge(value, override[key])
    return override
""", "the override must not be modified"),
    ("dialog-fork-code", "a missing last_n counts as 0", """
def keep(count, first_k=None, last_n=None):
    if first_k is None and last_n is None:
        return list(range(count))
    head = range(min(first_k or 0, count))
    tail = range(max(count - (count if last_n is None else last_n), 0), count)
    return sorted(set(head) | set(tail))
""", "a missing last_n counts as 0"),
    ("tactic-draft-review-code", "a reply accepts only when it starts with OK", """
def draft_and_review(task, writer, reviewer, rounds=2):
    draft, calls = writer(f"Write: {task}"), 1
    for _ in range(rounds):
        verdict = reviewer(f"Review this draft of {task!r}:\\n{draft}")
        calls += 1
        if "OK" in verdict:
            break
        draft = writer(f"Rewrite: {task}\\nDraft: {draft}\\nCritique: {verdict}")
        calls += 1
    return {"draft": draft, "calls": calls}
""", "a reply that does not start with OK"),
    ("native-tool-check-code", "required names are checked before unknown ones", """
def check(arguments, properties, required):
    for name, value in arguments.items():
        if name not in properties:
            return f"unknown argument {name!r}"
    for name in required:
        if name not in arguments:
            return f"missing required argument {name!r}"
    for name, value in arguments.items():
        expected = properties[name]["type"]
        types = {"string": str, "integer": int, "boolean": bool}
        if not isinstance(value, types[expected]) or (expected != "boolean" and isinstance(value, bool)):
            return f"argument {name!r}: expected {expected}"
    return None
""", "required names are checked before unknown ones"),
    ("native-tool-check-code", "strings and booleans are type-checked too", """
def check(arguments, properties, required):
    for name in required:
        if name not in arguments:
            return f"missing required argument {name!r}"
    for name, value in arguments.items():
        if name not in properties:
            return f"unknown argument {name!r}"
        if properties[name]["type"] == "integer" and (not isinstance(value, int) or isinstance(value, bool)):
            return f"argument {name!r}: expected integer"
    return None
""", "a number is not a string"),
    ("react-parse-action-code", "a name starts with a letter or _", """
import re

def parse_action(text):
    match = re.search(r"Action:[ \\t]*(\\w+)[ \\t]*\\[([^\\]\\n]*)\\]", text)
    return (match.group(1), match.group(2).strip()) if match else None
""", "a name starts with a letter or _"),
    ("react-parse-action-code", "the arguments end at the first ]", """
import re

def parse_action(text):
    match = re.search(r"Action:[ \\t]*([A-Za-z_][\\w-]*)[ \\t]*\\[(.*)\\]", text)
    return (match.group(1), match.group(2).strip()) if match else None
""", "the arguments end at the first ]"),
    ("typed-transition-code", "after an action only its observation", """
NEXT = {"goal": {"thought", "action", "final", "error"}, "thought": {"action", "final", "error"},
        "action": {"observation", "final"}, "observation": {"thought", "action", "final", "error"},
        "error": {"thought", "action", "final", "error"}, "final": set()}

def legal(kinds):
    return bool(kinds) and kinds[0] == "goal" and all(b in NEXT[a] for a, b in zip(kinds, kinds[1:]))
""", "after an action comes its observation"),
]

# toolcalls-parse-code: the reference parser, and each wrong one a single change of it
TO_TOOL_CALL = """
import re

ACTION_RE = re.compile(r"Action:[ \\t]*([A-Za-z_][\\w-]*)[ \\t]*\\[([^\\]\\n]*)\\]")

def to_tool_call(reply, tools):
    text = reply.split("Observation:")[0]
    action = ACTION_RE.search(text)
    final = text.find("Final Answer:")
    if action is None or 0 <= final < action.start():
        return None
    name, argument = action.group(1), action.group(2).strip()
    if name not in tools or not argument:
        return None
    return {"name": name, "arguments": {tools[name]: argument}}
"""


def _parser_without(old: str, new: str) -> str:
    assert old in TO_TOOL_CALL, old
    return TO_TOOL_CALL.replace(old, new)


SKIPS += [("toolcalls-parse-code", requirement, _parser_without(old, new), message) for requirement, old, new, message in [
    ("the argument stripped", "name, argument = action.group(1), action.group(2).strip()\n    if name not in tools or not argument:",
     "name, argument = action.group(1), action.group(2)\n    if name not in tools or not argument.strip():", "strip the spaces around the argument"),
    ("a Final Answer before the action is no call", "if action is None or 0 <= final < action.start():", "if action is None:",
     "a Final Answer before the action"),
    ("a model-written Observation is cut off", 'text = reply.split("Observation:")[0]', "text = reply",
     "an action after a model-written Observation"),
    ("a tool not in tools is no call", 'if name not in tools or not argument:\n        return None\n    return {"name": name, "arguments": {tools[name]: argument}}',
     'if not argument:\n        return None\n    return {"name": name, "arguments": {tools.get(name, "input"): argument}}', "a tool that is not in tools"),
    ("an empty argument is no call", "if name not in tools or not argument:", "if name not in tools:", "an empty argument does not fit the schema"),
]]


def code_questions() -> dict[str, dict]:
    quizzes, errors = quiz_files.load_all(run_code=False)
    assert [str(e) for e in errors] == []
    return {q["id"]: q for quiz in quizzes.values() for q in quiz.questions if q["kind"] == "code"}


@pytest.mark.parametrize("qid, requirement, wrong, message", SKIPS, ids=[f"{s[0]}: {s[1]}" for s in SKIPS])
def test_a_solution_that_skips_a_requirement_fails_at_its_check(qid, requirement, wrong, message):
    tests = code_questions()[qid]["tests"]
    result = harness.grade(wrong, tests)
    assert not result["ok"], f"{qid}: a solution without '{requirement}' passes every hidden check"
    failed = result["passed"]                                         # the index of the failing test
    assert message in result["message"], result["message"]
    others = tests[:failed] + tests[failed + 1:]
    assert harness.grade(wrong, others)["ok"], f"{qid}: the wrong solution should fail only at the check for it"


def test_every_code_question_has_a_hint_ladder():
    for qid, q in code_questions().items():
        hints = q.get("hints") or []
        assert 1 <= len(hints) <= q.get("tries", 3) - 1, f"{qid}: {len(hints)} hints"


def test_hints_are_checked(tmp_path):
    folder = tmp_path / "quizzes"
    folder.mkdir()
    base = ("title: T\nquestions:\n  - id: c\n    kind: code\n    prompt: Write f.\n    source: lllm/predictors/contract.py\n"
            "    teaches: '#start'\n    stub: 'def f(): return 0'\n    solution: 'def f(): return 1'\n    tests: ['assert f() == 1, \"f() is 1\"']\n"
            "    remarks: Plain.\n")
    (folder / "t.yml").write_text(base + "    tries: 2\n    hints: [one, two]\n", encoding="utf-8")
    _, errors = quiz_files.load_all(folder, run_code=False)
    assert [str(e) for e in errors] == [f"{folder / 't.yml'}:13 [c] 2 hints but only 2 tries: a hint follows "
                                        "each failed try but the last, so at most 1 can be shown"]
    (folder / "t.yml").write_text(base + "    hints: [one, 3]\n", encoding="utf-8")
    _, errors = quiz_files.load_all(folder, run_code=False)
    assert [str(e) for e in errors] == [f"{folder / 't.yml'}:12 [c] 'hints' must be a list of texts (Markdown), "
                                        "one per failed try"]


# ---- causal attention: each check fails the attempt that skips what it checks --------------------------
# attn-causal-code's last check compares everything with a reference, so an attempt that skips a
# requirement fails there too (except the overflow, which small scores cannot show); each attempt
# must fail first at the check written for its requirement and pass every check but those two.

ATTENTION = """
import math

def attention(Q, K, V):
    d = len(Q[0])
    outputs, weights = [], []
    for i, q in enumerate(Q):
        scores = [sum(a * b for a, b in zip(q, k)) SCALE for k in K]
        SOFTMAX
        weights.append(row)
        outputs.append([sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))])
    return outputs, weights
"""
STABLE = "exps = [math.exp(s - max(scores[:i + 1])) for s in scores[:i + 1]]"
MASKED = f"{STABLE}; row = [e / sum(exps) for e in exps] + [0.0] * (len(K) - i - 1)"


def attempt(scale="/ math.sqrt(d)", softmax=MASKED) -> str:
    return ATTENTION.replace("SCALE", scale).replace("SOFTMAX", softmax)


ATTENTION_SKIPS = [
    ("the causal mask", attempt(softmax="exps = [math.exp(s - max(scores)) for s in scores]; row = [e / sum(exps) for e in exps]"),
     "to the later position 1: mask the future"),
    ("a softmax over the visible positions only",
     attempt(softmax="exps = [math.exp(s - max(scores)) for s in scores]; "
                     "row = [e / sum(exps) if j <= i else 0.0 for j, e in enumerate(exps)]"),
     "add up to 0."),
    ("the 1/sqrt(d) scaling", attempt(scale=""), "divide by sqrt(d)"),
    ("subtracting the largest score before exp",
     attempt(softmax="exps = [math.exp(s) for s in scores[:i + 1]]; row = [e / sum(exps) for e in exps] + [0.0] * (len(K) - i - 1)"),
     "overflow math.exp: subtract each row's largest score first"),
]


@pytest.mark.parametrize("requirement, wrong, message", ATTENTION_SKIPS, ids=[s[0] for s in ATTENTION_SKIPS])
def test_an_attention_without_a_requirement_fails_at_its_check(requirement, wrong, message):
    tests = code_questions()["attn-causal-code"]["tests"]
    assert harness.grade(attempt(), tests)["ok"], "the attempts' common frame must pass when nothing is skipped"
    result = harness.grade(wrong, tests)
    assert not result["ok"], f"an attention without {requirement} passes every hidden check"
    assert message in result["message"], result["message"]
    own, reference = result["passed"], len(tests) - 1
    others = [t for n, t in enumerate(tests) if n not in (own, reference)]
    assert own < reference and harness.grade(wrong, others)["ok"], f"without {requirement}: should fail only at its own check"
