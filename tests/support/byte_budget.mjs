// Firefox for the byte budget (tests/support/byte_budget.py: firefox_visit): Debian's firefox-esr through
// Puppeteer, launched once for both parts of the measure. First a bare loadPyodide() (first_visit.js,
// phase "bare") on BARE_URL, another origin than the visit's, so the visit shares no HTTP cache or
// service worker with it; then the reader's visit (byte_budget.js) on VISIT_URL, widgets drawn the lazy
// way a reader gets them. Each part's report is printed as one JSON line, and the script waits for a line
// on stdin before going on: meanwhile the caller counts what the server sent until it fell quiet.
//
//   node tests/support/byte_budget.mjs BARE_URL VISIT_URL ARG_JSON
//   -> {bare: {...}}  <- (a line)  -> {visit: {...}, console: [...]}  <- (a line)

import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { launchFirefox, openTab, pageFunction } from "./firefox.mjs";

const [bareUrl, visitUrl, argJson] = process.argv.slice(2);
const script = (name) => pageFunction(readFileSync(new URL(name, import.meta.url), "utf8")); // our own test file, as a function
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const browser = await launchFirefox({ protocolTimeout: 1_800_000 }); // a visit waits for the runtime and the background caching
const console_ = [];
try {
  const bare = await openTab(browser, [], { eager: false });
  await bare.goto(bareUrl, { waitUntil: "load" });
  process.stdout.write(JSON.stringify({ bare: await bare.evaluate(script("first_visit.js"), { phase: "bare" }) }) + "\n");
  await bare.close();
  await lines.next();
  const page = await openTab(browser, console_, { eager: false });
  await page.goto(visitUrl, { waitUntil: "load" });
  const visit = await page.evaluate(script("byte_budget.js"), JSON.parse(argJson));
  process.stdout.write(JSON.stringify({ visit, console: console_ }) + "\n");
  await lines.next();
} finally {
  await browser.close();
}
