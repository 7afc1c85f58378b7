"""Run async code, or a whole test, on a thread of its own.

Playwright's sync API (the browser tests' session-wide `browser` fixture) keeps an asyncio event
loop on the main thread, and `asyncio.run` refuses to start inside a running loop. A test that
calls `asyncio.run`, or a sync API that does (a protocol tactic's `run` over an async `_run`),
runs on a fresh thread instead, so it passes whatever ran before it in the session:

    @own_thread
    def test_something_async():
        assert run_async(tactic.arun("x")) == "X"
"""

from __future__ import annotations

import asyncio
import functools
from concurrent.futures import ThreadPoolExecutor


def run_async(coroutine):
    """asyncio.run(coroutine) on a thread of its own; returns its result or raises its exception."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def own_thread(test):
    """A test whose body runs on a thread of its own (pytest still sees its name and fixtures)."""
    @functools.wraps(test)
    def wrapper(*args, **kwargs):
        with ThreadPoolExecutor(1) as pool:
            return pool.submit(test, *args, **kwargs).result()
    return wrapper
