"""Layer 3 · brains for the demos, all behind the Predictor seam: `make_predictor(spec) -> Predictor`.

Read `predictor.py` and `react.py` first. A "brain" is just a predictor; the agents never know
which one they are talking to. `make_predictor` resolves the `--predictor` flag:

    tinyllm[:PATH]   the story model, TinyLLM, on onnxruntime (CPython; default build/model/tinyllm.onnx)
    tinyllm-agent[:PATH]  TinyLLM trained on the factory's trajectories (`make agent-model`;
                     default build/model/tinyllm-agent.onnx), greedy unless --temperature is given
    rule             RuleBrain below: a hand-written stand-in that writes correct ReAct steps
    echo             returns the prompt itself: the original collection's bug, kept as a brain
                     so you can watch the lab refuse to credit it (DESIGN.md §8)
    scripted:FILE    replays replies from FILE (a JSON list, or text with replies between '---' lines)
    http:URL         an OpenAI-compatible server, e.g. http:http://127.0.0.1:8080 (http_predictor.py)

The RuleBrain is not a language model and does not pretend to be one. It reads the goal from the
prompt — the last `Question:` line — and the tool list, exactly as a model would have to, and
writes one step: `calc[...]` for arithmetic it can find in the goal ("that" meaning the last
answer when a memory block is in the prompt), `lookup[...]` for a topic the
goal names, then `Final Answer:` with the last observation. It never copies the tools' examples,
and it fails honestly on what its rules do not cover (word problems), which the lab shows.

Usage:

    >>> brain = RuleBrain()
    >>> from lllm.react import run_react
    >>> run_react("What is 6 times 7?", brain)
    '42'
    >>> run_react("Where does Lina live?", brain)
    'Lina lives in the white house on Hill Road. She keeps 5 hens and 1 goat.'
"""

from __future__ import annotations

import json
import re
import sys

from lllm.predictor import ScriptedPredictor

__all__ = ["RuleBrain", "echo", "find_arithmetic", "load_script", "make_predictor",
           "add_predictor_args", "predictor_from_args", "fail"]


# ---- the rule-based stand-in -------------------------------------------------------------------

WORD_OPERATORS = [  # rewrite number words into symbols before looking for arithmetic
    (r"\b(?:the )?sum of (\S+) and (\S+)", r"\1 + \2"),
    (r"\b(?:the )?product of (\S+) and (\S+)", r"\1 * \2"),
    (r"\b(?:the )?difference between (\S+) and (\S+)", r"\1 - \2"),
    (r"(\d) squared", r"\1 ** 2"),
    (r" (?:times|multiplied by) ", " * "),
    (r" plus ", " + "),
    (r" minus ", " - "),
    (r" divided by ", " / "),
    (r" to the power of ", " ** "),
]
ARITHMETIC_RE = re.compile(r"[\d(][\d\s.+\-*/%^()]*")
SAY_RE = re.compile(r"(?:please |just )?(?:say|repeat|echo|write|type)(?: back)?(?: the word)?:? ([A-Za-z]+)[.!]?", re.I)


def find_arithmetic(goal: str) -> str | None:
    """The longest stretch of the goal that is arithmetic (numbers joined by operators), or None.

    >>> find_arithmetic("What is the product of 12 and 12?")
    '12 * 12'
    """
    text = goal.lower()
    for pattern, replacement in WORD_OPERATORS:
        text = re.sub(pattern, replacement, text)
    spans = [m.group(0).strip().rstrip(" .+-*/%^") for m in ARITHMETIC_RE.finditer(text)]
    spans = [s for s in spans if re.search(r"\d\s*(\*\*|[-+*/%^])\s*[\d(]", s)]
    return max(spans, key=len) if spans else None


def _goal_and_steps(prompt: str) -> tuple[str, str]:
    """(the last `Question:` line, everything after it) — what the brain has to go on."""
    at = prompt.rfind("Question:")
    if at < 0:
        return "", ""
    line, _, after = prompt[at + len("Question:"):].partition("\n")
    return line.strip(), after


# --8<-- [start:rule-brain]
class RuleBrain:
    """A predictor that writes correct ReAct steps for simple goals by rules, not by learning."""

    def __call__(self, prompt: str, max_new_tokens: int | None = None) -> str:
        reply = self.reply(prompt)
        return reply if max_new_tokens is None else reply[:max_new_tokens]

    def reply(self, prompt: str) -> str:
        goal, steps = _goal_and_steps(prompt)
        observations = re.findall(r"^Observation: (.*)$", steps, re.M)
        if observations:                                   # a tool has answered: report it
            if observations[-1].startswith(("error", "no Action")):
                return "Thought: the tool could not help\nFinal Answer: I don't know"
            return f"Final Answer: {observations[-1]}"     # the answer right under its source
        said = SAY_RE.fullmatch(goal)
        if said:                                           # "Repeat the word X": no tool needed
            return f"Thought: repeat {said.group(1)}\nFinal Answer: {said.group(1)}"
        expression = find_arithmetic(self._recall(goal, prompt))
        if expression and "\ncalc:" in prompt:
            return f"Thought: compute {expression}\nAction: calc[{expression}]"
        topic = self._topic(goal, prompt)
        if topic:
            return f"Thought: look up {topic}\nAction: lookup[{topic}]"
        return "Thought: none of my rules fits this question\nFinal Answer: I don't know"

    @staticmethod
    def _recall(goal: str, prompt: str) -> str:
        """'that' or 'it' in the goal means the last numeric answer in the recent conversation
        (the memory block, see memory.py) — the one way this brain uses memory."""
        answers = re.findall(r"^- user: .*\| agent: (.+)$", prompt, re.M)
        if answers and re.fullmatch(r"-?\d+(\.\d+)?", answers[-1].strip()):
            return re.sub(r"\b(that|it)\b", answers[-1].strip(), goal)
        return goal

    @staticmethod
    def _topic(goal: str, prompt: str) -> str | None:
        """The first word of the goal that the lookup tool lists among its topics."""
        listed = re.search(r"^lookup:.*?Topics: ([^.]*)\.", prompt, re.M)
        topics = {t.strip() for t in listed.group(1).split(",")} if listed else set()
        return next((w for w in re.findall(r"[a-z]+", goal.lower()) if w in topics), None)

    def __repr__(self) -> str:
        return "RuleBrain()"


# --8<-- [end:rule-brain]
def echo(prompt: str, max_new_tokens: int | None = None) -> str:
    """The original collection's broken predictor: it hands back the prompt itself."""
    return prompt if max_new_tokens is None else prompt[:max_new_tokens]


# ---- resolving --predictor ---------------------------------------------------------------------

PREDICTOR_SPECS = "tinyllm[:PATH], rule, echo, scripted:FILE, http:URL or tinyllm-agent[:PATH]"
DEFAULT_TINYLLM = "build/model/tinyllm.onnx"
DEFAULT_TINYLLM_AGENT = "build/model/tinyllm-agent.onnx"


def load_script(path: str) -> list[str]:
    """Replies for a ScriptedPredictor: a JSON list of strings, or text split on '---' lines."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as error:
        raise ValueError(f"--predictor scripted: cannot read {path}: {error.strerror}") from None
    if path.endswith(".json"):
        try:
            replies = json.loads(text)
        except json.JSONDecodeError as error:
            raise ValueError(f"--predictor scripted: {path} is not valid JSON ({error.msg}, line {error.lineno})") from None
        if not isinstance(replies, list) or not all(isinstance(r, str) for r in replies):
            raise ValueError(f"--predictor scripted: {path} must hold a JSON list of strings")
    else:
        replies = [r.strip("\n") for r in re.split(r"^---[ \t]*$", text, flags=re.M)]
    replies = [r for r in replies if r.strip()]
    if not replies:
        raise ValueError(f"--predictor scripted: {path} has no replies")
    return replies


def _tinyllm(path: str | None, options: dict):
    """TinyLLM on onnxruntime, stopping when it starts to write an Observation itself."""
    from lllm.onnx_backend import from_onnx    # CPython + onnxruntime only, so imported late
    try:
        return from_onnx(path or DEFAULT_TINYLLM, stop=("Observation:",), **options)
    except ValueError as error:                 # ModelError: missing, damaged or mismatched files
        raise ValueError(f"--predictor tinyllm: {error}") from None


def _tinyllm_agent(path: str | None, options: dict):
    """The agent-tuned TinyLLM: it ends a step at `Observation:` and a final answer with a blank line."""
    from lllm.onnx_backend import from_onnx
    try:
        return from_onnx(path or DEFAULT_TINYLLM_AGENT, stop=("Observation:", "\n\n"),
                         **{"temperature": 0.0, **options})
    except ValueError as error:
        raise ValueError(f"--predictor tinyllm-agent: {error}; the agent model is built by `make agent-model`") from None


def make_predictor(spec: str, *, temperature: float | None = None, seed: int | None = None):
    """A predictor for `spec` (see the module docstring); ValueError naming --predictor if bad.

    temperature and seed apply to sampling brains (TinyLLM); None keeps each brain's default.
    """
    spec = (spec or "").strip()
    options = {k: v for k, v in (("temperature", temperature), ("seed", seed)) if v is not None}
    if spec == "rule":
        return RuleBrain()
    if spec == "echo":
        return echo
    if spec == "tinyllm-agent" or spec.startswith("tinyllm-agent:"):
        return _tinyllm_agent(spec.partition(":")[2] or None, options)
    if spec == "tinyllm" or spec.startswith("tinyllm:"):
        return _tinyllm(spec.partition(":")[2] or None, options)
    if spec.startswith("scripted:") and spec != "scripted:":
        return ScriptedPredictor(load_script(spec.partition(":")[2]), cycle=True)
    if spec.startswith(("http:", "https:")):
        from lllm.http_predictor import HttpPredictor

        url = spec if spec.startswith(("http://", "https://")) else spec.partition(":")[2]
        return HttpPredictor(url if "://" in url else "http://" + url)
    raise ValueError(f"--predictor {spec!r} is not one of: {PREDICTOR_SPECS}")


# ---- shared command-line pieces ----------------------------------------------------------------

def add_predictor_args(parser, default: str = "tinyllm") -> None:
    """The --predictor, --temperature and --seed flags every agent command shares."""
    parser.add_argument("--predictor", default=default, metavar="SPEC",
                        help=f"the brain: {PREDICTOR_SPECS} (default: {default})")
    parser.add_argument("--temperature", type=float, default=None, help="sampling temperature (TinyLLM)")
    parser.add_argument("--seed", type=int, default=None, help="sampling seed (TinyLLM)")


def predictor_from_args(args):
    return make_predictor(args.predictor, temperature=args.temperature, seed=args.seed)


def fail(command: str, message: str) -> int:
    """Print a one-line error for bad command-line input; 2 is the usage-error exit status."""
    print(f"lllm {command}: error: {message}", file=sys.stderr)
    return 2
