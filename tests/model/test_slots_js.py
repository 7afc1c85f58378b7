"""site/assets/agents/slots.mjs (the page's reading of a prompt for the agent-tuned TinyLLM, time travel's
drilldown) against lllm/model/generate.py's `model_view` and `NumberSlots.unmask`: Node runs the page's
module on the same prompts and cards, and both give the same masked text, the same slot values and the
same text with the numbers put back."""

from __future__ import annotations

import json
import subprocess

from conftest import ROOT
from lllm.model.generate import NumberSlots, model_view

MODULE = ROOT / "site" / "assets" / "agents" / "slots.mjs"
WORDS = {"mark": "#", "own_lines": ["Thought:", "Action:", "Final Answer:"], "word_mark": "@",
         "lexicon": ["compute", "is", "pip", "question", "repeat", "say", "the", "what"]}
DIGITS = {"mark": "#", "own_lines": ["Thought:", "Action:", "Final Answer:"]}
CASES = [  # (prompt, what the model drew after it)
    ("Tools: calc\nQuestion: What is 17 * 23?\nThought: compute 17 * 23\nAction: calc[17 * 23]\nObservation: 391\n",
     "Final Answer: #3 @1 #9"),
    ("Question: Say gorbel 3.5 and -45 Pip zork\nThought: repeat gorbel 3.5 9\nObservation: zork 12 gorbel\n",
     "Thought: @1 @2 #1 #2 #3 #4 @3"),
    ("no question here 4 5", "#1#2"),
    ("Question: a\nQuestion: b 7\n", "x#1 #12"),
    ("Question: 2.50 and 2.5 and 2.50?\nThought: #1", " plus 2.50 is #3"),
]
NODE = """
import { modelView, numberSlots } from %s;
const { cards, cases, readsFrom } = JSON.parse(process.argv[1]);
const out = cards.map((card) => cases.map(([prompt, drawn]) => {
  const slots = numberSlots(card);
  const [view, values] = modelView(prompt, readsFrom, slots);
  return [view, values, slots ? slots.unmask(drawn, values) : drawn];
}));
console.log(JSON.stringify(out));
"""


def test_the_page_reads_a_prompt_as_the_predictor_does():
    cards = [WORDS, DIGITS, None]
    arg = {"cards": cards, "cases": CASES, "readsFrom": "Question: "}
    done = subprocess.run(["node", "--input-type=module", "-e", NODE % json.dumps(MODULE.as_uri()), json.dumps(arg)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    page = json.loads(done.stdout)
    for card, results in zip(cards, page):
        slots = NumberSlots.from_card(card, [chr(i) for i in range(32, 127)] + ["\n"])
        for (prompt, drawn), result in zip(CASES, results):
            view, values = model_view(prompt, "Question: ", slots)
            assert result == [view, values, slots.unmask(drawn, values) if slots else drawn], (card, prompt)
