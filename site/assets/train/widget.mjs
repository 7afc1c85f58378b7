// The /tinyllm/train/ widget: the knobs, Train / Pause / Resume / Stop, the live stage line, the
// loss curves (an SVG and the same numbers as a table), a sample at each checkpoint, then the trained
// weights as an ONNX model made in this tab (onnx.mjs), kept in this browser as "your trained model"
// (yours.mjs) for every page's generation, offered for download with its card, and run here by the
// same onnxruntime-web code as the site's own models (window.lllm, ../runtime/model.mjs).
// Early stopping (early.mjs) watches each checkpoint's validation loss: the learner chooses to keep
// the last weights, keep the best ones, or stop once validation has not improved for N checkpoints.
// "Your saved model" (saved.mjs) shows the stored model whenever the page opens, after a reload too.
// Read train-worker.mjs first. State for tests: root.dataset.state (idle, training, paused, stopped,
// done, error), root.dataset.exported ("yes" once the model is stored) and root.dataset.stoppedEarly
// (the step, when early stopping ended the run); root.lllmTrain holds the numbers shown.

import { el, field, input, select, table } from "../runtime/dom.mjs";
import { drawCurves } from "./curves.mjs";
import { MODES, earlyStop } from "./early.mjs";
import { toOnnx } from "./onnx.mjs";
import { downloadLinks, savedPanel } from "./saved.mjs";
import { YOURS, sha256Hex, storeYours } from "./yours.mjs";
import { countParameters } from "./tinyllm.mjs";

const KNOBS = [
  // [name, label, default, attributes]
  ["hidden", "hidden units", 64, { type: "number", min: 4, max: 256, step: 4 }],
  ["lr", "learning rate", 0.01, { type: "number", min: 0.0001, max: 0.1, step: 0.001 }],
  ["steps", "steps", 400, { type: "number", min: 1, max: 100000, step: 1 }],
  ["seed", "seed", 0, { type: "number", min: 0, step: 1 }],
];
const EVERY = 50; // steps between checkpoints
const STAGES = { forward: "#stage-forward", loss: "#stage-loss", backward: "#stage-backward", update: "#stage-update" };

export function mount(root) {
  if (root.dataset.lllmReady) return;
  root.dataset.lllmReady = "1";
  const inputs = {};
  const knobs = el("div", { class: "lllm-train__controls" });
  for (const [name, label, value, attributes] of KNOBS) {
    inputs[name] = input(name, value, attributes);
    knobs.append(field(label, inputs[name], "lllm-train__field"));
  }
  const button = (label, primary = false) =>
    el("button", { type: "button", class: `md-button${primary ? " md-button--primary" : ""}` }, label);
  const go = button("Train", true),
    pause = button("Pause"),
    stop = button("Stop");
  pause.disabled = stop.disabled = true;
  knobs.append(go, pause, stop);
  const mode = select("early", Object.entries(MODES), "off");
  const patience = input("patience", 3, { type: "number", min: 1, max: 1000, step: 1 });
  const early = el(
    "div",
    { class: "lllm-train__controls" },
    field("when validation loss stops improving", mode, "lllm-train__field"),
    field("after checkpoints without improvement", patience, "lllm-train__field"),
  );
  const saved = savedPanel({
    onChange: (card) => {
      write.disabled = !card;
    },
  });

  const stage = el("p", { class: "lllm-train__stage" }, "Not training yet.");
  const news = el("p", { class: "lllm-train__news", role: "status" }); // checkpoints, for screen readers
  const chart = el("div", { class: "lllm-train__chart" });
  const lossRows = table(["step", "training loss", "validation loss"], [], "lllm-train__table");
  const lossTable = el(
    "details",
    { class: "lllm-train__details" },
    el("summary", {}, "The loss curves as a table"),
    el("div", { class: "lllm-train__tablewrap", tabindex: "0", role: "region", "aria-label": "loss table" }, lossRows),
  );
  const samples = el("ol", { class: "lllm-train__samples" });
  const samplesBox = el("div", {}, el("h2", { class: "lllm-train__h" }, "What it writes after “Once” (seed 0, temperature 0.8)"), samples);

  const exportBtn = button("Save as your model");
  exportBtn.disabled = true;
  const exportNote = el("p", { class: "lllm-train__export-note", role: "status" });
  const downloads = el("p", { class: "lllm-train__downloads" });
  const gen = {
    prompt: input("prompt", "Once", { type: "text" }),
    seed: input("gen-seed", 0, { type: "number", min: 0, step: 1 }),
    temperature: input("temperature", 0.8, { type: "number", min: 0, max: 5, step: 0.1 }),
    length: input("length", 80, { type: "number", min: 1, max: 1000, step: 1 }),
  };
  const write = button("Write with your model");
  write.disabled = true;
  const written = el("pre", { class: "lllm-train__written" });
  const command = el("p", { class: "lllm-train__command" });
  const exportBox = el(
    "div",
    { class: "lllm-train__export" },
    exportBtn,
    exportNote,
    downloads,
    el(
      "div",
      { class: "lllm-train__controls" },
      field("prompt", gen.prompt),
      field("seed", gen.seed),
      field("temperature", gen.temperature),
      field("length", gen.length),
      write,
    ),
    written,
    command,
  );
  root.replaceChildren(saved.box, knobs, early, stage, news, chart, lossTable, samplesBox, exportBox);
  saved.load();

  const fresh = () => ({
    seen: {},
    ms: [],
    points: [],
    weights: null,
    best: null,
    step: 0,
    lastValidation: null,
    lastTrain: null,
    stageAt: null,
  });
  const state = { ...fresh(), config: null, vocab: null, watch: earlyStop() };
  root.lllmTrain = state;
  let worker = null,
    frame = 0,
    startedAt = 0;
  const setState = (s) => {
    root.dataset.state = s;
  };
  setState("idle");

  const showStage = () => {
    frame = 0;
    const { stage: name, step } = state.stageAt ?? {};
    if (!name || root.dataset.state !== "training") return; // a late frame must not hide "Paused" or "Stopped"
    const seconds = ((performance.now() - startedAt) / 1000).toFixed(0);
    stage.replaceChildren(
      `Step ${step} of ${state.total} (${seconds} s): `,
      el("a", { href: STAGES[name] }, name),
      ` · training loss ${state.lastTrain?.toFixed(3) ?? "…"} · validation loss ${state.lastValidation?.toFixed(3) ?? "…"}`,
    );
  };
  const addPoint = (p) => {
    state.points.push(p);
    state.turn = drawCurves(chart, state.points);
    lossRows.tBodies[0].replaceChildren(
      ...state.points.map((q) =>
        el(
          "tr",
          { class: q === state.turn ? "lllm-train__best" : null },
          el("td", {}, String(q.step)),
          el("td", {}, q.train?.toFixed(4) ?? "–"),
          el("td", {}, q.validation.toFixed(4) + (q === state.turn ? " (lowest)" : "")),
        ),
      ),
    );
  };
  // The weights to save: the best checkpoint's when early stopping keeps them, else the latest.
  const chosen = () => (state.watch.keepsBest && state.best ? state.best : { ...state.points.at(-1), weights: state.weights });
  const finish = (how) => {
    setState(how);
    go.disabled = false;
    pause.disabled = stop.disabled = true;
    pause.textContent = "Pause";
    exportBtn.disabled = !state.weights;
    mode.disabled = patience.disabled = false;
  };

  function onMessage({ data: m }) {
    if (!worker) return; // early stopping ended it: what was on its way is stale
    if (m.type === "started") {
      Object.assign(state, { config: m.config, vocab: m.vocab, kernels: m.kernels });
      addPoint({ step: 0, train: null, validation: m.validation });
      news.textContent = `Training ${countParametersOf(m.config).toLocaleString("en")} parameters on ${m.trainWindows} windows; ${m.validationWindows} held-out windows measure the validation loss. ${KERNELS[m.kernels]}`;
    } else if (m.type === "stage") {
      state.stageAt = m;
      state.seen[m.stage] = (state.seen[m.stage] ?? 0) + 1;
      if (!frame) frame = requestAnimationFrame(showStage);
    } else if (m.type === "step") {
      state.step = m.step;
      state.ms.push(m.ms);
      state.lastTrain = m.loss;
    } else if (m.type === "checkpoint") {
      Object.assign(state, { weights: m.weights, lastValidation: m.validation });
      const point = { step: m.step, train: m.train, validation: m.validation };
      const { improved, stop: enough } = state.watch.observe(m.step, m.validation);
      if (improved) state.best = { ...point, weights: m.weights };
      addPoint(point);
      samples.append(el("li", {}, el("span", { class: "lllm-train__at" }, `step ${m.step}: `), el("code", {}, "Once" + m.sample)));
      news.textContent = `Step ${m.step}: validation loss ${m.validation.toFixed(3)}.${state.turn ? ` It was lowest at step ${state.turn.step}.` : ""}`;
      if (enough) stopEarly(m.step);
    } else if (m.type === "paused") {
      state.weights = m.weights;
      setState("paused");
      exportBtn.disabled = false;
      stage.textContent = `Paused after step ${m.step}.`;
    } else if (m.type === "done") {
      state.weights = m.weights;
      worker.terminate();
      worker = null;
      finish("done");
      stage.textContent = `Done: ${m.step} steps in ${((performance.now() - startedAt) / 1000).toFixed(1)} s.${keptNote()}`;
      saveModel();
    } else if (m.type === "error") {
      finish("error");
      stage.textContent = `Training failed: ${m.error}`;
    }
  }

  const keptNote = () =>
    state.watch.keepsBest && state.best && state.best.step !== state.points.at(-1).step
      ? ` Saving the weights of step ${state.best.step}, where validation loss was lowest.`
      : "";
  function stopEarly(step) {
    worker?.terminate();
    worker = null;
    finish("done");
    root.dataset.stoppedEarly = String(step);
    stage.textContent = `Stopped early after step ${step}: validation loss has not improved for ${state.watch.patience} checkpoints.${keptNote()}`;
    saveModel();
  }

  go.addEventListener("click", () => {
    const settings = { hidden: Number(inputs.hidden.value), lr: Number(inputs.lr.value), seed: Number(inputs.seed.value) };
    state.total = Math.max(1, Math.floor(Number(inputs.steps.value)));
    if (!(settings.hidden >= 1 && settings.lr > 0 && Number.isInteger(settings.seed))) {
      stage.textContent = "Hidden units must be at least 1, the learning rate above 0 and the seed a whole number.";
      return;
    }
    if (!(Number.isInteger(Number(patience.value)) && Number(patience.value) >= 1)) {
      stage.textContent = "The number of checkpoints without improvement must be a whole number, at least 1.";
      return;
    }
    Object.assign(state, fresh(), { watch: earlyStop({ mode: mode.value, patience: Number(patience.value) }) });
    delete root.dataset.stoppedEarly;
    samples.replaceChildren();
    lossRows.tBodies[0].replaceChildren();
    chart.replaceChildren();
    worker = new Worker(new URL("./train-worker.mjs", import.meta.url), { type: "module", name: "lllm-train" });
    worker.onmessage = onMessage;
    worker.onerror = (e) => {
      finish("error");
      stage.textContent = `The training worker failed: ${e.message || "it could not start"}`;
    };
    startedAt = performance.now();
    worker.postMessage({ type: "start", settings, steps: state.total, every: EVERY });
    setState("training");
    go.disabled = exportBtn.disabled = mode.disabled = patience.disabled = true; // the run keeps the choice it started with
    pause.disabled = stop.disabled = false;
    stage.textContent = "Starting…";
  });
  pause.addEventListener("click", () => {
    const resuming = root.dataset.state === "paused";
    worker?.postMessage({ type: resuming ? "resume" : "pause" });
    pause.textContent = resuming ? "Pause" : "Resume";
    if (resuming) {
      setState("training");
      exportBtn.disabled = true;
    }
  });
  stop.addEventListener("click", () => {
    worker?.terminate(); // ends it now, even mid-step
    worker = null;
    finish("stopped");
    stage.textContent = `Stopped after step ${state.step}.${state.weights ? ` The weights of the ${state.watch.keepsBest ? "best" : "last"} checkpoint can be saved.` : ""}`;
  });
  exportBtn.addEventListener("click", saveModel);

  async function saveModel() {
    if (!state.weights) return;
    exportNote.textContent = "Writing the ONNX model…";
    const kept = chosen(),
      last = state.points.at(-1);
    const bytes = toOnnx(kept.weights, state.config);
    const card = {
      format: "lllm.tinyllm/1",
      vocab: state.vocab,
      config: { ...state.config, epochs: 1 },
      metrics: {
        steps: kept.step,
        final_loss: kept.train,
        validation_loss: kept.validation,
        trained_steps: last.step,
        early_stopping: state.watch.mode,
        trained_at: new Date().toISOString(),
        trained_in: "a browser tab (/tinyllm/train/)",
      },
      parameters: countParameters(kept.weights),
      onnx_file: `${YOURS}.onnx`,
      onnx_sha256: await sha256Hex(bytes),
      preset: "trained in the tab",
    };
    state.card = card;
    state.onnx = bytes;
    downloads.replaceChildren();
    try {
      await storeYours(bytes, card);
      exportNote.textContent = `Saved in this browser as your model (${(bytes.length / 1024).toFixed(0)} KB, the weights of step ${kept.step}): the playground offers it too, and the ReAct demo and time travel as a brain.`;
      await saved.load();
      root.dataset.exported = "yes";
    } catch (e) {
      exportNote.textContent = `The model could not be saved in this browser (${e.message}); download its two files instead.`;
      downloads.replaceChildren(...downloadLinks(bytes, card));
    }
    write.disabled = false;
  }

  write.addEventListener("click", async () => {
    const params = {
      model: YOURS,
      prompt: gen.prompt.value,
      seed: Number(gen.seed.value),
      temperature: Number(gen.temperature.value),
      maxNewTokens: Number(gen.length.value),
      topK: 0,
      topP: 1,
    };
    written.textContent = "…";
    root.dataset.written = "";
    try {
      await window.lllm.modelReady(YOURS);
      const text = await window.lllm.generate(params);
      written.textContent = params.prompt + text;
      root.dataset.written = "yes";
    } catch (e) {
      written.textContent = e.message;
      root.dataset.written = "error";
    }
    command.replaceChildren(
      "The same text in a terminal, from the downloaded files: ",
      el(
        "code",
        {},
        `python -m lllm generate --model ${YOURS}.onnx --prompt ${JSON.stringify(params.prompt)} --max-new-tokens ${params.maxNewTokens} --temperature ${params.temperature} --seed ${params.seed}`,
      ),
    );
  });
}

// Which arithmetic the worker runs (tinyllm.mjs's kernelsInUse), in the line under the buttons.
const KERNELS = {
  "wasm-relaxed": "The arithmetic runs as WebAssembly SIMD, with fused multiply-adds.",
  wasm: "The arithmetic runs as WebAssembly SIMD.",
  js: "The arithmetic runs as plain JavaScript (this browser has no WebAssembly SIMD).",
};

function countParametersOf({ vocab_size: V, embed: E, hidden: H, layers: L }) {
  return V * E + Array.from({ length: L }, (_, l) => ((l ? H : E) + H + 1) * 4 * H).reduce((a, b) => a + b, 0) + H * V + V;
}
