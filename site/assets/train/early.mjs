// Early stopping for /tinyllm/train/: which checkpoint had the lowest validation loss, where the
// validation curve turned upwards (the model began to learn the training text by heart: overfitting),
// and whether to stop. Pure functions over the checkpoints' numbers, so Node tests them with literal
// values (tests/site/test_train_tab_early.py); widget.mjs draws what they say.
//
//   const watch = earlyStop({ mode: "stop", patience: 3 })
//   watch.observe(50, 2.31)     // -> {improved: true,  stop: false}
//   watch.observe(100, 2.40)    // -> {improved: false, stop: false} ... three times -> stop: true
//   watch.best                  // -> {step: 50, validation: 2.31}
//   turnPoint([{step: 0, validation: 4.6}, {step: 50, validation: 2.3}, {step: 100, validation: 2.4}])
//                               // -> {step: 50, validation: 2.3}

// What the learner can choose when the validation loss stops improving.
export const MODES = {
  off: "keep training, save the last weights",
  best: "keep training, save the best weights",
  stop: "stop, save the best weights",
};

/** The checkpoint with the lowest validation loss when the latest one is higher, else null (still falling). */
export function turnPoint(points) {
  const measured = points.filter((p) => p.validation !== null && p.validation !== undefined);
  if (measured.length < 2) return null;
  const best = measured.reduce((a, p) => (p.validation < a.validation ? p : a));
  return measured.at(-1).validation > best.validation ? best : null;
}

/** Follow the checkpoints' validation losses: the best so far, and whether `patience` checkpoints
 * in a row have failed to beat it (in mode "stop", that ends training). */
export function earlyStop({ mode = "off", patience = 3 } = {}) {
  if (!(mode in MODES)) throw new Error(`Early stopping must be one of ${Object.keys(MODES).join(", ")}, not ${JSON.stringify(mode)}.`);
  if (!(Number.isInteger(patience) && patience >= 1)) throw new Error("The patience must be a whole number of checkpoints, at least 1.");
  let best = null,
    since = 0;
  return {
    observe(step, validation) {
      const improved = best === null || validation < best.validation;
      if (improved) {
        best = { step, validation };
        since = 0;
      } else since += 1;
      return { improved, stop: mode === "stop" && since >= patience };
    },
    get best() {
      return best;
    },
    get since() {
      return since;
    },
    mode,
    patience,
    keepsBest: mode !== "off",
  };
}
