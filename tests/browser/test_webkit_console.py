"""WebKit's console check can fail: tests/support/engines.py's webkit() collects the page's console in the
page (WebKitWebDriver hands out none), so a console.error call, an uncaught error and an unhandled rejection
made on a page of the built site come back in `console`, and a page that makes none gives an empty list.
One WebKitGTK session per visit, on the home page."""

from __future__ import annotations

import pytest

from support import engines

pytestmark = pytest.mark.browser
PLANT = """async () => {      // what a broken widget would do: log an error, throw from a timer, reject unhandled
  console.error("planted console error", {code: 7});
  setTimeout(() => { throw new Error("planted uncaught error"); }, 0);
  Promise.reject(new Error("planted rejection"));
  await new Promise((r) => setTimeout(r, 500));
  return {planted: true};
}"""
QUIET = """async () => ({quiet: document.title.length > 0})"""


def visit(site_server, tmp_path, source: str) -> dict:
    script = tmp_path / "page_function.js"
    script.write_text(source, encoding="utf-8")
    return engines.webkit(site_server.url, {}, script=script)


def test_webkit_reports_a_console_error_an_uncaught_error_and_an_unhandled_rejection(site_server, tmp_path):
    run = visit(site_server, tmp_path, PLANT)
    assert run["report"] == {"planted": True}
    console = run["console"]
    assert 'planted console error {"code":7}' in console, console
    assert [line for line in console if line.startswith("uncaught: ") and "planted uncaught error" in line], console
    assert [line for line in console if line.startswith("unhandled rejection: Error: planted rejection")], console
    assert len(console) == 3, console


def test_webkit_reports_nothing_for_a_page_that_logs_nothing(site_server, tmp_path):
    run = visit(site_server, tmp_path, QUIET)
    assert run == {"report": {"quiet": True}, "console": []}
