"""run_python in the page is confined by an opaque-origin frame: hostile code, in Chromium, Firefox and WebKit.

One visit per engine runs tests/support/sandbox_scenario.js on the proxies page: code given to
run_python (with `js` and `pyodide` allowed, so the frame alone stands in its way) tries the
learner's progress, the caches, IndexedDB, the page's Python, the document, the parent, the origin
and stray messages; then a loop with no line events that only Stop ends. The same attacks in the
page's own Python (the in-process interpreter, the control) do reach the caches, IndexedDB, the
origin and the page's Python, so these tests can fail.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support import engines

pytestmark = pytest.mark.browser
SCENARIO = Path(__file__).resolve().parents[1] / "support" / "sandbox_scenario.js"
REFUSED_AT_ONCE = ["localStorage", "document", "parent", "pagePython", "lllm"]
REFUSED_LATER = {"caches": "lllm-", "indexedDB": "opened", "fetch": "fetched"}   # "lllm-": sw.js's cache names


@pytest.fixture(scope="module", params=["chromium", "firefox", "webkit"])
def report(request, site_server):
    """The scenario's report in one engine (one browser launch per engine for this file)."""
    url = site_server.url + "native/proxies/"
    if request.param == "chromium":
        run = engines.chromium(request.getfixturevalue("browser"), url, {}, SCENARIO)
    else:
        run = getattr(engines, request.param)(url, {}, SCENARIO)
    assert not run["report"]["errors"], run["report"]["errors"]
    return {**run["report"], "console": run["console"]}     # WebKit: what engines.CONSOLE_BUFFER records


def test_run_python_runs_in_the_frame_and_the_console_stays_clean(report):
    assert report["isolated"]["interpreter"] == "FrameInterpreter opaque-origin frame"
    assert report["control"]["interpreter"] == "InProcessInterpreter pyodide"
    # the one error allowed: the fetch attack refused by the CSP (Firefox logs it)
    assert [line for line in report["console"] if "connect-src" not in line or "runtime.json" not in line] == []


@pytest.mark.parametrize("attack", REFUSED_AT_ONCE)
def test_reaching_the_page_fails_with_a_clear_error(report, attack):
    assert report["isolated"][attack].startswith("refused: "), report["isolated"][attack]


@pytest.mark.parametrize("attack", sorted(REFUSED_LATER))
def test_storage_and_the_origin_refuse_the_frame(report, attack):
    said = report["isolated"][attack]
    if attack == "caches" and "refused" not in said:
        # WebKit gives the frame's data: worker a Cache Storage of its own opaque origin: empty, not the site's
        assert said == "['reached caches []', 'opened']", said
    else:
        assert "refused" in said and REFUSED_LATER[attack] not in said, said


@pytest.mark.parametrize("attack", sorted(REFUSED_LATER) + ["pagePython", "lllm"])
def test_the_same_code_in_the_pages_own_python_reaches_them(report, attack):
    said = report["control"][attack]
    assert "refused" not in said and ("reached" in said or REFUSED_LATER.get(attack, "reached") in said), said


def test_progress_caches_and_databases_are_unchanged_and_no_message_reached_the_page(report):
    assert report["after"] == {"progress": True, "caches": True, "databases": True, "windowMessages": []}
    assert report["isolated"]["postMessage"] == "sent"
    assert report["isolated"]["after"] == "4.5"      # stray messages did not confuse the bridge


def test_stop_ends_a_loop_the_step_budget_cannot_and_the_frame_comes_back(report):
    stop = report["stop"]
    assert stop["framesBefore"] == 1 and stop["framesAfter"] == 0
    assert stop["result"].startswith("RAISED Stopped"), stop["result"]
    assert stop["again"] == "4.5"


def test_the_ordinary_case(report):
    ordinary = report["ordinary"]
    assert ordinary["interpreter"] == "FrameInterpreter opaque-origin frame"
    assert (ordinary["callApi"], ordinary["persists"], ordinary["allowedImport"]) == ("4.5", "5.5", "4.0")
    assert ordinary["forbiddenImport"].startswith("Error: ImportError: run_python may not import 'js'")
    assert ordinary["steps"] == "Error: BudgetExceeded: stopped after 100000 steps"
    assert ordinary["cut"] == "2036 characters, ending xxxx\n... (output cut at 2000 characters)"
