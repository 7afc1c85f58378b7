"""Unreadable progress and theme entries in Firefox and WebKit (Chromium: test_progress_recovery_browser.py):
each of Home, Course, Progress and a quiz page, opened first with the storage damaged, shows the
notice; "Restore the saved copy" brings the answers back; the dark-mode toggle is still drawn.
One browser launch per engine; the storage is emptied and damaged again before each page.
Firefox runs through Puppeteer (tests/support/firefox_pages.mjs), WebKitGTK through Selenium
(tests/support/engines.py). WebKitWebDriver does not hand out the console, so there the toggle and
the restored progress are the evidence that no script stopped.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from support import engines
from test_progress_recovery_browser import KEY, PAGES, THEME, not_json, course

pytestmark = pytest.mark.browser
TOGGLE = "form[data-lllm-palette] label:not([hidden])"    # palette.mjs un-hides the current one


def expected(site_server, path: str) -> str:
    units = len(course(site_server)["units"])
    return {"": f"1 of {4 * units} steps", "course/": f"1 of {4 * units} steps", "progress/": "1 of 6",
            "architecture/": "Score: 1 of 6 right · 1 of 6 answered."}[path]


def plan(site_server) -> dict:
    return {"entries": {**not_json(site_server), **THEME}, "read": [KEY, KEY + ".corrupt"],
            "visits": [{"path": path, "waitFor": "#lllm-recovery[role=alert]",
                        "click": "#lllm-recovery button.md-button--primary",
                        "then": [PAGES[path], expected(site_server, path)],
                        "show": ["#lllm-recovery", TOGGLE]} for path in PAGES]}


def check(visits: list[dict]) -> None:
    assert [v["path"] for v in visits] == list(PAGES)
    for v in visits:
        assert v["notice"] == "alert", v
        assert v["shown"][0].startswith("Your progress is back"), v
        assert v["shown"][1] is not None, f"{v['path']}: no dark-mode toggle (a script stopped)"
        assert "predictor-returns" in json.loads(v["stored"][0])["questions"] and v["stored"][1] is None, v


def test_firefox(site_server):
    if not os.path.exists(engines.FIREFOX):
        pytest.fail(f"{engines.FIREFOX} not found: run `make browsers`")
    done = subprocess.run(["node", str(engines.ROOT / "tests" / "support" / "firefox_pages.mjs"), site_server.url,
                           json.dumps(plan(site_server))], cwd=engines.ROOT, capture_output=True, text=True,
                          timeout=600, env={**os.environ, "PUPPETEER_SKIP_DOWNLOAD": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    check(result["visits"])
    # Firefox's own favicon request can meet the service worker while this test clears storage
    # between pages: the browser's error, not the page's code
    assert [line for line in result["console"] if "favicon.ico" not in line] == [], result["console"]


def test_webkit(site_server):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.wait import WebDriverWait

    visits = []
    with engines.webkit_session() as driver:
        for visit in plan(site_server)["visits"]:
            driver.get(site_server.url + "robots.txt")
            driver.execute_script("localStorage.clear(); sessionStorage.clear();"
                                  "for (const [k, v] of Object.entries(arguments[0])) localStorage.setItem(k, v);",
                                  plan(site_server)["entries"])
            driver.get(site_server.url + visit["path"])
            wait = WebDriverWait(driver, 60)
            wait.until(lambda d: d.execute_script("return Boolean(window.lllmModules)"))
            driver.execute_script("window.lllmModules.loadAll()")    # the quiz drawn where it is (EAGER)
            notice = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, visit["waitFor"]))[0]
            role = notice.get_attribute("role")
            driver.find_element(By.CSS_SELECTOR, visit["click"]).click()
            sel, text = visit["then"]
            wait.until(lambda d: text in (d.execute_script("return document.querySelector(arguments[0])?.textContent || ''", sel)))
            shown = [driver.execute_script("const n = document.querySelector(arguments[0]); return n ? n.textContent : null", s)
                     for s in visit["show"]]
            stored = [driver.execute_script("return localStorage.getItem(arguments[0])", k) for k in (KEY, KEY + ".corrupt")]
            visits.append({"path": visit["path"], "notice": role, "shown": shown, "stored": stored})
    check(visits)
