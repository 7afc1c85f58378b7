"""run_python's interpreter in the page is ready before it is asked: Chromium, Firefox and WebKit.

Two visits of one browser profile to the proxies page (tests/support/sandbox_prestart_scenario.js):
on the first nothing is cached, so no frame starts until the page's own Python has, then one starts
cold without a run_python call; on the second a frame restored from its snapshot starts by itself,
before the page's Python, holds none of what code did on the first visit, refuses the same attacks
as a cold frame (tests/browser/test_sandbox_page.py has them all), and comes back by itself after
Stop; a snapshot broken in the cache gives way to a cold start and a new snapshot. The test asserts what happens, not how long it takes: bench/page_sandbox_prestart_bench.py
measures that.
"""

from __future__ import annotations

import pytest

from conftest import ROOT
from support import engines

pytestmark = pytest.mark.browser
SCENARIO = ROOT / "tests" / "support" / "sandbox_prestart_scenario.js"
PAGE = "native/proxies/"


@pytest.fixture(scope="module", params=["chromium", "firefox", "webkit"])
def visits(request, site_server):
    url, then = site_server.url + PAGE, (SCENARIO, None)          # then the link, a second visit: no argument
    if request.param == "chromium":
        out = engines.chromium(request.getfixturevalue("browser"), url, {"visit": 1}, SCENARIO, then=then)
    else:
        out = getattr(engines, request.param)(url, {"visit": 1}, SCENARIO, then=then)
    for report in (out["report"], out["linked"]):
        assert "fatal" not in report, report.get("fatal")
        assert not report["errors"], report["errors"]
    return out


def test_a_first_visit_starts_the_frame_once_python_has_started_and_without_a_call(visits):
    first = visits["report"]
    assert first["framesBeforePython"] == []         # nothing cached: opening the page downloads nothing
    assert first["prestarted"] == ["cold"]
    assert (first["mark"], first["cached"]) == ("left", True)


def test_a_second_visit_restores_the_frame_before_the_pages_python_and_nothing_carried(visits):
    second = visits["linked"]
    assert (second["prestarted"], second["pythonStarted"]) == (["snapshot"], False)
    assert (second["carried"], second["oslo"]) == ("absent", "4.5")


@pytest.mark.parametrize("attack", ["localStorage", "document", "pagePython"])
def test_a_restored_frame_refuses_the_page(visits, attack):
    assert visits["linked"][attack].startswith("refused: "), visits["linked"][attack]


def test_a_restored_frame_cannot_fetch_the_sites_files(visits):
    assert visits["linked"]["fetch"] == "['refused']"


def test_after_stop_a_frame_comes_back_by_itself_and_runs(visits):
    second = visits["linked"]
    assert second["framesAtStop"] == []
    assert second["afterStop"] == ["snapshot"]
    assert (second["again"], second["carriedAfterStop"]) == ("4.5", "absent")


def test_a_snapshot_that_does_not_restore_gives_way_to_a_cold_start_and_a_new_snapshot(visits):
    second = visits["linked"]
    assert (second["broken"], second["afterBroken"], second["replaced"]) == (["cold"], "4.5", True)


def test_the_console_stays_clean(visits):
    # the one error allowed: the fetch attack refused by the CSP (Firefox logs it)
    assert [line for line in visits["console"] if "connect-src" not in line or "runtime.json" not in line] == []
