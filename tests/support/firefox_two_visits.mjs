// Firefox for a scenario that hands back a link to open next (the time-travel test): one launch of
// Debian's firefox-esr through Puppeteer (as firefox_scenario.mjs), the first page function on URL,
// then the page goes to the report's `link` and the second page function runs there (a report with
// `links` instead: each in turn, `linked` their list), each left only once the network is idle. Prints
// {report, linked, console} as one JSON line.
//
//   node tests/support/firefox_two_visits.mjs URL ARG_JSON FIRST_SCRIPT SECOND_SCRIPT

import { readFileSync } from "node:fs";
import { launchFirefox, openTab, pageFunction } from "./firefox.mjs";

const [url, argJson, first, second] = process.argv.slice(2);
const browser = await launchFirefox({ protocolTimeout: 1_800_000 }); // a page function may wait for two model runs on a busy machine
const console_ = [];
try {
  const page = await openTab(browser, console_);
  await page.goto(url, { waitUntil: "load" });
  // Node turns our own test files into functions (new Function, in the global scope); the page gets functions.
  const report = await page.evaluate(pageFunction(readFileSync(first, "utf8")), JSON.parse(argJson));
  const visits = [];
  for (const link of report.links ?? (report.link ? [report.link] : [])) {
    // leave as a reader would, once what the page asked for has come (a module the scenario's touch
    // began to load, CodeMirror say): Firefox logs a fetch cut off by leaving, through the service
    // worker, as an error of the page's
    await page.waitForNetworkIdle({ idleTime: 500, timeout: 120_000 }).catch(() => {});
    await page.goto("about:blank");
    await page.goto(link, { waitUntil: "load" });
    visits.push(await page.evaluate(pageFunction(readFileSync(second, "utf8"))));
  }
  const linked = report.links ? visits : (visits[0] ?? null);
  process.stdout.write(JSON.stringify({ report, linked, console: console_ }) + "\n");
} finally {
  await browser.close();
}
