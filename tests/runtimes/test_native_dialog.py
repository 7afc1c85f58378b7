"""Dialogs: append-only, fork without touching the parent, one tree, a JSON round trip."""

import json

import pytest

from lllm.runtimes.native import Dialog, FunctionCall, Message, Prompt, Role

SYSTEM = Prompt(path="sys", prompt="You are {who}.")


def three_messages():
    dialog = Dialog(owner="d")
    dialog.put_prompt(SYSTEM, {"who": "kind"}, role=Role.SYSTEM, name="system")
    dialog.put_text("one")
    dialog.put_text("two")
    return dialog


def test_fork_keeps_first_k_and_last_n_and_never_touches_the_parent():
    dialog = three_messages()
    assert [m.content for m in dialog.fork(first_k=1, last_n=1).messages] == ["You are kind.", "two"]
    assert [m.content for m in dialog.fork(first_k=2, last_n=2).messages] == ["You are kind.", "one", "two"]
    assert [m.content for m in dialog.fork(last_n=0, first_k=0).messages] == []
    child = dialog.fork()
    child.put_text("three")
    assert len(dialog.messages) == 3 and len(child.messages) == 4
    assert child.system_prompt is SYSTEM and child.parent is dialog
    with pytest.raises(ValueError, match="fork\\(last_n=...\\) must be a non-negative integer, got -1"):
        dialog.fork(last_n=-1)


def test_messages_cannot_be_edited_from_outside():
    dialog = three_messages()
    with pytest.raises(AttributeError):
        dialog.messages.append(Message(Role.USER, "sneaky"))
    with pytest.raises(Exception):
        dialog.messages[0].content = "changed"


def test_the_tree_knows_every_fork():
    root = three_messages()
    a = root.fork(last_n=1)
    b = root.fork()
    a.fork().put_text("deep")
    assert [c.id for c in root.children] == [a.id, b.id]
    assert b.tree_overview() == ("d-0: 3 messages\n"
                                 "`-- d-1: 1 messages, forked at 3 (first_k=None, last_n=1)\n"
                                 "    `-- d-3: 2 messages, forked at 1\n"
                                 "`-- d-2: 3 messages, forked at 3")
    assert 'd_0 -->|"fork at 3"| d_1' in root.to_mermaid()


def test_the_whole_tree_round_trips_through_json():
    root = three_messages()
    branch = root.fork(first_k=1)
    branch.put_message(Message(Role.ASSISTANT, "", function_calls=(FunctionCall(name="calc", arguments={"x": "1"}, id="c0"),)))
    branch.put_message(Message(Role.TOOL, "1", name="calc", call_id="c0"))
    data = json.loads(json.dumps(branch.to_dict()))
    loaded = Dialog.from_dict(data, prompts={"sys": SYSTEM})
    assert loaded.id == branch.id and loaded.parent.id == root.id
    assert loaded.messages == branch.messages
    assert loaded.parent.messages == root.messages
    assert loaded.system_prompt is SYSTEM
    assert loaded.to_dict() == branch.to_dict()


def test_the_governing_prompt_rule():
    dialog = three_messages()
    assert dialog.governing_prompt() is None               # put_text cleared it
    turn = Prompt(path="turn", prompt="Q")
    dialog.put_prompt(turn)
    assert dialog.governing_prompt() is turn
    dialog.put_message(Message(Role.ASSISTANT, "A"))       # replies do not change it
    assert dialog.governing_prompt() is turn


def test_bad_input_names_the_dialog():
    with pytest.raises(TypeError, match="dialog d-0: put_text expects a string, got int"):
        Dialog(owner="d").put_text(5)
