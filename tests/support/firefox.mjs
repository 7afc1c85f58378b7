// Firefox for the scripts beside this one: Debian's firefox-esr driven by Puppeteer over WebDriver BiDi
// (no geckodriver, no browser download). The launch, the watched tab and a page function, written once.

import puppeteer from "puppeteer";

/** One Firefox; `options` are added to Puppeteer's launch options (a longer protocolTimeout, say). */
export function launchFirefox(options = {}) {
  return puppeteer.launch({
    browser: "firefox",
    executablePath: process.env.FIREFOX ?? "/usr/bin/firefox-esr",
    headless: true,
    extraPrefsFirefox: { "browser.shell.checkDefaultBrowser": false, "datareporting.policy.dataSubmissionEnabled": false },
    ...options,
  });
}

/** One of our page-function files (a single arrow function; the formatter ends the statement with a
 *  semicolon) as a function, made by Node in the global scope: the page gets a function, never code to eval. */
export const pageFunction = (source) => new Function(`return (\n${source.trim().replace(/;$/, "")}\n)`)();

/** A new tab whose console errors and uncaught errors are pushed to `errors`. `eager`: every widget
 *  drawn at once, not as it comes near the viewport (tests/support/runtime.py, EAGER). */
export async function openTab(browser, errors, { eager = true } = {}) {
  const page = await browser.newPage();
  if (eager) await page.evaluateOnNewDocument("window.lllmEager = true;");
  page.on("console", (msg) => msg.type() === "error" && errors.push(msg.text()));
  page.on("pageerror", (error) => errors.push(`uncaught: ${error.message}`));
  return page;
}
