// /tinyllm/inside/ with the model switch on TinyGPT (tests/browser/test_inside_gpt_browser.py): pick
// TinyGPT, wait for its text, move to one position and hand back what the page computed and shows.
// A single async arrow function (the site's CSP has no 'unsafe-eval').
async ({ position }) => {
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
    const select = await until(() => document.querySelector(".lllm-inside__switch select"), "the model switch");
    const lstm = document.querySelector(".lllm-inside");
    select.value = "tinygpt";
    select.dispatchEvent(new Event("change"));
    const root = document.querySelector(".lllm-inside-gpt");
    await until(() => ["ready", "error"].includes(root.dataset.state), "TinyGPT's text");
    const slider = root.querySelector("[name=position]");
    slider.value = String(position);
    slider.dispatchEvent(new Event("input"));
    const tables = [...root.querySelectorAll("table.lllm-inside__attention")];
    return {
      state: root.dataset.state,
      lstmHidden: lstm.hidden,
      gptHidden: root.hidden,
      status: root.querySelector(".lllm-inside__status").textContent,
      view: root.lllmView,
      saving: root.lllmSaving,
      savingText: root.querySelector(".lllm-inside__saving").textContent,
      text: root.lllmTrace.ids.map((i) => root.lllmTrace.vocab[i]).join(""),
      tables: tables.map((t) =>
        [...t.querySelectorAll("tbody tr")].map((tr) => [...tr.querySelectorAll("td")].map((td) => Number(td.dataset.value))),
      ),
      headers: tables.length ? [...tables[0].querySelectorAll("thead th")].slice(1).map((th) => th.textContent) : [],
    };
  } catch (e) {
    return { fatal: String(e.stack ?? e) };
  }
};
