"""A learner's first visit, counted as the network serves it (tests/support/first_visit.py): Chromium, a
fresh profile, the ReAct demo on the agent-tuned TinyLLM answering "What is 17 * 23?".

- nothing of the runtime arrives before the reader asks for it (load on intent);
- no file is sent twice, nor asked for again (a revalidation), from the first byte until the
  service worker reports that its background caching has ended (the whole site saved for
  offline use, sw.js's "rest"): what the page fetched before the worker controlled it is taken
  from the browser's HTTP cache;
- the bytes up to the answer (gzip-sized) stay within 2x of a bare loadPyodide() in the same
  browser, measured in this run; and the answer is 391.

bench/engine_bench.py prints the same counts for Chromium, Firefox and WebKit.
"""

from __future__ import annotations

import pytest

from support.first_visit import ANSWER, GOAL, PYODIDE, SCRIPT, CountingServer, floor_gzip, totals
from support.runtime import free_port

pytestmark = pytest.mark.browser
MAX_RATIO = 2.0


@pytest.fixture(scope="module")
def counted(site_build):
    server = CountingServer(site_build.dir, free_port())
    yield server
    server.close()


def visit(browser, url: str, arg: dict) -> dict:
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(url)
        return page.evaluate(SCRIPT.read_text(encoding="utf-8"), arg)
    finally:
        context.close()


@pytest.fixture(scope="module")
def first_visit(browser, counted):
    url = counted.url + "agents/react/"
    bare = visit(browser, url, {"phase": "bare"})
    assert bare["answer"] == "ok", bare
    start = len(counted.log)
    report = visit(browser, url, {"phase": "visit", "goal": GOAL})
    sent = counted.log[start:]
    pyodide = [s for s in counted.between(bare["startAt"] / 1000, bare["endAt"] / 1000) if s.path.startswith(PYODIDE)]
    return {"bare": totals(pyodide, counted.directory),
            "report": report, "sent": sent}


def test_the_agent_answers_on_a_first_visit(first_visit):
    report = first_visit["report"]
    assert report["state"] == "done" and report["answer"] == ANSWER, report
    assert report["savedBeforeIntent"] == "pages", "the service worker never saved the page being read"


def test_no_runtime_byte_arrives_before_the_reader_asks(first_visit, counted):
    before = totals([s for s in first_visit["sent"] if s.at * 1000 < first_visit["report"]["intentAt"]], counted.directory)
    assert before.requests > 0, "the page itself was not counted: the counting is broken"
    assert before.runtime == [], f"runtime files sent before intent: {before.runtime}"


def test_no_file_is_sent_twice_on_a_first_visit(first_visit, counted):
    report = first_visit["report"]
    assert report["rest"] == "done" and report["offlineAll"], f"the rest of the site was not saved for offline use: {report['rest']}"
    whole = totals(first_visit["sent"], counted.directory)
    print(f"whole visit: {whole.requests} requests, {whole.raw / 1e6:.1f} MB raw, {whole.gzip / 1e6:.2f} MB gzip; "
          f"sent twice {len(whole.twice)}, revalidated {len(whole.revalidated)}")
    assert any(p.endswith("pyodide.asm.wasm") for p in whole.runtime), "the runtime was not counted"
    assert any(s.at * 1000 > report["answerAt"] for s in first_visit["sent"]), "nothing after the answer was counted"
    assert whole.twice == [], f"sent more than once on one visit: {whole.twice}"
    # /sw.js is the browser's own check for a new version of its service worker (no-cache, _headers)
    again = [p for p in whole.revalidated if p != "/sw.js"]
    assert again == [], f"asked for again on one visit (answered 304): {again}"


def test_the_first_answer_costs_at_most_twice_a_bare_pyodide(first_visit, counted):
    report, bare = first_visit["report"], first_visit["bare"]
    assert bare.gzip > 5_000_000, f"a bare loadPyodide() counted only {bare.gzip} bytes: the counting is broken"
    answer = totals([s for s in first_visit["sent"] if s.at * 1000 <= report["answerAt"]], counted.directory)
    floor = floor_gzip(counted.directory)
    print(f"first answer: {answer.requests} requests, {answer.raw / 1e6:.1f} MB raw, {answer.gzip / 1e6:.2f} MB gzip; "
          f"bare Pyodide {bare.gzip / 1e6:.2f} MB gzip ({answer.ratio(bare):.2f}x), floor {floor / 1e6:.2f} MB ({answer.ratio(floor):.2f}x)")
    assert answer.gzip >= floor, "fewer bytes than the answer needs: the counting is broken"
    assert answer.ratio(bare) <= MAX_RATIO, f"{answer.gzip} bytes gzip to the first answer: {answer.ratio(bare):.2f}x a bare Pyodide"


def test_a_second_start_restores_python_from_its_snapshot(browser, counted):
    """The first start saves a memory snapshot (worker.mjs); a second document restores it and
    runs Python as a cold start would."""
    context = browser.new_context()
    try:
        first = context.new_page()
        first.goto(counted.url + "playground/")
        assert first.evaluate("async () => { await lllm.ready(); return lllm.status.warm; }") is False
        first.wait_for_function("async () => (await (await caches.open('pyodide-snapshots')).keys()).length === 1", timeout=60_000)
        second = context.new_page()
        second.goto(counted.url + "playground/")
        assert second.evaluate("async () => { await lllm.ready(); return lllm.status.warm; }") is True
        result = second.evaluate("() => lllm.run('import lllm.web.demos, sys; print(sum(range(10)), sys.version_info[:2])')")
        assert result["stdout"] == "45 (3, 14)\n", result
    finally:
        context.close()


def test_a_warm_start_reads_the_runtime_from_the_cache_itself(browser, counted):
    """Once the service worker has saved the runtime, a second document's workers take its files
    straight from that cache (fetching.mjs): the manifest says which cache, and no request for a
    wasm file, the stdlib or the wheel goes out, not even one the service worker would answer."""
    context = browser.new_context()
    try:
        first = context.new_page()
        first.goto(counted.url + "playground/")
        first.evaluate("() => lllm.ready()")
        first.wait_for_function("async () => (await (await caches.open('pyodide-snapshots')).keys()).length === 1", timeout=60_000)
        version = first.evaluate("""async () => {
            const names = (await caches.keys()).filter((n) => n.startsWith('lllm-'));
            const manifest = await (await fetch('/assets/runtime/runtime.json')).json();
            const wanted = ['runtime.json', manifest.wheel, manifest.pyodide + 'pyodide.asm.wasm',
                            manifest.pyodide + 'python_stdlib.zip', manifest.ort + 'ort-wasm-simd-threaded.wasm'];
            const cache = await caches.open(names[0]);
            const missing = [];
            for (const path of wanted) if (!(await cache.match(new URL(path, location.origin + '/assets/runtime/').href))) missing.push(path);
            return {names, missing};
        }""")
        assert len(version["names"]) == 1 and version["missing"] == [], version
        asked = []
        context.on("request", lambda request: asked.append(request.url))
        second = context.new_page()
        headers = {}
        second.on("response", lambda r: headers.setdefault(r.url.split("/")[-1], r.headers) if r.url.endswith("runtime.json") else None)
        second.goto(counted.url + "playground/")
        assert second.evaluate("async () => { await lllm.ready(); return lllm.status.warm; }") is True
        names = [url.split("?")[0].split("/")[-1] for url in asked]
        assert "runtime.json" in names, f"the workers' requests were not seen at all: {names}"
        assert headers.get("runtime.json", {}).get("x-lllm-cache") == version["names"][0], headers
        big = [n for n in names if n.endswith((".wasm", ".zip", ".whl")) or n == "pyodide-lock.json"]
        assert big == [], f"the warm start asked for these instead of reading its cache: {big}"
        result = second.evaluate("() => lllm.run('print(sum(range(10)))')")
        assert result["stdout"] == "45\n", result
    finally:
        context.close()
