"""Layer 4 · the completion record: `read_record(text)` bounds and checks it, `regrade(record)` grades it anew.

Read `exam.py` first. A record is JSON (`SCHEMA`, `VERSION`) holding what the learner did — their
name, the seed, the site version, the paper's fingerprint, the seconds taken, their answers and
their exercise code — and nothing it claims about itself: no score is read from it. `regrade`
draws the paper again from the seed, checks each answer and runs the exercise's hidden checks in
run_python's sandbox (`make_interpreter`: bubblewrap around a child process in CPython, an
opaque-origin frame in the page), so editing a record to claim a pass gains nothing. A link
carries the same JSON, base64url, after `#record=` (as a time-travel link carries a run).

Every problem with a record is one `RecordError` sentence naming it (the command prints it; the
page shows it); a record that reads but fails says, per item, what did not check.

Usage:

    >>> from lllm.labs.final.exam import SITE_VERSION, paper
    >>> p = paper(3)
    >>> text = json.dumps({"schema": SCHEMA, "version": VERSION, "name": "Ada", "seed": 3, "seconds": 600,
    ...                    "site_version": SITE_VERSION, "fingerprint": p["fingerprint"], "answers": {}, "code": ""})
    >>> read_record(text)["name"]
    'Ada'
    >>> read_record('{"schema": "lllm.final-record", "version": 1}')
    Traceback (most recent call last):
    ...
    lllm.labs.final.record.RecordError: The record has no 'name' field.
    >>> json.loads(from_link(to_link({"a": 1}, "https://x.test/course/final/")))
    {'a': 1}
"""

from __future__ import annotations

import base64
import json
import math
import secrets

from lllm.labs.final.exam import PASS_FRACTION, SEED_MAX, SITE_VERSION, check, paper

__all__ = ["SCHEMA", "VERSION", "MAX_BYTES", "RecordError", "read_record", "regrade", "run_exercise", "to_link",
           "from_link"]

SCHEMA, VERSION = "lllm.final-record", 1
MAX_BYTES = 64_000        # a record is a few kB; anything bigger is refused before it is parsed
MAX_CODE = 4_000          # the sandbox's own limit on code (BUDGET["max_code_chars"])
MAX_SECONDS = 30 * 86_400
FIELDS = {"schema": str, "version": int, "name": str, "seed": int, "site_version": str, "fingerprint": str,
          "seconds": int, "answers": dict, "code": str, "finished": str}
OPTIONAL = {"finished"}


class RecordError(ValueError):
    """A record that cannot be graded: not JSON, too big, a field missing or of the wrong kind."""


# ---- reading: bounds first, then every field -----------------------------------------------------------

def read_record(text: str) -> dict:
    """The record in `text`, checked field by field; RecordError names the first problem."""
    if not isinstance(text, str):
        raise RecordError("A record is text (JSON).")
    if len(text.encode("utf-8", "replace")) > MAX_BYTES:
        raise RecordError(f"The record is larger than {MAX_BYTES} bytes; a final's record is a few kB.")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise RecordError("The record is not JSON: it was cut short or edited by hand.") from None
    if not isinstance(data, dict):
        raise RecordError("The record must be a JSON object with the fields of an lllm.final-record.")
    if data.get("schema") != SCHEMA:
        raise RecordError(f"This is not a course final record: its 'schema' must be {SCHEMA!r}.")
    for key in data:
        if key not in FIELDS:
            raise RecordError(f"The record has a field {str(key)[:40]!r} that no final record has.")
    for key, kind in FIELDS.items():
        if key not in data:
            if key in OPTIONAL:
                continue
            raise RecordError(f"The record has no {key!r} field.")
        if not isinstance(data[key], kind) or isinstance(data[key], bool):
            raise RecordError(f"The record's {key!r} must be {'a whole number' if kind is int else 'a ' + kind.__name__}.")
    if data["version"] != VERSION:
        raise RecordError(f"The record is version {data['version']} of the format; this grader reads version {VERSION}.")
    _check_values(data)
    return data


def _check_values(data: dict) -> None:
    if not 1 <= len(data["name"].strip()) <= 80:
        raise RecordError("The record's 'name' must be 1 to 80 characters.")
    if not 1 <= data["seed"] <= SEED_MAX:
        raise RecordError(f"The record's 'seed' must be from 1 to {SEED_MAX}.")
    if not 0 <= data["seconds"] <= MAX_SECONDS:
        raise RecordError("The record's 'seconds' must be from 0 to 30 days.")
    if len(data["code"]) > MAX_CODE:
        raise RecordError(f"The record's exercise code is {len(data['code'])} characters; at most {MAX_CODE}.")
    if len(data["answers"]) > 40 or any(len(str(k)) > 60 for k in data["answers"]):
        raise RecordError("The record's 'answers' hold more, or longer, question ids than a final has.")
    for value in data["answers"].values():
        ok = (isinstance(value, str) and len(value) <= 200) or (isinstance(value, int) and not isinstance(value, bool)) \
            or (isinstance(value, list) and len(value) <= 10 and all(type(k) is int for k in value))
        if not ok:
            raise RecordError("Each answer in the record must be a choice's number, a list of them, or text of at most 200 characters.")
    for key in ("site_version", "fingerprint", "finished"):
        if len(data.get(key, "")) > 40:
            raise RecordError(f"The record's {key!r} is longer than any this site writes.")


# ---- the exercise, in run_python's sandbox --------------------------------------------------------------

HARNESS = '''
def _grade(src, tests):
    ns = {"__name__": "__final__"}
    try:
        exec(compile(src, "<your code>", "exec"), ns)
    except BaseException as e:
        return {"ok": False, "passed": 0, "message": "Your code raised " + type(e).__name__ + ": " + str(e)[:200]}
    for n, test in enumerate(tests, 1):
        try:
            exec(compile(test, "<check>", "exec"), ns)
        except BaseException as e:
            why = str(e)[:200] if isinstance(e, AssertionError) else type(e).__name__ + ": " + str(e)[:200]
            return {"ok": False, "passed": n - 1, "message": "Check " + str(n) + " of " + str(len(tests)) + " failed: " + why}
    return {"ok": True, "passed": len(tests), "message": "All " + str(len(tests)) + " checks passed."}
'''


def run_exercise(code: str, tests: list[str], interpreter=None) -> dict:
    """{ok, passed, total, message}: `code`, then each hidden check, in a fresh sandboxed interpreter.
    The verdict is the line after a nonce the code cannot know, so what the code prints proves nothing."""
    from lllm.runtimes.native.sandbox import BUDGET, make_interpreter
    nonce = secrets.token_hex(16)
    program = (f"import json\n{HARNESS}\nprint({nonce!r} + json.dumps(_grade({code!r}, {tests!r})))\n")
    python = interpreter or make_interpreter(_no_api, {**BUDGET, "max_code_chars": 64_000, "max_output_chars": 20_000})
    try:
        text = str(python.run(program))
    finally:
        if interpreter is None and hasattr(python, "close"):
            python.close()
    verdict = text.rpartition(nonce)[2] if nonce in text else ""
    try:
        out = json.loads(verdict.strip().splitlines()[0])
    except (ValueError, IndexError):
        out = {"ok": False, "passed": 0, "message": "Your code stopped the sandbox before the checks finished: "
               + (text.strip().splitlines() or ["no output"])[-1][:200]}
    return {**out, "total": len(tests)}


def _no_api(path, params):
    raise LookupError("the final's exercise calls no API")


# ---- grading a record anew ---------------------------------------------------------------------------------

def regrade(record: dict, interpreter=None) -> dict:
    """The record graded now: {passed, right, total, needed, exercise, questions, problems, reread, summary}."""
    p = paper(record["seed"])
    if record["fingerprint"] != p["fingerprint"]:
        why = (f"it was made with site version {record['site_version']}, and this is {SITE_VERSION}, whose final "
               "differs" if record["site_version"] != SITE_VERSION else "its seed or its fingerprint was edited")
        raise RecordError(f"The record's seed {record['seed']} does not give the questions it was sat with: {why}.")
    rows, problems, reread = [], [], {}
    for q in p["questions"]:
        right = check(q, record["answers"].get(q["id"]))
        rows.append({"n": q["n"], "id": q["id"], "unit": q["unit"], "right": right, "teaches": q["teaches"]})
        if not right:
            given = "no answer" if q["id"] not in record["answers"] else "an answer that is not the right one"
            problems.append(f"Question {q['n']} ({q['unit']}) did not check: the record holds {given}.")
            reread.setdefault(q["teaches"]["page"] + "#" + q["teaches"]["anchor"], q["teaches"])
    ex = run_exercise(record["code"], p["exercise"]["tests"], interpreter) | {"unit": p["exercise"]["unit"]}
    if not ex["ok"]:
        problems.append(f"The exercise did not pass its hidden checks: {ex['message']}")
        t = p["exercise"]["teaches"]
        reread.setdefault(t["page"] + "#" + t["anchor"], t)
    right, total = sum(r["right"] for r in rows), len(rows)
    needed = math.ceil(PASS_FRACTION * total)
    passed = right >= needed and ex["ok"]
    summary = (f"{'Passed' if passed else 'Not passed'}: {right} of {total} answers right ({needed} needed), "
               f"the exercise {'passed' if ex['ok'] else 'failed'} {ex['passed']} of {ex['total']} hidden checks.")
    return {"passed": passed, "right": right, "total": total, "needed": needed, "exercise": ex, "questions": rows,
            "problems": problems, "reread": list(reread.values()), "summary": summary,
            "name": record["name"], "seconds": record["seconds"], "seed": record["seed"],
            "site_version": record["site_version"]}


# ---- links ------------------------------------------------------------------------------------------------

def to_link(record: dict, page_url: str) -> str:
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    return page_url.split("#")[0] + "#record=" + base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def from_link(link: str):
    """The record a `...#record=...` link holds, as JSON data (read_record checks it)."""
    _, sep, b64 = link.partition("#record=")
    if not sep:
        raise RecordError("The link holds no record: it must end in #record= followed by the record.")
    if len(b64) > MAX_BYTES * 4 // 3 + 4:
        raise RecordError(f"The link's record is larger than {MAX_BYTES} bytes; a final's record is a few kB.")
    try:
        return base64.urlsafe_b64decode(b64.strip() + "=" * (-len(b64.strip()) % 4)).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        raise RecordError("The link's record could not be read: after #record= it must be base64url-encoded JSON.") from None
