// The /tinyllm/train/ page in any engine (tests/browser/test_train_tab_browser.py): train a fixed
// number of steps with the page's buttons, wait for the model it saves, write with it, and hand back
// the numbers shown, the text, and the ONNX file and card the page made (base64 / JSON).
// A single async arrow function, as tests/support/engine_scenario.js.
async ({ steps, hidden, seed, prompt, genSeed, length }) => {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const until = async (test, what, ms = 900_000) => {
    const deadline = Date.now() + ms;
    while (!test()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(100);
    }
  };
  const base64 = (bytes) => {
    let s = "";
    for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(s);
  };
  try {
    await until(() => document.querySelector(".lllm-train button"), "the widget", 60_000);
    const root = document.querySelector(".lllm-train");
    const set = (name, value) => {
      root.querySelector(`[name="${name}"]`).value = String(value);
    };
    set("steps", steps);
    set("hidden", hidden);
    set("seed", seed);
    root.querySelector("button.md-button--primary").click();
    await until(() => root.dataset.exported === "yes" || ["error", "stopped"].includes(root.dataset.state), "training and the saved model");
    if (root.dataset.exported !== "yes") throw new Error(root.querySelector(".lllm-train__stage").textContent);
    const stageLinks = [...new Set(Object.keys(root.lllmTrain.seen))].map((s) => [s, Boolean(document.getElementById(`stage-${s}`))]);
    set("prompt", prompt);
    set("gen-seed", genSeed);
    set("temperature", 0.8);
    set("length", length);
    [...root.querySelectorAll(".lllm-train__export button")].find((b) => b.textContent.startsWith("Write")).click();
    await until(() => root.dataset.written, "the text", 300_000);
    const s = root.lllmTrain;
    return {
      state: root.dataset.state,
      written: root.dataset.written,
      points: s.points,
      stageLinks,
      samples: root.querySelectorAll(".lllm-train__samples li").length,
      tableRows: root.querySelectorAll(".lllm-train__table tbody tr").length,
      text: root.querySelector(".lllm-train__written").textContent,
      onnx: base64(s.onnx),
      card: s.card,
      kernels: s.kernels,
    };
  } catch (e) {
    return { fatal: `${e}\n${e && e.stack}` };
  }
};
