"""Helpers shared by the in-page runtime's browser tests and bench/page_bench.py.

Builds the site into a temporary folder (with SITE_URL pointing at the loopback server, so
Material's instant navigation works), serves it with hooks/serve.py (the `_headers` CSP in force)
and launches Debian's Chromium through Playwright with the flags site/design.md lists ("Measured facts").
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import socket
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "build" / "model" / "tinyllm.onnx"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def build_site(out_dir: Path, port: int) -> Path:
    """`mkdocs build` into out_dir for a server on `port`; returns out_dir."""
    env = dict(os.environ, SITE_URL=f"http://127.0.0.1:{port}/", NO_MKDOCS_2_WARNING="1")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--quiet", "-d", str(out_dir)],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"mkdocs build failed:\n{done.stdout}\n{done.stderr}")
    return out_dir


def serve(directory: Path, port: int):
    sys.path.insert(0, str(ROOT))
    from hooks.serve import make_server
    import threading
    server = make_server(directory, port)
    report = server.handle_error

    def handle_error(request, client_address):   # a browser closing mid-download is not an error
        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            report(request, client_address)
    server.handle_error = handle_error
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


# Set before a page's own scripts run: loader.mjs then draws every widget at once instead of when it
# comes near the viewport (what a reader gets), so a test or bench of a widget need not scroll to it.
# tests/browser/test_loader_browser.py checks the lazy way with a browser without it (conftest's lazy_browser).
EAGER = "window.lllmEager = true;"


def eager(browser):
    """`browser`, each context and page it makes drawing every widget at once (EAGER)."""
    new_context, new_page = browser.new_context, browser.new_page

    def context(*args, **kwargs):
        made = new_context(*args, **kwargs)
        made.add_init_script(EAGER)
        return made

    def page(*args, **kwargs):
        made = new_page(*args, **kwargs)
        made.add_init_script(EAGER)
        return made

    browser.new_context, browser.new_page = context, page
    return browser


def launch(playwright, lazy: bool = False):
    """Debian's Chromium; it draws every widget at once unless `lazy` (see EAGER)."""
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    return browser if lazy else eager(browser)


def cli_generate(prompt: str, max_new_tokens: int, temperature: float, top_k: int = 0, top_p: float = 1.0,
                 seed: int = 0) -> dict:
    """What the terminal prints: `python -m lllm generate --json` (the oracle the page must match)."""
    done = subprocess.run(
        [sys.executable, "-m", "lllm", "generate", "--model", str(MODEL), "--prompt", prompt,
         "--max-new-tokens", str(max_new_tokens), "--temperature", str(temperature), "--top-k", str(top_k),
         "--top-p", str(top_p), "--seed", str(seed), "--json"],
        cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


# ---- runnable cells: what a page's ```python {.runnable} blocks print in CPython (the oracle) ----

CELL = re.compile(r"```python \{\.runnable\}\n(.*?)```", re.DOTALL)
SNIPPET_LINE = re.compile(r'^--8<-- "([^":]+):([^"]+)"\n', re.M)


def snippet(path: str, section: str) -> str:
    """A named section of a source file, dedented, as pymdownx.snippets includes it (mkdocs.yml)."""
    lines = (ROOT / path).read_text(encoding="utf-8").splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.strip() == f"# --8<-- [start:{section}]")
    end = next(i for i, line in enumerate(lines) if line.strip() == f"# --8<-- [end:{section}]")
    return textwrap.dedent("".join(lines[start + 1:end]))


def cells(markdown: str) -> list[str]:
    """A page's runnable cells as the reader sees them: an included section stands for its source."""
    return [SNIPPET_LINE.sub(lambda m: snippet(m.group(1), m.group(2)), code) for code in CELL.findall(markdown)]



def cpython_outputs(codes: list[str]) -> list[str]:
    """Run cells in order in one namespace (as a page does) and return what each printed."""
    namespace, outputs = {}, []
    for code in codes:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, "<cell>", "exec"), namespace)
        outputs.append(out.getvalue())
    return outputs


# ---- the agent pages' demo widgets ----------------------------------------------------------------

DEMO_TIMEOUT = 240_000   # ms: a cold boot plus a model's batch on a busy 2-core machine


def run_demo(demo, timeout: int = DEMO_TIMEOUT, **fields) -> dict:
    """An agent-page widget (`.lllm-demo`): set its fields (by name), click Run, wait until it
    finishes (done, error, or recorded: the runtime could not start); its params and result."""
    for name, value in fields.items():
        control = demo.locator(f"[name='{name}']")
        if control.evaluate("el => el.tagName") == "SELECT":
            control.select_option(str(value))
        else:
            control.fill(str(value))
    demo.get_by_role("button", name="Run").click()
    demo.page.wait_for_function("el => ['done', 'error', 'recorded'].includes(el.dataset.state)",
                                arg=demo.element_handle(), timeout=timeout)
    return demo.evaluate("el => ({state: el.dataset.state, params: el.lllmParams, result: el.lllmResult})")


def serve_page(html: bytes, headers: dict | None = None):
    """One HTML page on a free loopback port (a site of its own, for cross-origin tests): (server, url).
    `headers` are sent with it (COOP and COEP, say); `server.shutdown()` ends it."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Page(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            for name, value in {"Content-Type": "text/html; charset=utf-8", **(headers or {}),
                                "Content-Length": str(len(html))}.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(html)

        def log_message(self, *args):
            pass
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"
