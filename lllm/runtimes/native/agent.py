"""Layer 3 · Agent: a system prompt, an invoker and the call loop that enforces each turn's contract.

Read `dialog.py`, `prompt.py`, `handlers.py` and `invokers.py` first; `tactic.py` next.

Contract: `agent.open(alias, prompt_args)` starts a dialog with the system prompt;
`receive(text)` / `receive_prompt(prompt, args)` add a user turn; `respond()` returns the valid
assistant Message (its `.parsed` is what the governing prompt's parser returned). Inside
respond(), every step forks a working dialog from the canonical one:
  - a reply that breaks the contract (parse error, unknown tool, malformed tool call) gets a
    repair turn in the working dialog only, at most `max_exception_retry` times, then
    AgentCallError (with the session);
  - a valid reply is appended to the canonical dialog; if it calls tools, they run and each
    result is appended as a tool message (a tool's own error becomes the result text; a call
    identical to an earlier one in this respond() is answered from the record, not re-run);
  - after `max_interrupt_steps` rounds of tool calls the handler's final turn is added and the
    next reply is offered no tools.
Every respond() records an `AgentCallSession` in `agent.sessions`: each attempt (what the model
was shown, what it said), each repair, each tool call, the counts, the cost and the state.

Usage:

    >>> from lllm.runtimes.native.invokers.base import ScriptedInvoker
    >>> agent = Agent("writer", "Write one line about {topic}.", ScriptedInvoker(["Trees fork."]))
    >>> _ = agent.open("draft", prompt_args={"topic": "dialogs"})
    >>> agent.respond().content
    'Trees fork.'
    >>> agent.sessions[0].summary()
    'writer: success in 1 model call(s), 0 repair(s), 0 tool round(s), 60 tokens'
"""

from __future__ import annotations

import dataclasses
import json

from lllm.runtimes.native.core.dialog import Dialog, Message, Role
from lllm.runtimes.native.core.handlers import DefaultSimpleHandler
from lllm.runtimes.native.invokers.base import Cost, InvokeResult
from lllm.runtimes.native.core.parsers import ParseError
from lllm.runtimes.native.core.prompt import Prompt
from lllm.runtimes.native.core.tools import FunctionCall, ToolError, result_text

__all__ = ["Agent", "AgentCallSession", "AgentCallError", "Step"]

TEXT_PROMPT = Prompt(path="text", prompt="{text}")   # governs a plain-text turn: any reply is valid


# ---- the session: everything one respond() did --------------------------------------------------

@dataclasses.dataclass
class Step:
    kind: str                        # "reply" | "repair" | "tool" | "final_turn"
    shown: str = ""                  # what the model was shown (the flat prompt or request)
    reply: str = ""
    error: str = ""
    call: FunctionCall | None = None


@dataclasses.dataclass
class AgentCallSession:
    agent: str
    dialog_id: str
    steps: list = dataclasses.field(default_factory=list)
    delivery: Message | None = None
    state: str = "running"           # "running" | "success" | "failed"
    repairs: int = 0
    interrupts: int = 0
    cost: Cost = dataclasses.field(default_factory=Cost)
    records: dict = dataclasses.field(default_factory=dict, repr=False)  # call key -> first FunctionCall

    @property
    def tool_calls(self) -> list[FunctionCall]:
        return [s.call for s in self.steps if s.kind == "tool"]

    def summary(self) -> str:
        return (f"{self.agent}: {self.state} in {self.cost.calls} model call(s), {self.repairs} repair(s), "
                f"{self.interrupts} tool round(s), {self.cost.total_tokens} tokens")


class AgentCallError(RuntimeError):
    """The model never produced a valid reply within max_exception_retry repairs; `.session` has the trace."""

    def __init__(self, message: str, session: AgentCallSession):
        super().__init__(message)
        self.session = session


# ---- the agent ---------------------------------------------------------------------------------------

class Agent:
    def __init__(self, name: str, system_prompt, invoker=None, *, model_name: str = "", model_args: dict | None = None,
                 max_exception_retry: int = 3, max_interrupt_steps: int = 5, handler=None, session_log: list | None = None,
                 model: str | None = None, llm_invoker=None):
        invoker = invoker if invoker is not None else llm_invoker      # lllm-core's names: model=, llm_invoker=
        model_name = model if model is not None else model_name
        if invoker is None:
            raise TypeError(f"agent {name!r} needs an invoker (Agent(name, system_prompt, invoker) or llm_invoker=...)")
        if isinstance(system_prompt, str):
            system_prompt = Prompt(path=f"{name}/system", prompt=system_prompt)
        if not isinstance(system_prompt, Prompt):
            raise TypeError(f"agent {name!r}: system_prompt must be a Prompt or a string, got {type(system_prompt).__name__}")
        for field, value in (("max_exception_retry", max_exception_retry), ("max_interrupt_steps", max_interrupt_steps)):
            if not isinstance(value, int) or value < 0:
                raise ValueError(f"agent {name!r}: {field} must be a non-negative integer, got {value!r}")
        self.name, self.system_prompt, self.invoker = name, system_prompt, invoker
        self.model_name, self.model_args = model_name, dict(model_args or {})
        self.max_exception_retry, self.max_interrupt_steps = max_exception_retry, max_interrupt_steps
        self.handler = handler or DefaultSimpleHandler()
        self.dialogs: dict[str, Dialog] = {}
        self.current: str | None = None
        self.sessions: list[AgentCallSession] = [] if session_log is None else session_log

    # ---- building the dialog ---------------------------------------------------------------------------

    def open(self, alias: str, prompt_args: dict | None = None) -> Dialog:
        """Start dialog `alias` with the system prompt (rendered with `prompt_args`) and make it current."""
        dialog = Dialog(owner=f"{self.name}.{alias}")
        dialog.put_prompt(self.system_prompt, prompt_args, role=Role.SYSTEM, name="system")
        self.dialogs[alias], self.current = dialog, alias
        return dialog

    def receive(self, text: str, name: str = "user", alias: str | None = None) -> Message:
        return self.dialog(alias).put_text(text, name=name)

    def receive_prompt(self, prompt: Prompt, prompt_args: dict | None = None, name: str = "user",
                       alias: str | None = None) -> Message:
        return self.dialog(alias).put_prompt(prompt, prompt_args, name=name)

    def fork(self, src_alias: str, dst_alias: str, last_n: int | None = None, first_k: int | None = None) -> Dialog:
        """Fork dialog `src_alias` into `dst_alias` (see Dialog.fork) and make the fork current."""
        child = self.dialog(src_alias).fork(last_n=last_n, first_k=first_k)
        self.dialogs[dst_alias], self.current = child, dst_alias
        return child

    @property
    def active_alias(self) -> str | None:
        return self.current

    @property
    def current_dialog(self) -> Dialog:
        return self.dialog()

    def dialog(self, alias: str | None = None) -> Dialog:
        alias = alias or self.current
        if alias not in self.dialogs:
            raise KeyError(f"agent {self.name!r} has no dialog {alias!r}: call open({alias!r}) first "
                           f"(open: {sorted(self.dialogs)})")
        return self.dialogs[alias]

    # ---- the call loop ---------------------------------------------------------------------------------

    # --8<-- [start:respond]
    def respond(self, alias: str | None = None, return_session: bool = False):
        dialog = self.dialog(alias)
        session = AgentCallSession(self.name, dialog.id)
        self.sessions.append(session)
        while True:
            final = session.interrupts >= self.max_interrupt_steps
            reply = self._call_until_valid(dialog.fork(), session, final)   # think (repairs stay in the fork)
            dialog.put_message(reply)                                       # the canonical record
            if not reply.function_calls:                                    # stop
                session.delivery, session.state = reply, "success"
                return (reply, session) if return_session else reply
            self._run_tools(dialog, reply, session)                         # act, observe
            session.interrupts += 1
            if session.interrupts >= self.max_interrupt_steps:              # last turn: no more tools
                final_prompt = self._handler(dialog).on_interrupt_final(self._governing(dialog))
                dialog.put_prompt(final_prompt)
                session.steps.append(Step("final_turn", reply=final_prompt()))
    # --8<-- [end:respond]

    # --8<-- [start:call_until_valid]
    def _call_until_valid(self, working: Dialog, session: AgentCallSession, final: bool) -> Message:
        """Call the model until a reply satisfies the governing prompt; repairs go into `working`."""
        contract, handler = self._governing(working), self._handler(working)
        functions = [] if final else working.offered_functions()
        for attempt in range(self.max_exception_retry + 1):
            prompt = self._governing(working)
            result = self.invoker(list(working.messages), functions, prompt.format_schema(),
                                  self.model_name, self.model_args)
            session.cost = session.cost + result.usage
            reply, error = self._check(result, prompt, functions)
            session.steps.append(Step("reply", result.shown, result.message.content, error or ""))
            if error is None:
                return reply
            if attempt == self.max_exception_retry:
                break
            session.repairs += 1
            repair = handler.on_exception(contract)
            working.put_message(result.message)
            text = working.put_prompt(repair, _available(repair, error_message=error.rstrip("."))).content
            session.steps.append(Step("repair", reply=text))
        session.state = "failed"
        raise AgentCallError(f"agent {self.name!r}: no valid reply to prompt {contract.path!r} after "
                             f"{self.max_exception_retry} repair(s); last error: {error}", session)
    # --8<-- [end:call_until_valid]

    def _check(self, result: InvokeResult, prompt: Prompt, functions) -> tuple[Message, str | None]:
        """The reply with `.parsed` filled in, and what is wrong with it (None when it is valid)."""
        message = result.message
        if result.error:
            return message, result.error
        names = [f.name for f in functions]
        unknown = [c.name for c in message.function_calls if c.name not in names]
        if unknown:
            offer = f"available tools: {', '.join(names)}" if names else "no tools are available now"
            return message, f"Unknown tool {unknown[0]!r}; {offer}"
        if message.function_calls:
            return message.model_copy(update={"prompt_path": prompt.path, "usage": dataclasses.asdict(result.usage)}), None
        try:
            parsed = prompt.parse(message.content)
        except ParseError as exc:
            return message, str(exc)
        return message.model_copy(update={"parsed": parsed, "prompt_path": prompt.path,
                                          "usage": dataclasses.asdict(result.usage)}), None

    def _governing(self, dialog: Dialog) -> Prompt:
        return dialog.governing_prompt() or TEXT_PROMPT

    def _handler(self, dialog: Dialog):
        prompt = dialog.governing_prompt()
        return getattr(prompt, "handler", None) or self.system_prompt.handler or self.handler

    # ---- running tools ---------------------------------------------------------------------------------

    # --8<-- [start:run_tools]
    def _run_tools(self, dialog: Dialog, reply: Message, session: AgentCallSession) -> None:
        """Run each requested call (or answer a repeat from the record) and append its result."""
        functions = {f.name: f for f in dialog.offered_functions()}
        observation = self._handler(dialog).on_interrupt(self._governing(dialog))
        for call in reply.function_calls:
            record = self._execute(functions[call.name], call, session)
            session.steps.append(Step("tool", call=record, error=record.error_message or ""))
            text = _render(observation, name=call.name, arguments=json.dumps(call.arguments), result=record.result_str)
            dialog.put_message(Message(Role.TOOL, text, name=call.name, call_id=call.id,
                                       prompt_path=observation.path))
    # --8<-- [end:run_tools]

    def _execute(self, function, call: FunctionCall, session: AgentCallSession) -> FunctionCall:
        earlier = session.records.get(call.key())
        if earlier is not None:                       # the repeated-call guard: never re-run
            note = f"{earlier.result_str} (repeated call: same result as before)"
            return call.model_copy(update={"result": earlier.result, "result_str": note, "success": earlier.success,
                                           "error_message": earlier.error_message, "cached": True})
        if not function.is_bound:
            raise ToolError(f"agent {self.name!r}: tool {function.name!r} is declared but not bound; "
                            f"bind it with Prompt.bind_tools() or a package's tools/ folder")
        record = function.run_call(call)              # a tool error becomes error_message, never a crash
        if record.success:                            # the model reads the value itself, not the banner
            record.result_str = result_text(record.result)
        session.records[call.key()] = record
        return record

    def __repr__(self) -> str:
        return f"Agent({self.name!r}, dialogs={sorted(self.dialogs)})"


def _available(prompt: Prompt, **values) -> dict:
    """The values a handler's template uses (a handler's template may use any subset of them)."""
    return {k: v for k, v in values.items() if k in prompt.variables}


def _render(prompt: Prompt, **values) -> str:
    return prompt(**_available(prompt, **values))
