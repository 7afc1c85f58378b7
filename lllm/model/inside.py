"""Layer 1 · inside TinyLLM, character by character: every stage of one step, and the draw after it.

Read `generate.py` and `sampling.py` first, then `export/inspect_export.py`, which writes the
model this module runs: TinyLLM's own weights in a graph that reads one character per run and
hands out each stage (embedding, the LSTM's gates, candidate, cell and hidden state, logits).
Its files are opened by `files.py`, as every model's are.

`trace(model, prompt, length, seed, ...)` is `generate()`'s loop run one character at a time:
the model reads every character of the text once (the prompt, then each character it draws, then
the last one, so the last position shows what would come next) and keeps what it saw. Position p
reads text[p] and scores text[p + 1]. From the prompt's last character on, each position is a
draw: draw d (position P - 1 + d, P the prompt's length) uses the seed's d-th random number, one
per draw as in `sampling.sample`. `position_view(trace, p, ...)` lays out one position's stages;
its knobs (temperature, top-k, top-p) may differ from the generation's, which redraws that one
position with the same random number and never runs the model again.

`draw(logits, temperature, top_k, top_p, u)` is the sampler's own `sampling.draw` (steps 1-7 with
every intermediate kept, which `sampling.sample` runs too); the page (site/assets/inside/draw.mjs)
mirrors it line for line.

Usage: a draw shows its work (order by logit, top-k, weights, target = u * total, the pick), and
draw d's random number is the seed's d-th:

    >>> d = draw([0.5, 2.0, 1.0], temperature=1.0, top_k=2, top_p=1.0, u=0.9)
    >>> d["kept"], [round(w, 4) for w in d["weights"]], d["id"]
    ([1, 2], [1.0, 0.3679], 2)
    >>> uniform_of_draw(1, 0) == Mulberry32(1).uniform()
    True

and on the model (after `make model`):

    from lllm.model.inside import InsideModel, trace, position_view
    t = trace(InsideModel(), "Once", length=40, seed=1)
    view = position_view(t, 12)
    view["char"], view["layers"][0]["forget_gate"][:3], view["draw"]["char"]

The agent-tuned TinyLLM (after `make models`) is an ensemble: its graph holds every member's stages
side by side and each member's logits (a view's `members`: each one's probabilities and vote). It
reads a prompt as its predictor does (`generate.model_view`: from the `Question: ` line, numbers
as slots) and writes greedily (temperature 0: the view's draw is an argmax, `"greedy": True`):

    from lllm.predictors.specs import TINYLLM_AGENT_STOP
    agent = InsideModel(INSIDE_AGENT_MODEL)
    t = trace(agent, "Question: What is 17 * 23?\n", 200, temperature=0, stop=TINYLLM_AGENT_STOP)
    t.completion        # what make_predictor("tinyllm-agent") returns for that prompt
    [m["argmax"] for m in position_view(t, t.prompt_length - 1)["members"]]
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Sequence

from lllm.model.generate import EMPTY_PROMPT, NumberSlots, check_count, model_view
from lllm.model.files import ModelError, card_path_for, open_model, read_card
from lllm.model.sampling import Mulberry32, candidates_by_logit, check_sampling, draw, sample, softmax
from lllm.model.tokenizer import CharTokenizer

__all__ = ["INSIDE_MODEL", "INSIDE_AGENT_MODEL", "CARD_FORMAT", "STAGES", "InsideModel", "Trace", "trace", "draw",
           "uniform_of_draw", "draw_view", "position_view", "candidates_by_logit", "load_inside_card"]

INSIDE_MODEL = os.path.join("build", "model", "tinyllm-inside.onnx")
INSIDE_AGENT_MODEL = os.path.join("build", "model", "tinyllm-agent-inside.onnx")   # the agent model's (`make models`)
CARD_FORMAT = "lllm.tinyllm-inside/1"
STAGES = ("input_gate", "forget_gate", "output_gate", "candidate", "cn", "hn")
TOP = 5   # how many of the likeliest next characters a view lists


# ---- the model: one character per run --------------------------------------------------------------

def load_inside_card(path: str) -> dict:
    """Read and check an inspection graph's card (`files.read_card`); ModelError naming the file."""
    return read_card(path, CARD_FORMAT, "an inspection model card", ("layers", "hidden"))


class InsideModel:
    """`model.step(id, state) -> outputs`: every stage of one character; `runs` counts the runs.

    Either graph `export/inspect_export.py` writes: one model, or an ensemble (its card's `ensemble`:
    `members` models of `hidden` units each, their stages side by side as in the production state,
    `hidden` here being the state's width, members * hidden). `reads_from` and `number_slots` are
    how the model reads a prompt (`lllm.model.generate.model_view`), None for the story model."""

    def __init__(self, path: str = INSIDE_MODEL):
        card_path = card_path_for(path)
        self.session, self.card = open_model(path, load_inside_card, card_path, exact_graph=True)
        self.tokenizer = CharTokenizer(self.card["vocab"])
        self.layers, self.hidden = self.card["config"]["layers"], self.card["config"]["hidden"]
        ensemble = self.card.get("ensemble") or {"members": 1, "hidden": self.hidden}
        self.members, self.member_hidden = ensemble["members"], ensemble["hidden"]
        if self.members * self.member_hidden != self.hidden:
            raise ModelError(f"{card_path}: {self.members} members of {self.member_hidden} units do not make "
                             f"the state's {self.hidden} (rebuild both with `make models`)")
        self.reads_from = self.card.get("reads_from")
        try:
            self.number_slots = NumberSlots.from_card(self.card.get("number_slots"), self.card["vocab"])
        except ValueError as e:
            raise ModelError(f"{card_path}: {e}") from None
        self.outputs = [o.name for o in self.session.get_outputs()]
        self.runs = 0

    def step(self, char_id: int, state=None) -> dict:
        import numpy as np
        if state is None:
            zeros = np.zeros((self.layers, 1, self.hidden), np.float32)
            state = (zeros, zeros)
        values = self.session.run(self.outputs, {"input_id": np.array([char_id], np.int64), "h0": state[0], "c0": state[1]})
        self.runs += 1
        out = dict(zip(self.outputs, values))
        step = {"embedding": out["embedding"][0].tolist(),
                "layers": [{s: out[s][l, 0].tolist() for s in STAGES} for l in range(self.layers)],
                "logits": out["logits"][0].tolist(), "state": (out["hn"], out["cn"])}
        if "member_logits" in out:                      # an ensemble: each member's own scores
            step["member_logits"] = [out["member_logits"][k, 0].tolist() for k in range(self.members)]
        return step


# ---- a whole text, read once ---------------------------------------------------------------------

@dataclass
class Trace:
    """A generated text and what the model computed at each of its positions."""

    vocab: list[str]
    ids: list[int]                  # the text the model read: the prompt's ids, then the drawn ones
    prompt_length: int              # P: positions 0..P-1 are the prompt
    seed: int
    temperature: float
    top_k: int
    top_p: float
    steps: list[dict] = field(default_factory=list)   # per position: embedding, layers, logits
    dropped: list[str] = field(default_factory=list)  # prompt characters outside the vocabulary
    members: int = 1                                  # an ensemble's: its stages are side by side
    stopped_by: str | None = None                     # the stop string that ended the drawing, if any
    numbers: list[str] | None = None                  # with number slots: the values behind them
    number_slots: NumberSlots | None = None

    @property
    def text(self) -> str:
        """What the model read: the prompt as it reads it (model_view), then what it drew."""
        return "".join(self.vocab[i] for i in self.ids)

    @property
    def completion(self) -> str:
        """What a predictor returns: the drawn text without the stop string that ended it, the
        numbers (and words) put back into their slots."""
        text = self.text[self.prompt_length:]
        text = text[:-len(self.stopped_by)] if self.stopped_by else text
        return self.number_slots.unmask(text, self.numbers) if self.number_slots else text


# --8<-- [start:trace]
def trace(model: InsideModel, prompt: str, length: int = 40, seed: int = 0, temperature: float = 0.8,
          top_k: int = 0, top_p: float = 1.0, stop: Sequence[str] = ()) -> Trace:
    """Continue `prompt` by up to `length` characters as `generate()` does (a predictor's reading of
    the prompt, its stop strings), keeping every stage."""
    check_count(length)
    check_sampling(temperature, top_k, top_p)
    view, numbers = model_view(prompt, model.reads_from, model.number_slots)   # the prompt as it reads it
    ids, dropped = model.tokenizer.encode_lossy(view)
    ids = ids or model.tokenizer.encode(EMPTY_PROMPT)
    out = Trace(list(model.tokenizer.vocab), ids, len(ids), seed, temperature, top_k, top_p, dropped=dropped,
                members=model.members, numbers=numbers if model.number_slots else None,
                number_slots=model.number_slots)
    rng, state, position = Mulberry32(seed), None, 0
    while position < len(ids):                      # ids grows by one per draw while we walk it
        step = model.step(ids[position], state)
        state = step.pop("state")
        out.steps.append(step)
        if position >= out.prompt_length - 1 and len(ids) < out.prompt_length + length and not out.stopped_by:
            ids.append(sample(step["logits"], temperature, top_k, top_p, rng))
            drawn = "".join(out.vocab[i] for i in ids[out.prompt_length:])
            out.stopped_by = next((s for s in stop if s and drawn.endswith(s)), None)
        position += 1
    return out
# --8<-- [end:trace]


# ---- one draw, every intermediate kept ---------------------------------------------------------------

def uniform_of_draw(seed: int, index: int) -> float:
    """The random number draw `index` (0 = the first character drawn) uses: the seed's index-th uniform."""
    rng = Mulberry32(seed)
    for _ in range(index):
        rng.next_u32()
    return rng.uniform()


# ---- one position, stage by stage ------------------------------------------------------------------

def position_view(t: Trace, position: int, temperature: float | None = None, top_k: int | None = None,
                  top_p: float | None = None) -> dict:
    """Every stage at `position` (0-based in `t.text`); knobs left None are the generation's."""
    n = len(t.ids)
    if not isinstance(position, int) or isinstance(position, bool) or not 0 <= position < n:
        raise ValueError(f"position must be between 0 and {n - 1} (the text has {n} characters), got {position!r}")
    temperature = t.temperature if temperature is None else temperature
    top_k = t.top_k if top_k is None else top_k
    top_p = t.top_p if top_p is None else top_p
    check_sampling(temperature, top_k, top_p)
    step, vocab = t.steps[position], t.vocab
    logits = step["logits"]
    probs = softmax(logits, temperature) if temperature > 0 else [float(i == draw(logits, 0, 0, 1, None)["id"])
                                                                   for i in range(len(logits))]
    index = position - (t.prompt_length - 1)                 # which draw this position is (< 0: the prompt's)
    view = {"position": position, "char": vocab[t.ids[position]], "id": t.ids[position],
            "text": t.text, "prompt_length": t.prompt_length, "seed": t.seed,
            "temperature": temperature, "top_k": top_k, "top_p": top_p,
            "embedding": step["embedding"], "layers": step["layers"], "logits": logits, "probs": probs,
            "top": [[vocab[i], probs[i]] for i in candidates_by_logit(logits)[:TOP]],
            "next": None if position + 1 >= n else {"char": vocab[t.ids[position + 1]], "given": index < 0},
            "draw": None}
    if "member_logits" in step:        # an ensemble: each member's vote, its own softmax (temperature 1),
        view["members"] = []           # whose average is softmax(logits)
        for k, member in enumerate(step["member_logits"]):
            member_probs = softmax(member, 1.0)
            best = candidates_by_logit(member)
            view["members"].append({"member": k, "logits": member, "probs": member_probs,
                                    "top": [[vocab[i], member_probs[i]] for i in best[:TOP]], "argmax": vocab[best[0]]})
    if t.numbers is not None:
        view["numbers"] = t.numbers    # slot #k (or @k) stands for the k-th of these
    if index >= 0:
        view["draw"] = draw_view(logits, vocab, t.seed, index, temperature, top_k, top_p)
    return view


def draw_view(logits: Sequence[float], vocab: Sequence[str], seed: int, index: int, temperature: float,
              top_k: int = 0, top_p: float = 1.0) -> dict:
    """Draw `index` of `seed` from these logits, as a view lays it out: its random number, the kept
    characters with their shares, the target and the character drawn (TinyGPT's views use it too)."""
    u = None if temperature == 0 else uniform_of_draw(seed, index)
    d = draw(logits, temperature, top_k, top_p, u)
    return {"index": index, "greedy": d["greedy"], "uniform": u, "target": d["target"], "total": d["total"],
            "kept": [[vocab[i], w / d["total"]] for i, w in zip(d["kept"], d["weights"])],
            "id": d["id"], "char": vocab[d["id"]]}
