"""The code-attempt grader: run the learner's code, then the hidden tests, in a fresh namespace.

One file, two places: quiz.mjs fetches it and runs it in the page's Python (window.lllm.run), and
hooks/quiz.py runs it in CPython at build time to prove every solution passes and every stub fails.

    grade(src, tests) -> {"ok": bool, "passed": int, "total": int, "message": str}

A test is a Python snippet (usually one `assert ..., "what went wrong"`) that sees the names the
learner's code defined. The first failing test stops the run; its message is what the learner sees.
"""

import traceback


def _last_line(error: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(error), error)).strip().splitlines()[-1]


def grade(src: str, tests: list) -> dict:
    namespace = {"__name__": "__quiz__"}
    total = len(tests)
    try:
        code = compile(src, "<your code>", "exec")
    except SyntaxError as e:
        return {"ok": False, "passed": 0, "total": total,
                "message": f"Your code does not parse: {type(e).__name__} on line {e.lineno}: {e.msg}"}
    try:
        exec(code, namespace)
    except BaseException as e:          # the learner's code: every failure is feedback
        return {"ok": False, "passed": 0, "total": total, "message": f"Your code raised {_last_line(e)}"}
    for n, test in enumerate(tests, 1):
        try:
            exec(compile(test, f"<test {n}>", "exec"), namespace)
        except AssertionError as e:
            reason = str(e) or "assertion failed"
            return {"ok": False, "passed": n - 1, "total": total, "message": f"Test {n} of {total} failed: {reason}"}
        except BaseException as e:
            return {"ok": False, "passed": n - 1, "total": total,
                    "message": f"Test {n} of {total} failed: {_last_line(e)}"}
    return {"ok": True, "passed": total, "total": total, "message": f"All {total} tests passed."}
