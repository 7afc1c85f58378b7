// One reader's visit, run inside the page by every engine's test (Chromium: Playwright, Firefox:
// Puppeteer over WebDriver BiDi, WebKit: Selenium over WebKitWebDriver), so each engine is asked
// exactly the same thing and their answers can be compared with each other and with CPython.
//
// It is a single async arrow function (drivers pass it as a function, never as code to eval: the
// site's CSP has no 'unsafe-eval'). It starts on /agents/react/ and moves with Material's instant
// navigation, so the runtime boots once: the agent demo, a runnable cell, a quiz's code editor and a code attempt,
// the reasoning lab, then a runaway cell stopped. It resolves to a JSON-able report; a step that
// fails records its error instead of throwing, so one report says everything that went wrong.
async ({ goal, brain }) => {
  const LONG = 600_000; // ms: a cold boot plus an agent run on a busy 2-core machine
  const report = { sync: window.lllm.sync, jspi: window.lllm.jspi, isolated: globalThis.crossOriginIsolated, errors: [] };
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  async function until(test, what, timeout = LONG) {
    const deadline = Date.now() + timeout;
    for (;;) {
      const value = test();
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(100);
    }
  }
  async function go(path) {
    // follow a link as a reader would: instant navigation swaps the page
    const url = new URL(path, location.origin).href;
    if (location.href.split("#")[0] === url) return;
    document.querySelector("article").dataset.old = "yes";
    const a = Object.assign(document.createElement("a"), { href: url });
    document.body.append(a);
    a.click();
    await until(() => location.href.split("#")[0] === url && document.querySelector("article:not([data-old])"), `the page ${path}`);
  }
  async function step(name, body) {
    try {
      report[name] = await body();
    } catch (e) {
      report.errors.push(`${name}: ${e.message}`);
    }
  }
  const runCell = async (cell, code) => {
    const bar = cell.nextElementSibling;
    if (code !== undefined) cell.lllmEditor.value = code; // site/assets/editor/editor.mjs's handle
    delete cell.dataset.lllmResult;
    bar.querySelector("button").click(); // Run
    return cell;
  };

  await step("ready", async () => {
    await window.lllm.ready();
    return window.lllm.status.state;
  });
  await step("demo", async () => {
    const demo = document.querySelector('.lllm-demo[data-demo="react"]');
    demo.querySelector("[name=goal]").value = goal;
    const select = demo.querySelector("[name=brain]");
    select.value = brain;
    select.dispatchEvent(new Event("change"));
    demo.querySelector(".lllm-demo__run").click();
    await until(() => ["done", "error"].includes(demo.dataset.state), "the agent demo");
    return {
      state: demo.dataset.state,
      params: demo.lllmParams,
      answer: demo.lllmResult?.trajectory?.answer ?? null,
      trace: demo.lllmResult?.trace ?? demo.textContent,
    };
  });
  await step("cell", async () => {
    await go("/playground/");
    const cell = await runCell(document.querySelector("div.runnable.highlight"));
    await until(() => cell.dataset.lllmResult, "the first cell");
    return { result: cell.dataset.lllmResult, output: cell.nextElementSibling.nextElementSibling.textContent };
  });
  await step("editor", async () => {
    // the exercise's code editor: in place once touched; Tab indents; no key leaves it
    await go("/tinyllm/onnx/");
    const q = await until(() => document.querySelector('.lllm-q[data-qid="onnx-reorder-code"]'), "the quiz");
    q.scrollIntoView();
    q.querySelector("textarea")?.focus(); // the reader's touch (editor.mjs): focus swaps the editor in
    await until(() => q.dataset.editor !== "waiting", "the code editor");
    const content = q.querySelector(".cm-content");
    if (!content) return { state: q.dataset.editor };
    content.focus();
    q.lllmEditor.value = "";
    const press = (key, keyCode = 0) =>
      content.dispatchEvent(new KeyboardEvent("keydown", { key, keyCode, bubbles: true, cancelable: true }));
    press("Tab", 9);
    const where = location.href;
    for (const key of ["n", "p", "s", "/", "."]) press(key);
    await sleep(500);
    return {
      state: q.dataset.editor,
      tab: q.lllmEditor.value,
      labelled: content.getAttribute("aria-labelledby"),
      stayed: location.href === where && !document.querySelector("[data-md-toggle=search]").checked,
    };
  });
  await step("quiz", async () => {
    await go("/tinyllm/onnx/");
    const q = await until(() => document.querySelector('.lllm-q[data-qid="onnx-reorder-code"]'), "the quiz");
    q.lllmEditor.value =
      "def onnx_gate_order(w, H):\n" + "    i, f, o, g = (w[k * H:(k + 1) * H] for k in range(4))\n    return i + o + f + g\n";
    q.querySelector("button[type=submit]").click();
    const output = q.querySelector(".lllm-q__output");
    await until(() => !output.hidden && !output.textContent.startsWith("Running"), "the quiz's grade");
    return output.textContent;
  });
  await step("lab", async () => {
    await go("/reasoning/");
    const run = await until(() => document.querySelector(".lllm-reasoning-lab__run"), "the reasoning lab's Run");
    const lab = run.closest(".lllm-reasoning-lab");
    run.click();
    await until(() => ["done", "error"].includes(lab.dataset.state), "the reasoning lab");
    return { state: lab.dataset.state, text: lab.querySelector(".lllm-reasoning-lab__output").textContent.slice(0, 2000) };
  });
  await step("stop", async () => {
    await go("/playground/");
    const cell = await runCell(document.querySelector("div.runnable.highlight"), "while True: pass");
    await until(() => cell.classList.contains("lllm-cell--running"), "the endless cell to start");
    await sleep(1000);
    const stillRunning = cell.classList.contains("lllm-cell--running");
    cell.nextElementSibling.querySelectorAll("button")[1].click(); // Stop
    await until(() => cell.dataset.lllmResult, "Stop", 30_000);
    const stopped = cell.dataset.lllmResult;
    await runCell(cell, "print('alive', 2 + 2)");
    await until(() => cell.dataset.lllmResult, "the cell after Stop");
    return { stillRunning, stopped, after: cell.nextElementSibling.nextElementSibling.textContent };
  });
  return report;
};
