"""Layer 3 · the native runtime's core: what an Agent's turn is made of, below the objects that run it.

Read in this order: parsers -> tools -> prompt -> handlers -> dialog -> chat_format -> config;
schemas and costs are the records they pass around. The invokers (`../invokers/`) and proxies
(`../proxies/`) are built from these; the Agent, Tactic and Runtime (`../agent.py`,
`../tactic.py`, `../runtime.py`) put all of them together.

Usage:

    >>> from lllm.runtimes.native.core.dialog import Dialog
    >>> Dialog(owner="me").put_text("hello").content
    'hello'
"""
