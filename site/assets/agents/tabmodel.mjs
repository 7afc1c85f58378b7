// "Your model trained in this tab" as a brain of the agent demos (demos.mjs) and of time travel
// (timetravel.mjs). Read ../train/yours.mjs first: the model a reader trained on /tinyllm/train/ is kept
// in this browser's Cache Storage, and the model worker (../runtime/model.mjs) runs it, token loop and
// all, under the name TAB_MODEL — which Python knows as a brain too (lllm/web/browser.py's
// browser_models; lllm/predictors/specs.py says one sentence where no page holds it).
//
// It learned only the story, so it samples as the story model does (temperature and seed: the same
// seed gives the same text) and it will not write good ReAct steps: the note under the brain says so.
// Until this browser holds a model, its option is disabled and says why: brainlist.mjs keeps the option
// in step with a cheap probe of the cache, and imports this module only when the reader picks the brain,
// to write the note from the model's card.
//
//   select("brain", [..., [TAB_MODEL, "your model trained in this tab"]])   // its option, labelled
//   controls.append(offerTabModel(brainSelect))     // -> the note to place under it (brainlist.mjs)
//   samples(brain)                                  // does this brain take a temperature and a seed?

import { el } from "../runtime/dom.mjs";
import { readYoursCard } from "../train/yours.mjs";

export { TAB_MODEL, offerTabModel, samples } from "./brainlist.mjs";
const TRAIN_PAGE = new URL("../../tinyllm/train/", import.meta.url).href;

/** Write into `note` what the stored model is (its card), or how to get one. */
export async function describeTabModel(note) {
  const card = await readYoursCard().catch(() => null);
  const trainLink = el("a", { href: TRAIN_PAGE }, "Train it yourself");
  note.replaceChildren(
    ...(card
      ? [
          `Your model (${card.metrics?.steps ?? "?"} steps of training in this tab) learned only the story: it has never seen ` +
            "a Thought or an Action, so expect words that are not ReAct steps. It samples: the same seed writes the same text, " +
            "in a browser that holds this model. Retrain it on ",
          trainLink,
          ".",
        ]
      : ["No model has been trained in this browser yet: train one on ", trainLink, ", and it is a brain here (after a reload too)."]),
  );
}
