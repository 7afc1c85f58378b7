"""Platform adapter · the time-travel widget's Python: `run_json(params_json) -> JSON text`, a run tree as data.

Read `lllm/timetravel/react.py` (the branches), `lllm/timetravel/runfile.py` (the run file) and
`lllm/timetravel/demos.py` (the table of demos: which run file goes to which code) first.
The time-travel widget (`site/assets/agents/timetravel.mjs`; the ReAct, memory, typed workflow,
human-in-the-loop, debate, native Agent and native Tactic pages) sends one JSON object:

    {"spec": {"inputs": {...}, "edits": [...]},     a run spec (runfile.py); its "demo" picks the demo
     "known": {...} | null,                         the record it already has (a ReAct run reuses its branches)
     "recorded": [...] | null}                      an imported file's branches, to compare with the replay

or, for a chat log from elsewhere (an OpenAI-style list of messages; `lllm/timetravel/chatlog.py`),
`{"chat": [...], "from": K | null, "brain": B | null}`, and gets `{"ok": true, "text": "..."}`: exactly
what `python -m lllm replay chat.json [--from K --brain B]` prints.

and gets back `{"ok": true, "record": {...}, "trace": "...", "differs": null | branch id, "timeline": [...]}`
— the trace is `any_trace_text(record)`, exactly what `python -m lllm replay RUN.json` prints; for a
ReAct run, the timeline (`lllm/timetravel/drilldown.py`: per branch and step, who wrote it, how many
characters, the call's time here; `replay --timeline` prints it), else null — or
`{"ok": false, "error": "one sentence naming the field"}` for a malformed spec, file or link.

Usage:

    >>> import json
    >>> out = json.loads(run_json('{"spec": {"inputs": {"goal": "What is 6 times 7?"}}}'))
    >>> out["ok"], out["record"]["branches"][0]["answer"], out["trace"].splitlines()[0]
    (True, '42', 'run: What is 6 times 7?')
    >>> print(json.loads(run_json('{"spec": {"inputs": {"goal": "Hi", "brain": "gpt"}}}'))["error"])
    field inputs.brain must be one of rule, tinyllm, tinyllm-agent, tinygpt, scripted, echo, tinyllm-yours, got 'gpt'
"""

from __future__ import annotations

import json

from lllm.timetravel.runfile import demo_of, differing_branch
from lllm.timetravel.react import travel
from lllm.timetravel.demos import any_trace_text, travel_any
from lllm.timetravel.chatlog import chat_report
from lllm.timetravel.drilldown import timeline

__all__ = ["run_json"]


def run_json(params_json: str, models: dict | None = None) -> str:
    """Compute (or extend) a run tree; bad input becomes {"ok": false, "error": ...}, never a traceback."""
    try:
        params = json.loads(params_json)
        if not isinstance(params, dict):
            raise ValueError("the widget must send a JSON object")
        if "chat" in params:
            return json.dumps({"ok": True, "text": chat_report(params["chat"], params.get("brain"), params.get("from"))})
        spec, timings = params.get("spec"), {}
        react = isinstance(spec, dict) and demo_of(spec) == "react"
        record = travel(spec, models, params.get("known"), timings=timings) if react else travel_any(spec, models, params.get("known"))
        recorded = params.get("recorded")
        differs = differing_branch(recorded, record["branches"]) if recorded is not None else None
    except json.JSONDecodeError as error:
        return json.dumps({"ok": False, "error": f"params are not valid JSON: {error.msg}"})
    except RecursionError:
        return json.dumps({"ok": False, "error": "the run nests too deeply to be a run file"})
    except ValueError as error:
        return json.dumps({"ok": False, "error": str(error)})
    return json.dumps({"ok": True, "record": record, "trace": any_trace_text(record), "differs": differs,
                       "timeline": timeline(record, timings) if react else None})
