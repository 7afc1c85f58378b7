// Firefox for tests that open several pages in turn (tests/browser/test_progress_recovery_engines.py):
// Debian's firefox-esr driven by Puppeteer over WebDriver BiDi, launched once. For each visit it
// empties the site's storage, writes the given entries from robots.txt (a page without scripts), opens
// the page, waits for `waitFor`, clicks `click` if given, waits for `then` and reports what the page
// shows. Prints one JSON line: {visits: [{path, shown, stored, notice}], console: [...]}.
//
//   node tests/support/firefox_pages.mjs BASE_URL PLAN_JSON
//   PLAN: {entries: {key: text}, visits: [{path, waitFor, click, then, show}], read: [storage key, ...]}

import { launchFirefox, openTab } from "./firefox.mjs";

const [base, planJson] = process.argv.slice(2);
const plan = JSON.parse(planJson);
const browser = await launchFirefox();
const console_ = [];
const visits = [];
try {
  const page = await openTab(browser, console_);
  for (const visit of plan.visits) {
    await page.goto(base + "robots.txt");
    await page.evaluate((entries) => {
      localStorage.clear();
      sessionStorage.clear();
      for (const [k, v] of Object.entries(entries)) localStorage.setItem(k, v);
    }, plan.entries);
    await page.goto(base + visit.path, { waitUntil: "load" });
    await page.waitForSelector(visit.waitFor, { timeout: 60_000 });
    const notice = await page.evaluate(() => document.querySelector("#lllm-recovery")?.getAttribute("role") ?? null);
    if (visit.click) await page.click(visit.click);
    await page.waitForFunction(([sel, text]) => document.querySelector(sel)?.textContent.includes(text), { timeout: 60_000 }, visit.then);
    const shown = await page.evaluate((sels) => sels.map((s) => document.querySelector(s)?.textContent ?? null), visit.show);
    const stored = await page.evaluate((keys) => keys.map((k) => localStorage.getItem(k)), plan.read);
    visits.push({ path: visit.path, notice, shown, stored });
  }
  process.stdout.write(JSON.stringify({ visits, console: console_ }) + "\n");
} finally {
  await browser.close();
}
