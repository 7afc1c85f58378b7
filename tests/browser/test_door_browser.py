"""A page on another origin cannot make `lllm serve` run a tactic, in Chromium (the door: lllm/services/door.py).

Two pages on loopback, on two ports: two origins. `lllm serve` (under uvicorn and under
`--server stdlib`) is started with `--allow-origin` naming the first only. Its tactic writes each
input it runs to a file, so the test sees what ran, whatever the browser lets the page read. From
the second origin, a `fetch` with a `text/plain` body (a "simple" request: the browser sends it
without asking first), the same with `mode: "no-cors"`, and one with `application/json` (which
the browser preflights) must all leave the file untouched; from the first origin, JSON runs the
tactic (so the test can fail) and `text/plain` is refused with 415.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from support.runtime import free_port
from support.tactic_server import TacticServer

pytestmark = pytest.mark.browser
PAGE = b"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>another site</title></head><body></body></html>"
CALLS = """async ({url, kind, mode}) => {
  try {
    const reply = await fetch(url, {method: "POST", mode, headers: {"content-type": kind}, body: '{"input": "' + kind + '"}'});
    return mode === "no-cors" ? "opaque" : reply.status;
  } catch (error) {
    return "refused: " + error.name;
  }
}"""


class Page(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def pages():
    servers = [ThreadingHTTPServer(("127.0.0.1", free_port()), Page) for _ in range(2)]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    yield [f"http://127.0.0.1:{s.server_address[1]}" for s in servers]
    for server in servers:
        server.shutdown()


@pytest.mark.parametrize("kind", ["uvicorn", "stdlib"])
def test_a_second_origin_cannot_run_a_tactic_and_the_allowed_one_can(browser, pages, tmp_path, kind):
    ran = tmp_path / "ran.txt"
    ran.write_text("")
    tactic = f'''
def shout(text: str) -> str:
    with open({str(ran)!r}, "a") as log:
        log.write(text + "\\n")
    return text.upper()
'''
    allowed, other = pages
    server = TacticServer(tmp_path / "app", "--server", kind, "--allow-origin", allowed, tactic=tactic)
    server.wait_until_up()
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(other + "/")
        url = server.base + "/run"
        results = [page.evaluate(CALLS, {"url": url, "kind": k, "mode": m})
                   for k, m in [("text/plain", "cors"), ("text/plain", "no-cors"), ("application/json", "cors")]]
        assert results[0].startswith("refused") and results[1] == "opaque" and results[2].startswith("refused"), results
        assert ran.read_text() == "", "a page on another origin ran the tactic"
        page.goto(allowed + "/")
        assert page.evaluate(CALLS, {"url": url, "kind": "application/json", "mode": "cors"}) == 200
        assert page.evaluate(CALLS, {"url": url, "kind": "text/plain", "mode": "cors"}) == 415
        assert ran.read_text() == "application/json\n"
    finally:
        context.close()
        assert server.stop()[0] == 0
