// The /tinyllm/inside/ page in any engine (tests/browser/test_inside_browser.py): generate, scrub to one
// position with the slider and the buttons, read what the page shows there, then move the temperature
// knob and read it again. A single async arrow function, as tests/support/engine_scenario.js.
async ({ prompt, seed, length, position, temperature }) => {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const root = document.querySelector(".lllm-inside");
  const until = async (test, what) => {
    const deadline = Date.now() + 300_000;
    while (!test()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(50);
    }
  };
  const set = (name, value) => {
    const control = root.querySelector(`[name="${name}"]`);
    control.value = String(value);
    control.dispatchEvent(new Event("input", { bubbles: true }));
  };
  const shown = () => {
    const view = JSON.parse(JSON.stringify(root.lllmView));
    const cell = (table, row, col) =>
      Number(root.querySelectorAll(`table[data-table="${table}"] tbody tr`)[row].querySelectorAll("td")[col].dataset.value);
    const draw = root.querySelector(".lllm-inside__draw");
    return {
      view,
      runs: Number(root.dataset.runs),
      dom: {
        forget0: cell("layer 0", 0, 1),
        embedding0: cell("embedding", 0, 0),
        top: [...root.querySelectorAll(".lllm-inside__dist tbody tr")]
          .slice(0, 5)
          .map((tr) => [tr.dataset.char, Number(tr.querySelectorAll("td")[2].dataset.value)]),
        drawn: draw.dataset.char,
        uniform: draw.dataset.uniform,
        heatmaps: root.querySelectorAll("canvas.lllm-inside__heat").length,
        tables: root.querySelectorAll("details table").length,
      },
    };
  };
  try {
    await until(() => root.dataset.state === "idle", "the widget, waiting for Generate (the model loads on it)");
    set("prompt", prompt);
    set("seed", seed);
    set("length", length);
    set("temperature", temperature);
    const before = Number(root.dataset.runs);
    root.querySelector(".lllm-inside__controls button").click();
    await until(() => root.dataset.state === "ready" && Number(root.dataset.runs) > before, "Generate");
    set("position", position + 1);
    [...root.querySelectorAll(".lllm-inside__scrub button")].find((b) => b.textContent.includes("previous")).click();
    const at = shown();
    set("temperature", 1.5);
    const hotter = shown();
    const resources = performance.getEntriesByType("resource").map((e) => e.name);
    return { at, hotter, resources, state: root.dataset.state };
  } catch (e) {
    return { fatal: `${e}\n${e && e.stack}` };
  }
};
