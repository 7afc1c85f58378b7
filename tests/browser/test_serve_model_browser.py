"""A cross-origin-isolated page calls `lllm serve-model` on another loopback port, in Chromium, Firefox and WebKit.

The page is served with the site's COOP and COEP headers from 127.0.0.1 (one of the default allowed
origins); its requests carry a JSON body and an Authorization header, so each engine sends a CORS
preflight first. The plain chat must be the text `python -m lllm generate` gives for the same seed,
the streamed one must add up to it, and a server started with `--allow-origin` naming another site
must be refused by the browser (so the test can fail).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support import engines
from support.model_server import AGENT_MODEL, ModelServer
from support.runtime import MODEL, cli_generate, serve_page

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not (MODEL.exists() and AGENT_MODEL.exists()), reason="needs the built models")]
SCENARIO = Path(__file__).resolve().parents[1] / "support" / "serve_model_scenario.js"
PAGE = b"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>calls a local model</title></head><body></body></html>"


@pytest.fixture(scope="module")
def setting():
    page, url = serve_page(PAGE, {"Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "require-corp"})
    allowed = ModelServer("--models", "tinyllm").wait_until_up()
    refused = ModelServer("--models", "tinyllm", "--allow-origin", "https://elsewhere.example").wait_until_up()
    yield {"url": url, "arg": {"allowed": allowed.base, "refused": refused.base}}
    page.shutdown()
    for server in (allowed, refused):
        assert server.stop()[0] == 0


def visit(engine: str, setting: dict, request) -> dict:
    if engine == "chromium":
        return engines.chromium(request.getfixturevalue("browser"), setting["url"], setting["arg"], SCENARIO)["report"]
    if engine == "firefox":
        return engines.firefox(setting["url"], setting["arg"], SCENARIO)["report"]
    return engines.webkit(setting["url"], setting["arg"], SCENARIO, ready=None)["report"]    # a page of its own: no window.lllm


@pytest.mark.parametrize("engine", ["chromium", "firefox", "webkit"])
def test_an_isolated_page_on_another_port_chats_with_the_server(engine, setting, request):
    report = visit(engine, setting, request)
    assert not report.get("fatal") and report["errors"] == [], report
    assert report["isolated"] is True
    assert report["plain"] == cli_generate("Once", 40, 0.8, seed=3)["completion"]
    assert report["type"].startswith("text/event-stream") and report["done"] is True
    assert report["streamed"] == report["plain"]
    assert report["refused"] == "TypeError"
