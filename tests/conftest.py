"""Shared fixtures for the site and browser tests (session-scoped, built and started lazily).

Use them from any test module; each is created once per pytest session, the first time a test
asks for it:

    site_build    -> SiteBuild: the site built once with `mkdocs build --strict` into a temporary
                     folder, with SITE_URL set to the loopback server's address (so Material's
                     instant navigation intercepts links). Fields: dir, url, port, seconds, log.
    site_server   -> the same folder served by hooks/serve.py (404.html for missing paths, the
                     _headers rules applied) on 127.0.0.1; `site_server.url` ends with "/".
    wrangler_server -> the same folder under `npx wrangler pages dev` (Cloudflare's runtime, offline).
    browser       -> one headless Debian Chromium (/usr/bin/chromium) driven by Playwright.
    page          -> a WatchedPage for one test: a fresh browser context whose requests to any
                     other origin are blocked and recorded, with console errors and page errors
                     recorded. Fields: page (the Playwright Page), console_errors,
                     offsite_requests, requests (every URL asked for); assert_clean() fails
                     with the details if anything was recorded.

Example:

    @pytest.mark.browser
    def test_home(page, site_server):
        page.goto(site_server.url)
        assert page.page.title().startswith("LLLM")
        page.assert_clean()

Pages may take a while to start their widgets on a busy 2-core machine: wait for a condition,
never for a fixed time. Both servers send the site's Content-Security-Policy (no 'unsafe-eval'),
so pass Playwright a function, not a bare expression, which it would have to eval:
`page.page.wait_for_function("n => document.querySelectorAll('.lllm-cell__bar').length >= n", arg=3)`.
`watch(context, origins)` builds a WatchedPage in a context you manage (module-scoped sweeps).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))             # the shared helpers: `from support.runtime import ...`

# One definition of the browser and the ports, shared with bench/page_bench.py.
from support.runtime import CHROMIUM, CHROMIUM_ARGS, free_port, launch  # noqa: E402


def wait_for_http(url: str, timeout: float, proc: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server exited with status {proc.returncode} before answering {url}")
        try:
            urllib.request.urlopen(url, timeout=2).close()
            return
        except urllib.error.HTTPError:
            return  # it answered
        except OSError:
            time.sleep(0.25)
    raise TimeoutError(f"{url} did not answer within {timeout:.0f} s")


# ---- the built site -------------------------------------------------------------------------------

@dataclass
class SiteBuild:
    dir: Path
    port: int
    seconds: float
    log: str

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"


def build_site(dest: Path, site_url: str) -> subprocess.CompletedProcess:
    """`mkdocs build --strict` into dest (the same command as `make site`, another output folder)."""
    env = {**os.environ, "SITE_URL": site_url, "NO_MKDOCS_2_WARNING": "1"}
    env.pop("LLLM_ALLOW_MISSING_MODEL", None)  # the tested build must contain the real model files
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(dest)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900,
    )


@pytest.fixture(scope="session")
def site_build(tmp_path_factory) -> SiteBuild:
    port = free_port()
    dest = tmp_path_factory.mktemp("site") / "public"
    start = time.perf_counter()
    result = build_site(dest, f"http://127.0.0.1:{port}/")
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        pytest.fail(f"mkdocs build --strict failed (status {result.returncode}):\n{result.stdout}\n{result.stderr}")
    return SiteBuild(dest, port, seconds, result.stdout + result.stderr)


@dataclass
class Server:
    url: str
    dir: Path


@pytest.fixture(scope="session")
def site_server(site_build):
    from hooks.serve import make_server
    import threading

    server = make_server(site_build.dir, site_build.port)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield Server(site_build.url, site_build.dir)
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def wrangler_server(site_build, tmp_path_factory):
    """`npx wrangler pages dev` on the built folder, with the repo's wrangler.toml (its
    compatibility_date must be one the bundled runtime accepts)."""
    npx = shutil.which("npx")
    if npx is None or not (ROOT / "node_modules" / ".bin" / "wrangler").exists():
        pytest.fail("wrangler is not installed: run `make node` (npm ci)")
    port = free_port()
    home = tmp_path_factory.mktemp("wrangler-home")
    env = {**os.environ, "WRANGLER_SEND_METRICS": "false", "CI": "true", "HOME": str(home),
           "XDG_CONFIG_HOME": str(home / ".config"), "NO_COLOR": "1"}
    log = open(home / "wrangler.log", "w")
    proc = subprocess.Popen(
        [npx, "--no-install", "wrangler", "pages", "dev", str(site_build.dir),
         "--ip", "127.0.0.1", "--port", str(port), "--persist-to", str(home / "state")],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        wait_for_http(url, timeout=120, proc=proc)
    except Exception as exc:
        proc.kill()
        log.close()
        pytest.fail(f"wrangler pages dev did not start: {exc}\n{(home / 'wrangler.log').read_text()[-3000:]}")
    yield Server(url, site_build.dir)
    os.killpg(proc.pid, 15)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
    log.close()


# ---- the browser ------------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def playwright_instance():
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} not found: run `make chromium` (apt-get install chromium)")
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright_instance):
    """Chromium whose pages draw every widget at once (support.runtime.EAGER)."""
    browser = launch(playwright_instance)     # a fresh temporary user-data-dir of its own
    yield browser
    browser.close()


@pytest.fixture(scope="module")
def lazy_browser(playwright_instance):
    """Chromium as a reader has it: each widget drawn when it comes near the viewport."""
    browser = launch(playwright_instance, lazy=True)
    yield browser
    browser.close()


@dataclass
class WatchedPage:
    page: object                                  # playwright.sync_api.Page
    allowed_origins: set[str]
    console_errors: list[str] = field(default_factory=list)
    offsite_requests: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    failed_responses: list[tuple[int, str]] = field(default_factory=list)   # (status >= 400, url)

    def reset(self) -> None:
        self.console_errors.clear()
        self.offsite_requests.clear()
        self.requests.clear()
        self.failed_responses.clear()

    def assert_clean(self, where: str = "", expected_404: str | None = None) -> None:
        """Fail if anything was recorded. `expected_404`: a URL that is meant to answer 404 (a
        missing page); Chromium's console line about that one response is not an error."""
        failed = [(status, url) for status, url in self.failed_responses if not (status == 404 and url == expected_404)]
        console = self.console_errors
        if expected_404 and not failed:
            console = [e for e in console if not e.startswith("Failed to load resource: the server responded with a status of 404")]
        problems = [f"console: {e}" for e in console]
        problems += [f"HTTP {status}: {url}" for status, url in failed]
        problems += [f"off-origin request (blocked): {u}" for u in self.offsite_requests]
        assert not problems, f"{where or self.page.url}:\n  " + "\n  ".join(problems)


def origin(url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def watch(context, allowed_origins: set[str]) -> WatchedPage:
    """Open a page in `context` that blocks and records requests to other origins and records
    console errors and uncaught exceptions (usable from module-scoped fixtures too)."""
    pg = context.new_page()
    watched = WatchedPage(pg, set(allowed_origins))

    def route(route_):
        url = route_.request.url
        if url.startswith(("data:", "blob:")) or origin(url) in watched.allowed_origins:
            watched.requests.append(url)
            route_.continue_()
        else:
            watched.offsite_requests.append(url)
            route_.abort()

    context.route("**/*", route)
    pg.on("console", lambda msg: watched.console_errors.append(msg.text) if msg.type == "error" else None)
    pg.on("pageerror", lambda exc: watched.console_errors.append(f"uncaught: {exc}"))
    pg.on("response", lambda r: watched.failed_responses.append((r.status, r.url)) if r.status >= 400 else None)
    return watched


@pytest.fixture
def page(browser, request):
    """A fresh context and page; requests leaving the loopback servers' origins are blocked."""
    context = browser.new_context(service_workers="block")
    allowed = set()
    for name in ("site_server", "wrangler_server"):
        if name in request.fixturenames:
            allowed.add(origin(request.getfixturevalue(name).url))
    yield watch(context, allowed)
    context.close()
