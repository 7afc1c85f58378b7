// Firefox for the scripts beside this one: Debian's firefox-esr driven by Puppeteer over WebDriver BiDi
// (no geckodriver, no browser download). The launch and the watched tab, written once.

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

/** A new tab whose console errors and uncaught errors are pushed to `errors`. `eager`: every widget
 *  drawn at once, not as it comes near the viewport (tests/support/runtime.py, EAGER). */
export async function openTab(browser, errors, { eager = true } = {}) {
  const page = await browser.newPage();
  if (eager) await page.evaluateOnNewDocument("window.lllmEager = true;");
  page.on("console", (msg) => msg.type() === "error" && errors.push(msg.text()));
  page.on("pageerror", (error) => errors.push(`uncaught: ${error.message}`));
  return page;
}
