// "Your model trained in this tab" as a brain of the agent demos (demos.mjs) and of time travel
// (timetravel.mjs). Read ../train/yours.mjs first: the model a reader trained on /tinyllm/train/ is kept
// in this browser's Cache Storage, and the model worker (../runtime/model.mjs) runs it, token loop and
// all, under the name TAB_MODEL — which Python knows as a brain too (lllm/web/browser.py's
// browser_models; lllm/predictors/specs.py says one sentence where no page holds it).
//
// It learned only the story, so it samples as the story model does (temperature and seed: the same
// seed gives the same text) and it will not write good ReAct steps: the note under the brain says so.
// Until this browser holds a model, its option is disabled and says why. The check runs when the
// widget is drawn and again whenever the brain list gets focus, so a model trained in another tab
// appears without a reload; after a reload it is read from Cache Storage like any page's.
//
//   select("brain", [..., [TAB_MODEL, "your model trained in this tab"]])   // its option, labelled
//   controls.append(offerTabModel(brainSelect))     // -> the note to place under it
//   samples(brain)                                  // does this brain take a temperature and a seed?

import { el } from "../runtime/dom.mjs";
import { readYoursCard } from "../train/yours.mjs";

export const TAB_MODEL = "tinyllm-yours";
const TRAIN_PAGE = new URL("../../tinyllm/train/", import.meta.url).href;

/** Does `brain` sample (a temperature and a seed apply)? The story model and a model trained in the tab. */
export const samples = (brain) => brain === "tinyllm" || brain === "tinygpt" || brain === TAB_MODEL;

/** Keep `brain`'s TAB_MODEL option in step with this browser's stored model; returns the note that
 *  says, while that option is chosen, what the model is (or how to get one). */
export function offerTabModel(brain) {
  const option = [...brain.options].find((o) => o.value === TAB_MODEL);
  const label = option.textContent;
  const note = el("p", { class: "lllm-tab-model", role: "status" });
  let card = null;
  const show = () => {
    note.hidden = brain.value !== TAB_MODEL;
    if (note.hidden) return;
    const trainLink = el("a", { href: TRAIN_PAGE }, "Train it yourself");
    note.replaceChildren(...(card
      ? [`Your model (${card.metrics?.steps ?? "?"} steps of training in this tab) learned only the story: it has never seen `
        + "a Thought or an Action, so expect words that are not ReAct steps. It samples: the same seed writes the same text, "
        + "in a browser that holds this model. Retrain it on ", trainLink, "."]
      : ["No model has been trained in this browser yet: train one on ", trainLink, ", and it is a brain here (after a reload too)."]));
  };
  const refresh = async () => {
    card = await readYoursCard().catch(() => null);
    option.disabled = !card;
    option.textContent = card ? label : `${label} (train one first)`;
    brain.dataset.tabModel = card ? "ready" : "none";     // for tests: the check has answered
    show();
  };
  brain.addEventListener("change", show);
  brain.addEventListener("focus", refresh);
  refresh();
  return note;
}
