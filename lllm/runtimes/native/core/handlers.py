"""Layer 3 · handlers: what the agent says next when a reply breaks the contract or calls a tool.

Read `prompt.py` first. A handler never talks to the model itself: each method returns the Prompt
the agent loop renders and appends to the dialog. Returning a whole Prompt (not just text) lets a
handler change the contract of the next turn: its parser, format and tools.

Contract (every method returns a Prompt):
    on_exception(prompt)        -> the repair turn; rendered with {error_message}
    on_interrupt(prompt)        -> the content of one tool-result message; rendered with
                                   {name}, {arguments}, {result}
    on_interrupt_final(prompt)  -> the last turn when max_interrupt_steps is reached (no variables)
`prompt` is the prompt that governs the turn (see Dialog.governing_prompt).

Usage:

    >>> from lllm.runtimes.native.core.prompt import Prompt
    >>> turn = Prompt(path="math/solve", prompt="Solve: {question}")
    >>> repair = DefaultSimpleHandler().on_exception(turn)
    >>> repair.path, repair(error_message="Missing required tag <answer>...</answer>")
    ('math/solve/exception', 'Error: Missing required tag <answer>...</answer>. Please fix.')
"""

from __future__ import annotations

__all__ = ["BaseHandler", "DefaultSimpleHandler", "EXCEPTION_PROMPT", "INTERRUPT_PROMPT", "INTERRUPT_FINAL_PROMPT"]

# --8<-- [start:templates]
EXCEPTION_PROMPT = "Error: {error_message}. Please fix."
INTERRUPT_PROMPT = "{result}"
INTERRUPT_FINAL_PROMPT = "You have used all your tool calls. Give your final answer now, without calling any tool."
# --8<-- [end:templates]


class BaseHandler:
    """Subclass and override any method; each returns a Prompt (see the module docstring)."""

    def on_exception(self, prompt):
        raise NotImplementedError

    def on_interrupt(self, prompt):
        raise NotImplementedError

    def on_interrupt_final(self, prompt):
        raise NotImplementedError


# --8<-- [start:default]
class DefaultSimpleHandler(BaseHandler):
    """Repairs and tool results keep the governing prompt's parser and format; the final turn offers no tools."""

    def __init__(self, exception_prompt=EXCEPTION_PROMPT, interrupt_prompt=INTERRUPT_PROMPT,
                 interrupt_final_prompt=INTERRUPT_FINAL_PROMPT):
        self.exception_prompt = exception_prompt
        self.interrupt_prompt = interrupt_prompt
        self.interrupt_final_prompt = interrupt_final_prompt

    def on_exception(self, prompt):
        return prompt.extend(path=f"{prompt.path}/exception", prompt=self.exception_prompt)

    def on_interrupt(self, prompt):
        return prompt.extend(path=f"{prompt.path}/interrupt", prompt=self.interrupt_prompt)

    def on_interrupt_final(self, prompt):
        return prompt.extend(path=f"{prompt.path}/interrupt_final", prompt=self.interrupt_final_prompt,
                             function_list=())
# --8<-- [end:default]
