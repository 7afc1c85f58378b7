"""Layer 3 · the native runtime's core: the four objects and what they are made of.

Read in this order: parsers -> tools -> prompt -> handlers -> dialog -> chat_format -> agent ->
tactic -> config -> agent_config -> runtime; schemas and costs are the records they pass around.
The model behind an Agent is an invoker (`../invokers/`).

Usage:

    >>> from lllm.runtimes.native.core.dialog import Dialog
    >>> Dialog(owner="me").put_text("hello").content
    'hello'
"""
