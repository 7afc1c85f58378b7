// Firefox for the engine tests: Debian's firefox-esr driven by Puppeteer over WebDriver BiDi (no
// geckodriver, no browser download). Opens one page, runs tests/support/engine_scenario.js in it, prints
// {report, console} as one JSON line. Used by tests/browser/test_engine_firefox.py and bench/engine_bench.py.
//
//   node tests/support/firefox_scenario.mjs URL [SCENARIO_ARG_JSON] [--script FILE]
//
// --script FILE runs another page function instead (the benchmark's), with the same argument.

import { readFileSync } from "node:fs";
import { launchFirefox, openTab, pageFunction } from "./firefox.mjs";

const [url, argJson = "{}", flag, file] = process.argv.slice(2);
const scenario = readFileSync(flag === "--script" ? file : new URL("./engine_scenario.js", import.meta.url), "utf8");
const browser = await launchFirefox();
const console_ = [];
try {
  const page = await openTab(browser, console_);
  await page.goto(url, { waitUntil: "load" });
  // Node turns our own test file into a function (new Function, in the global scope); the page gets a function.
  const report = await page.evaluate(pageFunction(scenario), JSON.parse(argJson));
  process.stdout.write(JSON.stringify({ report, console: console_ }) + "\n");
} finally {
  await browser.close();
}
