// Firefox for a scenario that hands back a link to open next (the time-travel test): one launch of
// Debian's firefox-esr through Puppeteer (as firefox_scenario.mjs), the first page function on URL,
// then the page goes to the report's `link` and the second page function runs there. Prints
// {report, linked, console} as one JSON line.
//
//   node tests/support/firefox_two_visits.mjs URL ARG_JSON FIRST_SCRIPT SECOND_SCRIPT

import { readFileSync } from "node:fs";
import puppeteer from "puppeteer";

const [url, argJson, first, second] = process.argv.slice(2);
const browser = await puppeteer.launch({
  browser: "firefox",
  executablePath: process.env.FIREFOX ?? "/usr/bin/firefox-esr",
  headless: true,
  protocolTimeout: 1_800_000,          // a page function may wait for two model runs on a busy machine
  extraPrefsFirefox: { "browser.shell.checkDefaultBrowser": false, "datareporting.policy.dataSubmissionEnabled": false },
});
const console_ = [];
try {
  const page = await browser.newPage();
  await page.evaluateOnNewDocument("window.lllmEager = true;");   // every widget drawn at once (tests/support/runtime.py, EAGER)
  page.on("console", (msg) => msg.type() === "error" && console_.push(msg.text()));
  page.on("pageerror", (error) => console_.push(`uncaught: ${error.message}`));
  await page.goto(url, { waitUntil: "load" });
  // (0, eval) here is Node evaluating our own test files into functions; the page gets functions.
  const report = await page.evaluate((0, eval)(readFileSync(first, "utf8")), JSON.parse(argJson));
  let linked = null;
  if (report.link) {
    await page.goto("about:blank");
    await page.goto(report.link, { waitUntil: "load" });
    linked = await page.evaluate((0, eval)(readFileSync(second, "utf8")));
  }
  process.stdout.write(JSON.stringify({ report, linked, console: console_ }) + "\n");
} finally {
  await browser.close();
}
