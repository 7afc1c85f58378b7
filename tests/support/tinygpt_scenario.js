// TinyGPT in the page, run by every engine's test (tests/browser/test_tinygpt_engines.py): on
// /playground/, the model switch set to TinyGPT, a generation long enough to fill the model's
// context (its cache is refilled), and a second one asked of window.lllm directly. A single async
// arrow function (the site's CSP has no 'unsafe-eval'); it resolves to a JSON-able report.
async ({ prompt, seed, length, direct }) => {
  const report = { errors: [] };
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  async function until(test, what, timeout = 600_000) {
    const deadline = Date.now() + timeout;
    for (;;) {
      const value = test();
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(100);
    }
  }
  try {
    const root = await until(() => document.querySelector(".lllm-playground[data-lllm-ready]"), "the playground");
    const set = (name, value) => {
      root.querySelector(`[name=${name}]`).value = String(value);
    };
    set("model", "tinygpt");
    report.models = Array.from(root.querySelectorAll("[name=model] option"), (o) => o.value);
    root.querySelector(".lllm-pg__prompt").value = prompt;
    set("seed", seed);
    set("maxNewTokens", length);
    root.querySelector(".md-button--primary").click();
    await until(() => ["ok", "error"].includes(root.dataset.done), "the playground's text");
    report.done = root.dataset.done;
    report.status = root.querySelector(".lllm-pg__status").textContent;
    report.playground = root.querySelector(".lllm-pg__completion").textContent;
    report.direct = await window.lllm.generate({ model: "tinygpt", ...direct }); // the completion only
  } catch (e) {
    report.errors.push(String(e.message ?? e));
  }
  return report;
};
