// Firefox for the prefetch test (tests/browser/test_prefetch_firefox.py): Debian's firefox-esr through
// Puppeteer, launched once. Opens PAGE until its service worker controls it and has saved the page, then LEAVES times opens it
// again and leaves for about:blank as soon as it has loaded, which would cancel a prefetch of a page
// its <head> named (a <link rel="next">) mid-flight. Prints one JSON line: {prefetched: [url, ...], console: [...]}.
//
//   node tests/support/firefox_leave_early.mjs PAGE_URL LEAVES

import { launchFirefox, openTab } from "./firefox.mjs";

const [url, leaves] = process.argv.slice(2);
const browser = await launchFirefox();
const console_ = [];
const prefetched = [];
try {
  const page = await openTab(browser, console_, { eager: false });
  page.on("request", (request) => request.headers()["sec-purpose"] === "prefetch" && prefetched.push(request.url()));
  await page.goto(url, { waitUntil: "load" });
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, { timeout: 60_000 });
  // Until this page is saved for offline use, its own files come through the worker from the network,
  // and leaving mid-download is Firefox's error too (search_index.json, 1 run in a few): one visit the
  // worker controls saves them. This test is about the prefetch, which stays on the network regardless.
  await page.goto(`${url}?visit=warm`, { waitUntil: "load" });
  await page.waitForFunction(() => ["pages", "all"].includes(document.documentElement.dataset.offline), { timeout: 900_000, polling: 500 });
  await new Promise((resolve) => setTimeout(resolve, 3000)); // Material's search index, fetched after load
  for (let i = 0; i < Number(leaves); i++) {
    await page.goto(`${url}?visit=${i}`, { waitUntil: "load" });
    await page.goto("about:blank");
  }
  await new Promise((resolve) => setTimeout(resolve, 1000)); // a late console message still counts
  process.stdout.write(JSON.stringify({ prefetched, console: console_ }) + "\n");
} finally {
  await browser.close();
}
