"""A run from elsewhere in the page: a chat log built from the `openai` package's own message types
(a tool call it can run, calc, and one it cannot, get_weather), imported into the ReAct page's
time-travel widget as a file, shows what `python -m lllm replay chat.json` prints; re-run from model
call 2 with the agent-tuned TinyLLM, what `replay --from 2 --brain tinyllm-agent` prints (the times,
measured where each ran, masked); a malformed log is one sentence and the page keeps working."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from playwright.sync_api import expect

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tests" / "timetravel"))
from test_chatlog import LOG  # noqa: E402  (the log, made with openai's ChatCompletionMessage types)

pytestmark = pytest.mark.browser
TIMEOUT = 600_000
MS = re.compile(r" +\d+\.\d ms")


def replay(*args) -> str:
    done = subprocess.run([sys.executable, "-m", "lllm", "replay", *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return MS.sub(" - ms", done.stdout)


def test_a_chat_log_opens_in_the_widget_and_re_runs_with_a_brain_from_here(page, site_server, tmp_path):
    log = tmp_path / "chat.json"
    log.write_text(json.dumps(LOG), encoding="utf-8")
    pg = page.page
    pg.goto(site_server.url + "agents/react/")
    root = pg.locator(".lllm-timetravel")
    expect(root.locator(".lllm-tt__import")).to_be_attached(timeout=TIMEOUT)
    root.locator(".lllm-tt__import").set_input_files(str(log))
    panel = root.locator(".lllm-tt__chat")
    expect(panel).to_have_attribute("data-state", "done", timeout=TIMEOUT)
    shown = MS.sub(" - ms", pg.evaluate("() => document.querySelector('.lllm-tt__chat').lllmChatText"))
    assert shown == replay(str(log))
    assert "get_weather cannot run here: its results are the log's" in shown
    panel.locator("[name=chat-from]").fill("2")
    panel.locator("[name=chat-brain]").select_option("tinyllm-agent")
    panel.locator(".lllm-tt__chat-rerun").click()
    expect(panel).to_have_attribute("data-state", "running", timeout=TIMEOUT)
    expect(panel).to_have_attribute("data-state", "done", timeout=TIMEOUT)
    shown = MS.sub(" - ms", pg.evaluate("() => document.querySelector('.lllm-tt__chat').lllmChatText"))
    assert shown == replay(str(log), "--from", "2", "--brain", "tinyllm-agent")
    assert "== from model call 2, tinyllm-agent writes" in shown and "the runs part at call" in shown
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(LOG[:2] + [{"role": "tool", "content": "391"}]), encoding="utf-8")
    root.locator(".lllm-tt__import").set_input_files(str(bad))
    expect(root.locator(".lllm-tt__chat")).to_have_attribute("data-state", "error", timeout=TIMEOUT)
    assert root.locator(".lllm-tt__chat .lllm-tt__error").text_content() == (
        "messages[2] is a tool result, but no assistant message before it called a tool with tool_call_id ''")
    root.locator(".lllm-tt__run").click()                      # the widget still runs its own demo
    expect(root).to_have_attribute("data-state", "done", timeout=TIMEOUT)
    page.assert_clean()
