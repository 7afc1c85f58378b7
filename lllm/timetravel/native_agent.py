"""Layer 4 · time travel for a native Agent: `travel_agent(spec) -> record`, each branch a fork of the run's Dialog.

Read `lllm/runtimes/native/agent.py` (respond), `core/dialog.py` (Dialog.fork, DialogTreeNode),
`dialog_tree.py` and `native_spec.py` first; `tactic.py` does the same for a Tactic. Branch 1 is the run: an
Agent with the calc and lookup tools opens a dialog, receives the goal and responds. Its steps are
the messages of that dialog — the system prompt, the user's goal, the model's replies, the tool
results — each kept with what the model saw and wrote (the flat prompt, the raw text, what was
parsed, the repairs). An edit of message k of an earlier branch is made with the runtime's own
machinery: `agent.fork(parent, child, first_k=k - 1)` (Dialog.fork: the child keeps the first k - 1
messages, and its DialogTreeNode records the split point), then the edited message (with the
non-model messages right after it: the goal after the system prompt, the other results of the same
tool calls), then `respond()` goes on. An edited reply is handed to the Agent as the model's answer
to the next call, so the loop checks it, runs its tools and goes on exactly as it would have.
So the branches are dialogs of one DialogTree, and the tree drawn is the runtime's (`dialog_tree_nodes`).

Two honest differences from one long respond(): the continuation's tool-round count starts from the
rounds the kept messages already used, and its repeated-call guard forgets the calls made before the fork.

Usage:

    >>> spec = {"version": 2, "demo": "native-agent", "inputs": {"goal": "What is 17 * 23?"},
    ...         "edits": [{"parent": 1, "step": 4, "content": "400"}]}
    >>> record = travel_agent(spec)
    >>> [[s["content"] for s in b["steps"]][3] for b in record["branches"]]
    ['391', '400']
    >>> [n["label"].split(" | ")[1] for n in record["tree"]]
    ['the root', 'split from solver.main-0 after message 5, kept the first 3']
    >>> native_first_difference(record["branches"][0], record["branches"][1])
    4
"""

from __future__ import annotations

from lllm.timetravel.runfile import first_difference as parted, run_record, shown
from lllm.timetravel.react import sampling_text, step_brains
from lllm.runtimes.native.agent import Agent, AgentCallError
from lllm.runtimes.native.core.dialog import Message, Role
from lllm.runtimes.native.core.prompt import Prompt
from lllm.runtimes.native.dialog_tree import dialog_tree_nodes
from lllm.runtimes.native.invokers.base import PredictorInvoker
from lllm.timetravel.tactic import reply_text
from lllm.timetravel.native_spec import MAX_NEW_TOKENS, call_records, check_native_spec, native_tools
from lllm.timetravel.seam import Seam

__all__ = ["travel_agent", "agent_trace_text", "native_first_difference"]

STEP_KEYS = ("role", "name", "content", "calls")     # what makes two messages different


def _agent(inputs: dict, predictor: Seam) -> Agent:
    text = inputs["system"].replace("{", "{{").replace("}", "}}")       # the reader's text, not a template
    system = Prompt(path="solver/system", prompt=text, function_list=native_tools())
    return Agent("solver", system, PredictorInvoker(predictor, MAX_NEW_TOKENS), max_exception_retry=2,
                 max_interrupt_steps=inputs["max_steps"])


def _given(message: Message, source: str) -> dict:
    """A message nobody asked the model for (the inputs, a tool result, the handler's last turn)."""
    return {"role": message.role.value, "name": message.name, "content": message.content,
            "calls": [{"name": c.name, "arguments": c.arguments} for c in message.function_calls],
            "source": source, "call": None, "prompt": None, "raw": None, "parsed": message.parsed, "repairs": []}


def _responded(agent: Agent, dialog, before: int, predictor: Seam) -> tuple[list[dict], str | None, str]:
    """respond() on `dialog`, and its new messages as steps, each reply with the call(s) behind it."""
    try:
        agent.respond()
        stop, answer = "final reply", dialog.tail.content
    except AgentCallError as error:
        stop, answer = f"no valid reply: {error}", None
    calls = iter(zip(call_records(predictor), [s for s in agent.sessions[-1].steps if s.kind == "reply"]))
    steps = []
    for message in dialog.messages[before:]:
        if message.role is not Role.ASSISTANT:
            steps.append(_given(message, "tool" if message.role is Role.TOOL else "handler"))
            continue
        repairs = []
        for call, attempt in calls:
            if attempt.error:                                  # a repair turn, kept in the working fork
                repairs.append({"call": call["call"], "raw": call["raw"], "error": attempt.error})
                continue
            steps.append(_given(message, call["source"]) | {"call": call["call"], "prompt": call["prompt"],
                                                            "raw": call["raw"], "repairs": repairs})
            break
    return steps, answer, stop


def _governing(messages, prompts: dict):
    """The prompt a dialog with these messages is governed by (put_text clears it, put_prompt sets it)."""
    top = None
    for m in messages:
        if m.role in (Role.SYSTEM, Role.USER):
            top = prompts.get(m.prompt_path) if m.prompt_path else None
    return top


def _branch(n: int, inputs: dict, brain_for, parent: tuple | None, edit: dict | None, where: str):
    """Branch n: the run (no parent), or a fork of the parent's dialog at the edited message."""
    if parent is None:
        predictor = Seam(brain_for)
        agent = _agent(inputs, predictor)
        dialog = agent.open("main")
        agent.receive(inputs["goal"])
        steps = [_given(m, "input") for m in dialog.messages]
    else:
        p_dialog, p_steps = parent
        k = edit["step"]
        if k > len(p_steps):
            raise ValueError(f"field {where}.step is {k}, but branch {edit['parent']} has {len(p_steps)} message(s)")
        target, calls_before = p_dialog.messages[k - 1], sum(1 + len(s["repairs"]) for s in p_steps[:k - 1] if s["call"])
        model_turn = target.role is Role.ASSISTANT
        predictor = Seam(brain_for, {calls_before + 1: edit["content"]} if model_turn else {}, first=calls_before + 1)
        agent = _agent(inputs, predictor)
        # --8<-- [start:fork]
        agent.dialogs["parent"] = p_dialog
        dialog = agent.fork("parent", f"branch {n}", first_k=k - 1)      # the runtime's split point
        steps = [dict(s) for s in p_steps[:k - 1]]
        if not model_turn:                                               # a reply is the model's next answer
            dialog.put_message(target.model_copy(update={"content": edit["content"]}))
            steps.append(_given(dialog.tail, "edited"))
            for m, s in zip(p_dialog.messages[k:], p_steps[k:]):        # the goal, the same calls' results
                if m.role is Role.ASSISTANT:
                    break
                steps.append(dict(s))
                dialog.put_message(m)
        # --8<-- [end:fork]
        dialog.top_prompt = _governing(dialog.messages, {p_dialog.system_prompt.path: p_dialog.system_prompt})
        rounds = sum(1 for m in dialog.messages if m.function_calls)
        agent.max_interrupt_steps = max(inputs["max_steps"] - rounds, 0)
    new, answer, stop = _responded(agent, dialog, len(steps), predictor)
    return dialog, steps + new, answer, stop


def travel_agent(spec: dict, models: dict | None = None) -> dict:
    """The record of a native Agent run spec: branch 1 and one fork per edit, all in one DialogTree."""
    demo, inputs, edits = check_native_spec(spec)
    if demo != "native-agent":
        raise ValueError(f"field demo must be 'native-agent' for an Agent run, got {shown(demo)}")
    brain_for = step_brains(inputs["brain"], inputs["seed"], inputs["temperature"], inputs["script"], models)
    branches = [_branch(1, inputs, brain_for, None, None, "")]
    for i, edit in enumerate(edits):
        parent = branches[edit["parent"] - 1]
        branches.append(_branch(i + 2, inputs, brain_for, parent[:2], edit, f"edits[{i}]"))
    ids = {b[0].id: n for n, b in enumerate(branches, start=1)}
    tree = [node | {"branch": ids[node["id"]]} for node in dialog_tree_nodes(branches[-1][0]) if node["id"] in ids]
    return run_record(demo, inputs, edits, [{"dialog": dialog.id, "goal": steps[1]["content"] if len(steps) > 1 else "",
                                             "steps": steps, "answer": answer, "stop_reason": stop}
                                            for dialog, steps, answer, stop in branches], tree=tree)


# ---- comparing, and the trace the page and `python -m lllm replay` print ---------------------------

def native_first_difference(a: dict, b: dict) -> int | None:
    """The first step (1-based) where two recorded branches differ, or None when they are the same."""
    keys = STEP_KEYS if a["steps"] and "role" in a["steps"][0] else ("agent", "raw", "content", "calls", "error")
    return parted(a["steps"], b["steps"], lambda step: [step.get(k) for k in keys])


def _lines(text: str, indent: str) -> list[str]:
    first, *rest = (text or "(empty)").split("\n")
    return [first] + [indent + line for line in rest]


def agent_trace_text(record: dict) -> str:
    """The run as text: each branch's messages, its end, then the dialog tree with the split points."""
    i = record["inputs"]
    out = [f"native agent run: {i['goal']}", f"brain {i['brain']}{sampling_text(i)}, max tool rounds {i['max_steps']}"]
    for b in record["branches"]:
        e = b["edit"]
        out.append(f"== branch 1: the run ({b['dialog']})" if e is None else
                   f"== branch {b['id']}: from branch {e['parent']}, message {e['step']} edited ({b['dialog']})")
        for n, s in enumerate(b["steps"], start=1):
            for r in s["repairs"]:
                out.append(f"  repair (call {r['call']}): {r['raw']!r} -> {r['error']}")
            who = s["role"] if s["name"] in ("", s["role"]) else f"{s['role']} {s['name']}"
            call = f", call {s['call']}" if s["call"] else ""
            text = reply_text(s["content"], s["calls"]) if s["role"] == "assistant" else s["content"]
            out += [f"  step {n} ({s['source']}{call}) {who}: " + "\n".join(_lines(text, "      "))]
        out.append("answer: " + "\n".join(_lines(b["answer"], "  ")) if b["answer"] is not None else f"no answer ({b['stop_reason']})")
    out.append("dialog tree (the branches' dialogs; the loop's working forks are left out):")
    out += ["  " * n["depth"] + f"branch {n['branch']}: " + n["label"].removesuffix(" | this dialog") for n in record["tree"]]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(agent_trace_text(travel_agent({"version": 2, "demo": "native-agent", "inputs": {"goal": "What is 17 * 23?"},
                                         "edits": [{"parent": 1, "step": 4, "content": "400"}]})), end="")
