"""A dialog's fork tree as lines and nodes (lllm/runtimes/native/dialog_tree.py): read from the real
Dialog objects, split points in words, parents before children, nothing changed."""

import json

from lllm.runtimes.native.core.dialog import Dialog
from lllm.runtimes.native.dialog_tree import dialog_tree_json, dialog_tree_nodes, format_dialog_tree


def planner():
    root = Dialog(owner="planner")
    root.put_text("You plan releases.", name="system")
    root.put_text("Plan the next release.")
    branch = root.fork(last_n=1, first_k=1)
    branch.put_text("Assume the deadline moved up a week.")
    deeper = branch.fork()
    other = root.fork()
    return root, branch, deeper, other


def test_every_dialog_once_root_first_with_its_split_point():
    root, branch, deeper, other = planner()
    nodes = dialog_tree_nodes(deeper)
    assert [n["id"] for n in nodes] == ["planner-0", "planner-1", "planner-2", "planner-3"]
    assert [n["parent"] for n in nodes] == [None, "planner-0", "planner-1", "planner-0"]
    assert [n["depth"] for n in nodes] == [0, 1, 2, 1]
    assert [n["split_point"] for n in nodes] == [None, 2, 3, 2]
    assert [n["current"] for n in nodes] == [False, False, True, False]
    assert nodes[1]["label"] == ("planner-1: 3 messages | split from planner-0 after message 2, kept the first 1 and "
                                 "the last 1 | last: user user: Assume the deadline moved up a week.")
    assert nodes[3]["label"].startswith("planner-3: 2 messages | split from planner-0 after message 2, kept all")
    assert nodes[2]["label"].endswith("| this dialog")


def test_the_text_is_the_labels_indented_and_reading_changes_nothing():
    root, branch, deeper, other = planner()
    before = root.to_dict()
    lines = format_dialog_tree(root).splitlines()
    assert [line.strip() for line in lines] == [n["label"] for n in dialog_tree_nodes(root)]
    assert [len(line) - len(line.lstrip()) for line in lines] == [0, 2, 4, 2]
    assert root.to_dict() == before


def test_long_messages_are_cut_and_the_page_gets_json():
    root = Dialog(owner="a")
    root.put_text("word " * 40)
    label = dialog_tree_nodes(root)[0]["label"]
    last = label.split("last: user user: ")[1].removesuffix(" | this dialog")
    assert last.endswith("…") and len(last) == 60
    assert json.loads(dialog_tree_json(root))["nodes"][0]["label"] == label
    assert json.loads(dialog_tree_json(None)) == {"ok": False, "error": "there is no dialog named `dialog` yet: run the cell above first"}


def test_the_agent_loop_forks_one_working_dialog_per_model_call():
    from lllm.runtimes.native import ScriptedInvoker
    from lllm.runtimes.native.agent import Agent
    from lllm.runtimes.native.core.prompt import Prompt
    from lllm.runtimes.native.core.tools import tool

    @tool(description="Add two numbers")
    def add(a: int, b: int) -> str:
        return str(a + b)

    call = {"content": "", "function_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}]}
    agent = Agent("solver", Prompt(path="solver/system", prompt="You add.", function_list=[add]),
                  ScriptedInvoker([call, "It is 5."]))
    agent.open("main")
    agent.receive("What is 2 + 3?")
    agent.respond()
    nodes = dialog_tree_nodes(agent.dialog("main"))
    assert [s.kind for s in agent.sessions[0].steps] == ["reply", "tool", "reply"]
    assert [n["depth"] for n in nodes] == [0, 1, 1]                 # one working fork per model call
    assert [n["split_point"] for n in nodes] == [None, 2, 4]       # after the question; after the tool's answer
    assert nodes[2]["label"].endswith("| last: tool add: 5")
    assert nodes[0]["label"] == "solver.main-0: 5 messages | the root | last: assistant: It is 5. | this dialog"
