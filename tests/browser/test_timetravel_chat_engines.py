"""A run from elsewhere in Firefox and WebKit (Chromium's, with the file input, is
test_timetravel_chat_chromium.py): the chat log built from the `openai` package's own message types,
imported into the ReAct page's time-travel widget, shows what `python -m lllm replay chat.json`
prints; re-run from model call 2 with the agent-tuned TinyLLM, what `replay --from 2 --brain
tinyllm-agent` prints (times masked); a malformed log is one sentence. The page function is
tests/support/chat_scenario.js; one launch per engine."""

from __future__ import annotations

import json

import pytest

from conftest import ROOT
from support import engines
from test_timetravel_chat_chromium import LOG, MS, replay

pytestmark = pytest.mark.browser
SCRIPT = ROOT / "tests" / "support" / "chat_scenario.js"
BAD = LOG[:2] + [{"role": "tool", "content": "391"}]


@pytest.mark.parametrize("engine", ["firefox", "webkit"])
def test_a_chat_log_opens_and_re_runs_in(engine, site_server, tmp_path):
    log = tmp_path / "chat.json"
    log.write_text(json.dumps(LOG), encoding="utf-8")
    arg = {"log": LOG, "from": 2, "brain": "tinyllm-agent", "bad": BAD}
    out = getattr(engines, engine)(site_server.url + "agents/react/", arg, script=SCRIPT)
    report = out["report"]
    assert "fatal" not in report, report.get("fatal")
    assert report["imported"]["state"] == "done" and MS.sub(" - ms", report["imported"]["text"]) == replay(str(log))
    assert report["rerun"]["state"] == "done"
    assert MS.sub(" - ms", report["rerun"]["text"]) == replay(str(log), "--from", "2", "--brain", "tinyllm-agent")
    assert report["bad"] == "messages[2] is a tool result, but no assistant message before it called a tool with tool_call_id ''"
    assert out["console"] == []
