"""One reader's visit in Chromium (tests/support/engine_scenario.js; the driver is in tests/support/engines.py): the
runtime starts, a runnable cell, the agent demo (its trace equal to CPython's, character for
character), a quiz's code editor (Tab indents; keys do not reach the site's shortcuts) and a code attempt, the reasoning lab, and a runaway cell stopped."""

from __future__ import annotations

import pytest

from support import engines

pytestmark = pytest.mark.browser


def test_a_visit_in_chromium(site_server, browser):
    report = engines.check_report(engines.chromium(browser, site_server.url + engines.START, engines.SCENARIO_ARG))
    print(f"chromium: {report['sync']}; agent answer {report['demo']['answer']!r}")
