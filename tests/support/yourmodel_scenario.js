// "Your model" on the ReAct page in any engine (tests/browser/test_yourmodel_engines.py): what the CSP
// lets the page reach, a server that refuses the origin, a run streamed into the trace, the server
// stopped, and the settings read back. A single async arrow function, as tests/support/engine_scenario.js
// (the site's CSP has no 'unsafe-eval'). arg: {url, model, prose, refusing, control, offsite, goal}.
async ({ url, model, prose, refusing, control, offsite, goal }) => {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const report = { reach: {}, runs: {} };
  const violations = [];
  document.addEventListener("securitypolicyviolation", (e) => violations.push({ blocked: e.blockedURI, directive: e.violatedDirective }));

  async function reach(target) {
    try {
      const response = await fetch(target, { mode: "cors" });
      return `read ${response.status}`;
    } catch (e) {
      return `refused: ${e.name}`;
    }
  }

  const demo = document.querySelector('.lllm-demo[data-demo="react"]');
  const set = (name, value) => {
    const box = demo.querySelector(`[name=${name}]`);
    box.value = value;
    box.dispatchEvent(new Event("change"));
  };

  // Run the demo; keep every distinct text the streaming replies showed, and the time to the end.
  async function run(label, target, name = model) {
    set("your_model_url", target);
    set("your_model_name", name);
    set("goal", goal);
    const seen = [];
    const observer = new MutationObserver(() => {
      const text = [...demo.querySelectorAll(".lllm-your-model__stream")].map((p) => p.textContent).join("\n---\n");
      if (text && seen[seen.length - 1] !== text) seen.push(text);
    });
    observer.observe(demo, { subtree: true, childList: true, characterData: true });
    const started = performance.now();
    demo.querySelector(".lllm-demo__run").click();
    const deadline = Date.now() + 600_000;
    while (demo.dataset.state === "running" || demo.dataset.state === "idle") {
      if (Date.now() > deadline) throw new Error(`timed out on ${label}`);
      await sleep(50);
    }
    observer.disconnect();
    const answer = demo.querySelector(".lllm-demo__answer");
    report.runs[label] = {
      state: demo.dataset.state,
      ms: Math.round(performance.now() - started),
      seen,
      error: demo.querySelector(".lllm-demo__error")?.textContent ?? null,
      answer: answer ? answer.textContent : null,
      result: demo.lllmResult,
      raw: [...demo.querySelectorAll(".lllm-demo__raw")].map((p) => p.textContent),
      prompt: demo.querySelector(".lllm-your-model__prompt pre")?.textContent ?? null,
    };
  }

  try {
    report.sync = window.lllm.sync;
    report.reach.loopback = await reach(`${url}/v1/models`);
    report.reach.localhost = await reach(`${url.replace("127.0.0.1", "localhost")}/v1/models`);
    report.reach.offsite = await reach(offsite);
    report.reach.internet = await reach("https://example.com/");
    await sleep(200); // violation events are queued as tasks
    report.violations = violations;

    const brain = demo.querySelector("[name=brain]");
    brain.value = "yourmodel";
    brain.dispatchEvent(new Event("change"));
    // the fields are drawn once their module has loaded: picking this brain is what imports it (brainlist.mjs)
    for (let waited = 0; !demo.querySelector(".lllm-your-model") && waited < 30000; waited += 50) await sleep(50);
    report.fieldsShown = !demo.querySelector(".lllm-your-model")?.hidden;

    await run("refusing", refusing);
    await run("unknown", url, "no-such-model");
    await run("prose", url, prose); // the story model: no ReAct format
    await run("served", url);
    report.stored = localStorage.getItem("lllm.yourmodel.v1");
    report.stopped = await (await fetch(`${control}/stop`, { method: "POST" })).text();
    await run("stopped", url);

    const settings = await import(new URL("../../assets/agents/yourmodel.mjs", location.href).href);
    localStorage.setItem(settings.STORAGE_KEY, "{not json");
    report.corrupt = settings.loadSettings();
    localStorage.setItem(settings.STORAGE_KEY, JSON.stringify({ url: "https://example.com", model: "m" }));
    report.offsiteSaved = settings.loadSettings();
    localStorage.removeItem(settings.STORAGE_KEY);
    return report;
  } catch (e) {
    return { ...report, fatal: `${e}\n${e && e.stack}` };
  }
};
