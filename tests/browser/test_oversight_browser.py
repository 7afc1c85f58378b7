"""The human-in-the-loop page in real Chromium: its buttons drive a real OversightSession.

Each button is one decision through the step API on a session kept in the page's Python. The
oracle is the same session driven in CPython with the same decisions (`lllm.web.oversight`):
the page's final state — trajectory, intervention log (times aside), answer — must be identical.
"""

from __future__ import annotations

import json

import pytest

from conftest import origin, watch
from lllm.web.oversight import decide_json, start, state_json

pytestmark = pytest.mark.browser
TIMEOUT = 240_000   # ms: a cold boot on a busy 2-core machine


@pytest.fixture(scope="module")
def widget(browser, site_server):
    context = browser.new_context(service_workers="block")
    watched = watch(context, {origin(site_server.url)})
    watched.page.goto(site_server.url + "agents/human-in-loop/")
    watched.page.wait_for_function("() => document.querySelector('.lllm-oversight')?.dataset.state === 'idle'")
    yield watched.page.locator(".lllm-oversight")
    watched.assert_clean("human-in-loop page")
    context.close()


def click(widget, name: str, text: str = "", reason: str = "") -> dict:
    """Fill the text and reason fields, click a button, wait for the session's answer."""
    if name != "Start":                          # the decision fields show once a session exists
        widget.locator("[name='text']").fill(text)
        widget.locator("[name='reason']").fill(reason)
    widget.evaluate("el => { el.lllmResult = null; }")
    widget.get_by_role("button", name=name, exact=True).click()
    widget.page.wait_for_function("el => el.lllmResult !== null && el.dataset.state !== 'running'",
                                  arg=widget.element_handle(), timeout=TIMEOUT)
    return widget.evaluate("el => ({state: el.dataset.state, result: el.lllmResult})")


def without_times(state: dict) -> dict:
    return {**state, "interventions": [{k: v for k, v in i.items() if k != "time"} for i in state["interventions"]]}


def cpython(goal: str, decisions: list[tuple[str, str, str]], mode: str = "approve") -> dict:
    session = start(goal, mode=mode)
    out = json.loads(state_json(session))
    for action, text, reason in decisions:
        out = json.loads(decide_json(session, action, text, reason))
    return without_times(out)


def start_session(widget, goal: str, mode: str = "approve") -> dict:
    widget.locator("[name='goal']").fill(goal)
    widget.locator("[name='mode']").select_option(mode)
    return click(widget, "Start")


def test_start_pauses_before_the_first_tool_call(widget):
    run = start_session(widget, "What is 6 times 7?")
    assert run["state"] == "waiting"
    assert widget.locator(".lllm-oversight__proposal").text_content() == "calc[6 * 7]"
    assert widget.locator(".lllm-oversight__step").count() == 0          # nothing has run yet
    assert without_times(run["result"]) == cpython("What is 6 times 7?", [])


def test_approve_runs_the_tool_and_accepts_the_answer(widget):
    start_session(widget, "What is 6 times 7?")
    run = click(widget, "approve")
    assert "Observation: 42" in widget.locator(".lllm-oversight__step").first.text_content()
    assert widget.locator(".lllm-oversight__proposal").text_content() == "Final Answer: 42"
    run = click(widget, "approve")
    assert run["state"] == "done" and run["result"]["answer"] == "42"
    assert widget.get_by_role("button", name="approve", exact=True).is_disabled()
    assert without_times(run["result"]) == cpython("What is 6 times 7?", [("approve", "", "")] * 2)


def test_edit_runs_the_edited_call_and_the_log_matches_cpython(widget):
    start_session(widget, "What is 6 times 7?")
    click(widget, "edit", "calc[6 * 8]", "test an edit")
    run = click(widget, "approve")
    assert run["result"]["answer"] == "48"
    row = widget.locator(".lllm-oversight__log tbody tr").first.locator("td")
    assert [row.nth(i).text_content() for i in range(5)] == ["1", "edit", "test an edit", "calc[6 * 7]",
                                                             "calc[6 * 8] -> 48"]
    expected = cpython("What is 6 times 7?", [("edit", "calc[6 * 8]", "test an edit"), ("approve", "", "")])
    assert without_times(run["result"]) == expected


def test_inject_skip_and_quit_do_what_they_say(widget):
    start_session(widget, "What is 6 times 7?")
    run = click(widget, "inject", "99", "pretend the tool said 99")
    assert run["result"]["steps"][0].endswith("Observation: 99")
    assert widget.locator(".lllm-oversight__proposal").text_content() == "Final Answer: 99"
    run = click(widget, "skip", "", "not convinced")                   # the answer is rejected
    assert run["state"] == "waiting" and run["result"]["answer"] is None
    run = click(widget, "quit")
    assert run["state"] == "done" and run["result"]["stop_reason"] == "quit by the human"
    decisions = [("inject", "99", "pretend the tool said 99"), ("skip", "", "not convinced"), ("quit", "", "")]
    assert without_times(run["result"]) == cpython("What is 6 times 7?", decisions)
    assert widget.locator(".lllm-oversight__log tbody tr").count() == 3


def test_help_and_a_decision_that_does_not_fit_change_nothing(widget):
    before = start_session(widget, "What is 6 times 7?")["result"]
    run = click(widget, "help")
    assert run["state"] == "waiting" and "inject TEXT" in widget.locator(".lllm-oversight__help").text_content()
    run = click(widget, "edit", "not a call")
    assert run["state"] == "waiting" and run["result"]["ok"] is False
    assert widget.locator(".lllm-oversight__status").text_content().startswith("an edited tool call must be")
    assert without_times({**run["result"], "ok": True, "error": None}) == without_times({**before, "error": None})


def test_low_confidence_mode_asks_only_about_doubtful_steps(widget):
    run = start_session(widget, "What is 6 times 7?", mode="low-confidence")   # the rule brain is sure
    assert run["state"] == "done" and run["result"]["answer"] == "42" and run["result"]["interventions"] == []
    assert without_times(run["result"]) == cpython("What is 6 times 7?", [], mode="low-confidence")


def test_an_empty_goal_is_a_clear_message(widget):
    run = start_session(widget, "   ")
    assert run["state"] == "error" and run["result"]["error"] == "goal is empty: ask the agent a question"
    assert widget.locator(".lllm-oversight__status").text_content() == "goal is empty: ask the agent a question"
