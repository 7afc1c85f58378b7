// Benchmark: where the training tab (/tinyllm/train/) starts to overfit. Node runs the page's own
// modules (site/assets/train/trainer.mjs, the worker's loop: a checkpoint every 50 steps) for each
// number of hidden units, and prints, as a Markdown table, the best validation loss, the step it was
// reached at (early.mjs's turn point), the validation and training loss at the last step, and the
// 60 characters the last checkpoint writes after "Once", with the date and the machine.
// Not a test: it trains for minutes. site/tinyllm/train.md#overfitting quotes its output.
//
//   node bench/train_tab_overfit.mjs [steps=2000] [hidden=16,64,128,256] [lr=0.01]
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { createRun } from "../site/assets/train/trainer.mjs";
import { turnPoint } from "../site/assets/train/early.mjs";
import { kernelsInUse } from "../site/assets/train/tinyllm.mjs";

const [steps = 2000, hiddens = "16,64,128,256", lr = 0.01] = process.argv.slice(2);
const story = readFileSync(new URL("../export/story.txt", import.meta.url), "utf8");
const EVERY = 50;
const rows = [];
for (const hidden of String(hiddens).split(",").map(Number)) {
  const run = createRun(story, { hidden, lr: Number(lr), seed: 0 });
  const points = [{ step: 0, train: null, validation: run.validate() }];
  let losses = [],
    sample = "";
  for (let step = 1; step <= Number(steps); step++) {
    losses.push(run.step().loss);
    if (step % EVERY === 0) {
      points.push({ step, train: losses.reduce((a, b) => a + b, 0) / losses.length, validation: run.validate() });
      losses = [];
    }
  }
  sample = run.sample("Once", 60, 0);
  const best = turnPoint(points) ?? points.at(-1),
    last = points.at(-1);
  rows.push(
    `| ${hidden} | ${best.validation.toFixed(2)} at step ${best.step} | ${last.validation.toFixed(2)} | ${last.train.toFixed(2)} | \`Once${sample.replace(/\n/g, "↵").replace(/\|/g, "\\|")}\` |`,
  );
  console.error(`hidden ${hidden} done (${kernelsInUse()})`);
}
console.log(
  `Measured ${new Date().toISOString().slice(0, 10)}, Node ${process.version} (${kernelsInUse()} kernels), ${cpus().length} cores, load ${loadavg()[0].toFixed(1)}; ${steps} steps, learning rate ${lr}, seed 0.\n`,
);
console.log("| hidden units | lowest validation loss | validation loss at the end | training loss at the end | the last sample |");
console.log("|---|---|---|---|---|");
rows.forEach((r) => console.log(r));
