""""Your model" in the native runtime's cells, in Chromium: a real OpenAI-compatible server on loopback
(`python -m lllm serve-model`, the agent-tuned TinyLLM) behind the one line `your_model()`.

The settings are set as a learner sets them (the reasoning lab's "your model" fields, remembered in
localStorage); then the Agent page's and the Tactic page's "your model" blocks run as cells. The model
writes whatever it writes, so the test replays the prompt the agent showed it against the same server
(greedy, outside the page) and checks the cell printed exactly that reply's content, and that every
completion the cell asked for reached the server. Then the server is stopped and the same cell is
the one sentence that says so. One browser launch.
"""

from __future__ import annotations

import json
import re

import httpx
import pytest

from lllm.runtimes.native.core.chat_format import parse_completion
from support.model_server import AGENT_MODEL, ModelServer
from support.runtime import ROOT

pytestmark = pytest.mark.browser
MODEL = "tinyllm-agent"
RUN = "([code, ns]) => lllm.run(code, {namespace: ns})"
STEP = "import json\nprint(json.dumps([[s.kind, s.shown, s.reply] for s in agent.sessions[0].steps]))"
TACTIC_STEPS = ("import json\ncalled = story({'opening': 'Once upon a time a fox', 'words': 12}, return_session=True)\n"
                "print(json.dumps({'calls': called.cost.calls, 'steps': [[s.kind, s.shown, s.reply] for a in called.agent_sessions for s in a.steps]}))")


def block_after(page: str, heading: str) -> str:
    """The first ```python block after `heading` on site/native/`page`.md (what the reader copies)."""
    text = (ROOT / "site" / "native" / f"{page}.md").read_text()
    return re.search(r"```python\n(.*?)```", text[text.index(heading):], re.DOTALL).group(1)


@pytest.fixture(scope="module")
def cells(browser, site_server):
    """The Agent cell and the Tactic cell on your model, then the Agent cell once the server stopped."""
    assert AGENT_MODEL.is_file(), "run `make agent-model` first"
    server = ModelServer("--models", MODEL).wait_until_up()
    context = browser.new_context(service_workers="block")
    seen: list[tuple[str, int]] = []
    try:
        page = context.new_page()
        page.on("response", lambda r: seen.append((r.url, r.status)) if r.url.startswith(server.base) else None)
        page.goto(site_server.url + "reasoning/")
        lab = page.locator(".lllm-reasoning-lab")
        lab.locator("select[name=model]").select_option("yourmodel")
        lab.locator("[name=your_model_url]").fill(server.base)
        lab.locator("[name=your_model_name]").fill(MODEL)
        lab.locator("[name=your_model_name]").press("Tab")             # leaving the field remembers it
        page.goto(site_server.url + "native/agent/")
        page.evaluate("() => lllm.ready()")
        agent_code = block_after("agent", "## In the page, on your model")
        agent = {"stdout": page.evaluate(RUN, [agent_code, "yours"])["stdout"],
                 "steps": json.loads(page.evaluate(RUN, [STEP, "yours"])["stdout"]), "seen": list(seen)}
        tactic_cell = re.search(r"```python \{\.runnable\}\n(.*?)```", (ROOT / "site/native/tactic.md").read_text()
                                .split("### Pydantic in and out")[1], re.DOTALL).group(1)
        page.evaluate(RUN, [tactic_cell, "tactic"])                    # defines ContinueStory and config (TinyLLM)
        before = len(seen)
        tactic = {"stdout": page.evaluate(RUN, [block_after("tactic", "### On your model"), "tactic"])["stdout"],
                  "seen": seen[before:]}
        tactic["session"] = json.loads(page.evaluate(RUN, [TACTIC_STEPS, "tactic"])["stdout"])   # the same call again
        shown = agent["steps"][0][1]
        agent["server"] = parse_completion(replay(server.base, shown, 80), [])[0]
        tactic["server"] = parse_completion(replay(server.base, tactic["session"]["steps"][-1][1], 200), [])[0]
        server.stop()
        stopped = page.evaluate(f"([code, ns]) => lllm.run(code, {{namespace: ns}}).then(() => null, e => e.message)",
                                [agent_code, "yours"])
        yield {"agent": agent, "tactic": tactic, "stopped": stopped, "url": server.base}
    finally:
        context.close()
        server.stop()


def replay(base: str, prompt: str, max_tokens: int) -> str:
    """The server's greedy reply to `prompt`, asked as the page asks (one user message, stop at Observation:)."""
    body = {"model": MODEL, "messages": [{"role": "user", "content": prompt}], "temperature": 0,
            "stop": ["Observation:"], "max_tokens": max_tokens}
    return httpx.post(base + "/v1/chat/completions", json=body, timeout=120).json()["choices"][0]["message"]["content"]


def test_an_agent_cell_runs_on_the_remembered_server_and_prints_its_reply(cells):
    agent, url = cells["agent"], cells["url"]
    lines = agent["stdout"].splitlines()
    assert lines[0] == f"PageChatPredictor(url={url!r}, model={MODEL!r})"
    (kind, shown, reply), = agent["steps"]
    assert kind == "reply" and shown.startswith("System: Continue the story.") and "User: Once upon a time\n" in shown
    assert reply == agent["server"]                   # the server's own greedy reply to that prompt
    assert "\n".join(lines[1:]) == reply


def test_the_cells_requests_reached_the_server(cells):
    agent, url = cells["agent"], cells["url"]
    assert (url + "/v1/models", 200) in agent["seen"]                       # the saved endpoint, checked
    assert [s for u, s in agent["seen"] if u == url + "/v1/chat/completions"] == [200]
    calls = cells["tactic"]["session"]["calls"]                              # the model calls, repairs included
    assert calls >= 1 and [s for u, s in cells["tactic"]["seen"] if u == url + "/v1/chat/completions"] == [200] * calls


def test_the_tactic_cell_runs_on_your_model(cells):
    tactic = cells["tactic"]
    _, last_shown, last_reply = tactic["session"]["steps"][-1]
    assert "User: Once upon a time a fox\n" in last_shown and last_reply == tactic["server"]
    words = tactic["server"].split()[:12]
    assert tactic["stdout"] == f"story={' '.join(words)!r} words={len(words)}\n"


def test_a_stopped_server_is_one_sentence(cells):
    assert cells["stopped"].splitlines()[0] == (f"lllm.web.yourmodel.YourModelError: Nothing answers at {cells['url']} any more: your model's "
                                                "server stopped, start it again (and press Run).")
