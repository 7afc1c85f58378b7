// The training worker of /tinyllm/train/: runs trainer.mjs one step at a time, off the page's
// thread, and says what it is doing. Read trainer.mjs first. The page ends it with terminate()
// (Stop), which stops it at once, mid-step or not; Pause and Resume are messages it reads between
// two steps.
//
// From the page:  {type: "start", settings, steps, every}   train `steps` steps, a checkpoint every `every`
//                 {type: "pause"} | {type: "resume"}
// To the page:    {type: "started", config, vocab, trainWindows, validationWindows, validation, kernels}
//                 {type: "stage", stage, step}              forward | loss | backward | update
//                 {type: "step", step, epoch, loss, ms}
//                 {type: "checkpoint", step, train, validation, sample, weights}   weights: name -> Float32Array
//                 {type: "paused", weights} | {type: "done", weights} | {type: "error", error}

import { kernelsInUse } from "./tinyllm.mjs";
import { createRun } from "./trainer.mjs";

const SAMPLE = { prompt: "Once", length: 60, seed: 0 };
let paused = false,
  wake = null;

// Between two steps the worker yields to its event loop, so a Pause message can arrive. A message
// to itself is a zero-delay yield (setTimeout would wait at least 4 ms once nested).
const channel = new MessageChannel();
let resumeTick = null;
channel.port1.onmessage = () => resumeTick();
const tick = () =>
  new Promise((resolve) => {
    resumeTick = resolve;
    channel.port2.postMessage(0);
  });

const copy = (params) => Object.fromEntries(Object.entries(params).map(([k, p]) => [k, p.slice()]));

async function train({ settings, steps, every }) {
  const story = await (await fetch(new URL("story.txt", import.meta.url))).text();
  const run = createRun(story, settings);
  postMessage({
    type: "started",
    config: run.config,
    vocab: run.vocab,
    trainWindows: run.trainStarts.length,
    validationWindows: run.valStarts.length,
    validation: run.validate(),
    kernels: kernelsInUse(),
  });
  let losses = [];
  for (let step = 1; step <= steps; step++) {
    if (paused) {
      postMessage({ type: "paused", step: step - 1, weights: copy(run.params) });
      await new Promise((resolve) => {
        wake = resolve;
      });
    }
    const t0 = performance.now();
    const { loss, epoch } = run.step((stage) => postMessage({ type: "stage", stage, step }));
    losses.push(loss);
    postMessage({ type: "step", step, epoch, loss, ms: performance.now() - t0 });
    if (step % every === 0 || step === steps) {
      postMessage({
        type: "checkpoint",
        step,
        train: losses.reduce((a, b) => a + b, 0) / losses.length,
        validation: run.validate(),
        sample: run.sample(SAMPLE.prompt, SAMPLE.length, SAMPLE.seed),
        weights: copy(run.params),
      });
      losses = [];
    }
    await tick();
  }
  postMessage({ type: "done", step: steps, weights: copy(run.params) });
}

self.onmessage = ({ data: msg }) => {
  if (msg.type === "start") train(msg).catch((e) => postMessage({ type: "error", error: String(e.message ?? e) }));
  else if (msg.type === "pause") paused = true;
  else if (msg.type === "resume") {
    paused = false;
    wake?.();
    wake = null;
  }
};
