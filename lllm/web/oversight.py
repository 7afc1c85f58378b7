"""Platform adapter · the human-in-the-loop page's buttons: `start(...)` and `decide_json(session, ...)` -> JSON text.

Read `human_in_loop.py` first. This module adds no oversight logic: it drives an
`OversightSession` through its step API (`next()` / `decide()`) and returns the session's state
as JSON, so the page's widget (`site/assets/agents/oversight.mjs`) can draw the pending proposal,
the trajectory and the intervention log. The page keeps the session in its Python namespace
between button clicks; each click is one small `lllm.run` call:

    session = start("What is 6 times 7?")          # the rule brain; paused before the first tool call
    print(state_json(session))                      # {"ok": true, "pending": {...}, ...}
    print(decide_json(session, "edit", "calc[6 * 8]"))

A decision that does not fit the step (inject on a final answer, edit without text) comes back
as `{"ok": false, "error": "a clear sentence", ...the unchanged state}`: nothing is applied.

Usage:

    >>> import json
    >>> session = start("What is 6 times 7?", clock=lambda: 0.0)
    >>> json.loads(state_json(session))["pending"]["describe"]
    'calc[6 * 7]'
    >>> json.loads(decide_json(session, "inject", "99"))["pending"]["describe"]
    'Final Answer: 99'
    >>> json.loads(decide_json(session, "inject", "1"))["error"]
    'inject fits a tool call, not a final answer'
    >>> out = json.loads(decide_json(session, "approve"))
    >>> out["answer"], [i["action"] for i in out["interventions"]]
    ('99', ['inject', 'approve'])
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from typing import Callable

from lllm.predictors import RulePredictor
from lllm.labs.human_in_loop import HELP, OversightSession

__all__ = ["start", "state", "state_json", "decide_json"]


def start(goal: str, mode: str = "approve", max_steps: int = 5,
          clock: Callable[[], float] = time.time) -> OversightSession:
    """A session over the rule brain, advanced to its first pending proposal (or to its end)."""
    session = OversightSession(goal, RulePredictor(), mode=mode, max_steps=max_steps, clock=clock)
    session.next()
    return session


def state(session: OversightSession) -> dict:
    """What the page draws: the pending proposal, the steps so far, the log, the summary."""
    p = session.pending
    pending = None if p is None else {
        "step": p.step, "describe": p.describe(), "thought": p.thought,
        "kind": "tool call" if p.action else "final answer", "confidence": p.confidence}
    return {"ok": True, "goal": session.goal, "mode": session.mode, "pending": pending,
            "steps": [s.render() for s in session.steps],
            "interventions": [asdict(i) for i in session.interventions],
            "answer": session.answer, "stop_reason": session.stop_reason, "done": session.done,
            "summary": session.summary()}


def state_json(session: OversightSession) -> str:
    return json.dumps(state(session))


def decide_json(session: OversightSession, action: str, text: str = "", reason: str = "") -> str:
    """Apply one decision, advance to the next proposal; a decision that does not fit is an error."""
    try:
        session.decide(action, text, reason)
    except ValueError as error:
        return json.dumps({**state(session), "ok": False, "error": str(error)})
    session.next()
    return json.dumps({**state(session), "help": HELP} if action == "help" else state(session))
