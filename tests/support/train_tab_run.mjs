// Replays the page's trainer (site/assets/train/trainer.mjs) in Node for the parity test and the
// benchmark: node train_tab_run.mjs '{"settings": {...}, "steps": N}' prints one JSON object with the
// vocabulary, the config, the initial weights (float32 bytes, base64), each step's batch (window
// starts) and loss, the milliseconds the steps took, the final weights and the ONNX file the page
// would write for them (onnx.mjs), base64, and which kernels ran (settings.kernels "js": no WebAssembly).
import { readFileSync } from "node:fs";
import { createRun } from "../../site/assets/train/trainer.mjs";
import { toOnnx } from "../../site/assets/train/onnx.mjs";
import { kernelsInUse } from "../../site/assets/train/tinyllm.mjs";

const { settings = {}, steps = 10 } = JSON.parse(process.argv[2] ?? "{}");
const story = readFileSync(new URL("../../export/story.txt", import.meta.url), "utf8");
const run = createRun(story, settings);
const bytes = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString("base64");
const init = Object.fromEntries(Object.entries(run.params).map(([k, p]) => [k, bytes(p.slice())]));
const log = [];
const t0 = performance.now();
for (let i = 0; i < steps; i++) {
  const { loss, norm, starts } = run.step();
  log.push({ loss, norm, starts });
}
const ms = performance.now() - t0;
const final = Object.fromEntries(Object.entries(run.params).map(([k, p]) => [k, bytes(p)]));
const onnx = Buffer.from(toOnnx(run.params, run.config)).toString("base64");
console.log(
  JSON.stringify({
    kernels: kernelsInUse(),
    vocab: run.vocab,
    config: run.config,
    init,
    final,
    onnx,
    steps: log,
    ms,
    validation: run.validate(),
  }),
);
