"""Layer 3 · a dialog's fork tree as lines to print and nodes to draw, with each split point said in words.

Read `core/dialog.py` first (Dialog.fork, DialogTreeNode). `Dialog.tree_overview()` is lllm-core's
own text; this module reads the same real objects (it changes nothing) and gives every dialog of
the tree one label — how many messages it holds, where it split from its parent (the parent's
message count at the fork, and `first_k` / `last_n` when it kept only some), and its last message
— so the terminal (`format_dialog_tree`) and the native pages' tree widget
(`dialog_tree_json`, drawn by site/assets/native/dialog-tree.mjs) show the same lines.

Usage:

    >>> from lllm.runtimes.native.core.dialog import Dialog
    >>> root = Dialog(owner="planner")
    >>> _ = root.put_text("Plan the release.", name="user")
    >>> _ = root.put_text("Ship on Friday.", name="lead")
    >>> branch = root.fork(last_n=1)
    >>> _ = branch.put_text("What if it slips?", name="user")
    >>> print(format_dialog_tree(branch))
    planner-0: 2 messages | the root | last: user lead: Ship on Friday.
      planner-1: 2 messages | split from planner-0 after message 2, kept the last 1 | last: user user: What if it slips? | this dialog
"""

from __future__ import annotations

import json

from lllm.runtimes.native.core.dialog import Dialog

__all__ = ["dialog_tree_nodes", "format_dialog_tree", "dialog_tree_json"]

CUT = 60          # characters of the last message shown


def _root(dialog: Dialog) -> Dialog:
    while dialog.parent is not None:
        dialog = dialog.parent
    return dialog


def _split(dialog: Dialog) -> str:
    node = dialog.node
    if node.parent_id is None:
        return "the root"
    text = f"split from {node.parent_id} after message {node.split_point}"
    kept = [f"the first {node.first_k}" if node.first_k is not None else "",
            f"the last {node.last_n}" if node.last_n is not None else ""]
    kept = [k for k in kept if k]
    return text + (f", kept {' and '.join(kept)}" if kept else ", kept all")


def _label(dialog: Dialog, current: Dialog) -> str:
    parts = [f"{dialog.id}: {len(dialog.messages)} messages", _split(dialog)]
    if dialog.tail is not None:
        last = " ".join(dialog.tail.content.split())
        last = last if len(last) <= CUT else last[:CUT - 1] + "…"
        who = " ".join(w for w in (dialog.tail.role.value, dialog.tail.name) if w)     # a reply may have no name
        parts.append(f"last: {who}: {last}")
    if dialog is current:
        parts.append("this dialog")
    return " | ".join(parts)


def dialog_tree_nodes(dialog: Dialog) -> list[dict]:
    """Every dialog of `dialog`'s tree, root first, each parent before its children (forks in order)."""
    out: list[dict] = []

    def walk(d: Dialog, depth: int) -> None:
        out.append({"id": d.id, "parent": d.node.parent_id, "depth": depth, "split_point": d.node.split_point,
                    "messages": len(d.messages), "current": d is dialog, "label": _label(d, dialog)})
        for child in d.children:
            walk(child, depth + 1)

    walk(_root(dialog), 0)
    return out


def format_dialog_tree(dialog: Dialog) -> str:
    """The tree as indented lines, two spaces a level: what the page's tree widget shows."""
    return "\n".join("  " * n["depth"] + n["label"] for n in dialog_tree_nodes(dialog))


def dialog_tree_json(dialog) -> str:
    """JSON for the page: {"ok": true, "nodes": [...]}, or {"ok": false, "error": ...} if it is not a Dialog."""
    if not isinstance(dialog, Dialog):
        return json.dumps({"ok": False, "error": "there is no dialog named `dialog` yet: run the cell above first"})
    return json.dumps({"ok": True, "nodes": dialog_tree_nodes(dialog)})
