"""Layer 3 · Dialog: one agent's mental state — append-only messages in a fork-able tree.

Read `prompt.py` first; `agent.py` next (the call loop forks a working dialog at every step).

Contract: `Dialog(owner)` holds `Message` records. `put_text`, `put_prompt` and `put_message`
append; nothing removes or edits a message. `fork(last_n=..., first_k=...)` returns a *new* child
dialog holding the first k and last n messages (all of them by default); the parent's messages
and prompts never change. Every dialog has a `DialogTreeNode` (ids, parent id, split point), all
nodes of one tree live in one `DialogTree`, and `to_dict()` / `Dialog.from_dict()` round-trip the
whole fork tree as JSON-ready data.

Which prompt governs the next reply (the rule the agent loop follows):
    - the parser, format and handler come from the latest prompt put into the dialog
      (`top_prompt`); `put_text` clears it, so a plain-text turn accepts any reply;
    - the tools offered are the system prompt's tools plus the top prompt's (same name: the top
      prompt's wins). Upstream LLLM drops the system prompt's tools after a text turn; we don't.

Usage:

    >>> from lllm.runtimes.native.core.prompt import Prompt
    >>> system = Prompt(path="planner/system", prompt="You are a {style} planner.")
    >>> dialog = Dialog(owner="planner")
    >>> dialog.put_prompt(system, {"style": "careful"}, role=Role.SYSTEM, name="system").content
    'You are a careful planner.'
    >>> _ = dialog.put_text("Plan the next release.", name="user")
    >>> branch = dialog.fork(last_n=1, first_k=1)
    >>> _ = branch.put_text("Assume the deadline moved up a week.", name="user")
    >>> print(dialog.tree_overview())
    planner-0: 2 messages
    `-- planner-1: 3 messages, forked at 2 (first_k=1, last_n=1)
    >>> branch.parent is dialog, len(branch.messages), len(dialog.messages)
    (True, 3, 2)
"""

from __future__ import annotations

import dataclasses
from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictStr, field_validator

from lllm.protocol.validation import plain_data, plain_mapping
from lllm.protocol.fields import Metadata
from lllm.runtimes.native.core.costs import TokenLogprob, usage_cost
from lllm.runtimes.native.core.tools import FunctionCall

__all__ = ["Role", "Message", "Dialog", "DialogTreeNode", "DialogTree"]


# ---- messages ----------------------------------------------------------------------------------------

class Role(str, Enum):
    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


# --8<-- [start:message]
class Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    role: Role
    content: StrictStr | list[dict[StrictStr, Any]]
    name: StrictStr = ""
    function_calls: tuple[FunctionCall, ...] = ()   # FunctionCall requests in an assistant message
    call_id: StrictStr = ""                         # in a tool message: the id of the FunctionCall it answers
    parsed: Metadata | None = None                  # what the governing prompt's parser returned
    prompt_path: StrictStr = ""                     # the Prompt that produced this message, if any
    usage: Metadata = Field(default_factory=dict)
    metadata: Metadata = Field(default_factory=dict)   # includes the dialog_id
    model: StrictStr | None = None
    logprobs: list[TokenLogprob] = Field(default_factory=list)
    vectors: list[float] = Field(default_factory=list)
# --8<-- [end:message]

    def __init__(self, role=None, content=None, **fields):
        super().__init__(role=role, content=content, **fields)

    @field_validator("content", mode="before")
    @classmethod
    def _copy_content(cls, value):
        return plain_data(value, "content") if isinstance(value, list) else value

    @property
    def cost(self):
        """`usage` read as an InvokeCost (a malformed usage entry is a ValueError naming it)."""
        return usage_cost(self.usage)

    def to_dict(self) -> dict:
        return self.model_dump(mode="json")

    @classmethod
    def from_dict(cls, data: dict) -> "Message":
        return cls.model_validate(data)


# ---- the tree ------------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class DialogTreeNode:
    id: str
    parent_id: str | None = None
    split_point: int | None = None   # how many messages the parent had when this dialog forked
    first_k: int | None = None
    last_n: int | None = None
    children_ids: list = dataclasses.field(default_factory=list, compare=False)   # filled in by Dialog.tree_node


class DialogTree:
    """Every dialog forked from one root, by id. Forking adds a dialog here; nothing is ever removed."""

    def __init__(self, owner: str):
        self.owner = owner
        self.dialogs: dict[str, Dialog] = {}

    def new_id(self) -> str:
        return f"{self.owner or 'dialog'}-{len(self.dialogs)}"

    def children(self, dialog_id: str) -> list["Dialog"]:
        return [d for d in self.dialogs.values() if d.node.parent_id == dialog_id]


# ---- the dialog ----------------------------------------------------------------------------------------

class Dialog:
    def __init__(self, owner: str = "", *, tree: DialogTree | None = None, node: DialogTreeNode | None = None):
        self.owner = owner
        self.tree = tree or DialogTree(owner)
        self.node = node or DialogTreeNode(self.tree.new_id())
        self.tree.dialogs[self.node.id] = self
        self._messages: list[Message] = []
        self.system_prompt = None     # the first prompt put with Role.SYSTEM
        self.top_prompt = None        # the latest prompt put (None after put_text)

    @property
    def id(self) -> str:
        return self.node.id

    dialog_id = id

    @property
    def tree_node(self) -> DialogTreeNode:
        """This dialog's place in the tree, with its children's ids (a snapshot)."""
        return dataclasses.replace(self.node, children_ids=[child.id for child in self.children])

    @property
    def depth(self) -> int:
        """How many forks away from the root (the root is 0)."""
        return 0 if self.parent is None else self.parent.depth + 1

    @property
    def head(self) -> Message | None:
        return self._messages[0] if self._messages else None

    @property
    def tail(self) -> Message | None:
        return self._messages[-1] if self._messages else None

    @property
    def messages(self) -> tuple[Message, ...]:
        return tuple(self._messages)

    @property
    def parent(self) -> "Dialog | None":
        return self.tree.dialogs.get(self.node.parent_id) if self.node.parent_id else None

    @property
    def children(self) -> list["Dialog"]:
        return self.tree.children(self.id)

    # ---- appending -------------------------------------------------------------------------------------

    def put_message(self, message: Message) -> Message:
        if not isinstance(message, Message):
            raise TypeError(f"dialog {self.id}: put_message expects a Message, got {type(message).__name__}")
        self._messages.append(message)
        return message

    def put_text(self, text: str, name: str = "user", role: Role = Role.USER, metadata: dict | None = None) -> Message:
        if not isinstance(text, str):
            raise TypeError(f"dialog {self.id}: put_text expects a string, got {type(text).__name__}")
        self.top_prompt = None
        return self.put_message(Message(Role(role), text, name=name, metadata=self._metadata(metadata)))

    def put_prompt(self, prompt, prompt_args: dict | None = None, name: str = "user",
                   role: Role = Role.USER, metadata: dict | None = None) -> Message:
        variables = _mapping(prompt_args, f"dialog {self.id}: put_prompt(prompt_args=...)")
        message = Message(Role(role), prompt(**variables), name=name, prompt_path=prompt.path,
                          metadata=self._metadata(metadata))
        if message.role is Role.SYSTEM and self.system_prompt is None:
            self.system_prompt = prompt
        self.top_prompt = prompt
        return self.put_message(message)

    def _metadata(self, metadata) -> dict:
        return {**_mapping(metadata, f"dialog {self.id}: metadata"), "dialog_id": self.id}

    # ---- the governing prompt (see the module docstring) ------------------------------------------

    # --8<-- [start:governing]
    def governing_prompt(self):
        """The prompt whose parser, format and handler judge the next reply (None: any text is valid)."""
        return self.top_prompt

    def offered_functions(self) -> list:
        """The system prompt's tools plus the top prompt's; on a name clash the top prompt's wins."""
        offered = {}
        for prompt in (self.system_prompt, self.top_prompt):
            if prompt is not None:
                offered.update(prompt.functions)
        return list(offered.values())
    # --8<-- [end:governing]

    # ---- forking -----------------------------------------------------------------------------------------

    # --8<-- [start:fork]
    def fork(self, last_n: int | None = None, first_k: int | None = None) -> "Dialog":
        """A child dialog with the first `first_k` and last `last_n` messages (default: all)."""
        for field, value in (("last_n", last_n), ("first_k", first_k)):
            if value is not None:
                _count(value, f"fork({field}=...)")
        count = len(self._messages)
        if last_n is None and first_k is None:
            keep = list(range(count))
        else:
            head = range(min(first_k or 0, count))
            tail = range(max(count - (last_n or 0), 0), count)
            keep = sorted(set(head) | set(tail))
        node = DialogTreeNode(self.tree.new_id(), self.id, count, first_k, last_n)
        child = Dialog(self.owner, tree=self.tree, node=node)
        child._messages = [self._messages[i] for i in keep]
        child.system_prompt, child.top_prompt = self.system_prompt, self.top_prompt
        return child
    # --8<-- [end:fork]

    # ---- showing -----------------------------------------------------------------------------------------

    def overview(self, remove_tail: bool = False, max_length: int = 100) -> str:
        """One line per message (`role name: text`, cut at `max_length`); `remove_tail` leaves out the last."""
        if not isinstance(remove_tail, bool):
            raise TypeError(f"overview(remove_tail=...) must be True or False, got {remove_tail!r}")
        _count(max_length, "overview(max_length=...)")
        shown = self._messages[:-1] if remove_tail else self._messages
        return "\n".join(f"{m.role.value} {m.name}: {_cut(m.content, max_length)}" for m in shown)

    def tree_overview(self, indent: int = 4) -> str:
        """The whole fork tree as indented text, starting from the root."""
        _count(indent, "tree_overview(indent=...)")
        root = self
        while root.parent is not None:
            root = root.parent
        lines = []

        def walk(dialog, depth):
            node = dialog.node
            text = f"{dialog.id}: {len(dialog.messages)} messages"
            if node.parent_id is not None:
                text += f", forked at {node.split_point}"
                if node.first_k is not None or node.last_n is not None:
                    text += f" (first_k={node.first_k}, last_n={node.last_n})"
            lines.append((" " * indent * (depth - 1) + "`-- " if depth else "") + text)
            for child in dialog.children:
                walk(child, depth + 1)
        walk(root, 0)
        return "\n".join(lines)

    def to_mermaid(self) -> str:
        """The fork tree as a flat Mermaid flowchart (node ids are the dialog ids)."""
        lines = ["flowchart TD"]
        for dialog in self.tree.dialogs.values():
            key = dialog.id.replace("-", "_")
            lines.append(f'    {key}["{dialog.id}<br/>{len(dialog.messages)} messages"]')
            if dialog.node.parent_id:
                lines.append(f'    {dialog.node.parent_id.replace("-", "_")} -->|"fork at {dialog.node.split_point}"| {key}')
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Dialog({self.id!r}, {len(self._messages)} messages)"

    # ---- serialisation: the whole tree ---------------------------------------------------------------

    def to_dict(self) -> dict:
        """The whole fork tree (every dialog's node, messages and prompt paths) plus which one this is."""
        return {"owner": self.tree.owner, "current": self.id, "dialogs": [
            {"node": dataclasses.asdict(d.node), "messages": [m.to_dict() for m in d._messages],
             "system_prompt": getattr(d.system_prompt, "path", None), "top_prompt": getattr(d.top_prompt, "path", None)}
            for d in self.tree.dialogs.values()]}

    @classmethod
    def from_dict(cls, data: dict, prompts: dict | None = None) -> "Dialog":
        """Rebuild the tree from `to_dict()`; prompts are looked up by path in `prompts` (else None)."""
        prompts = prompts or {}
        tree = DialogTree(data["owner"])
        for record in data["dialogs"]:
            dialog = cls(data["owner"], tree=tree, node=DialogTreeNode(**record["node"]))
            dialog._messages = [Message.from_dict(m) for m in record["messages"]]
            dialog.system_prompt = prompts.get(record["system_prompt"])
            dialog.top_prompt = prompts.get(record["top_prompt"])
        return tree.dialogs[data["current"]]


# ---- checking what callers pass in -----------------------------------------------------------------

def _count(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{what} must be a non-negative integer, got {value!r}")
    return value


def _mapping(value, what: str) -> dict:
    """A plain copy of a mapping with string keys (None gives {}); anything else is a TypeError."""
    try:
        return plain_mapping(value, what)
    except ValueError as exc:
        raise TypeError(str(exc)) from None


def _cut(text: str, limit: int) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= limit else text[: max(limit - 3, 0)] + "..."
