// A page on one loopback port calls `lllm serve-model` on another (tests/browser/test_serve_model_browser.py),
// as a page of the site calls a model on the reader's machine: cross-origin, from a cross-origin-isolated
// page (COOP + COEP, as the site's pages are), with a JSON body and an Authorization header, so the
// browser sends a CORS preflight first. One plain chat, one streamed chat read as it arrives, and one
// call to a server that does not allow this page's origin. Resolves to a report.
async ({ allowed, refused }) => {
  const report = { isolated: self.crossOriginIsolated, errors: [] };
  const post = (base, extra) =>
    fetch(base + "/v1/chat/completions", {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: "Bearer unused" },
      body: JSON.stringify({ model: "tinyllm", messages: [{ role: "user", content: "Once" }], max_tokens: 40, seed: 3, ...extra }),
    });
  try {
    const plain = await (await post(allowed, {})).json();
    report.plain = plain.choices[0].message.content;
    const response = await post(allowed, { stream: true });
    report.type = response.headers.get("content-type");
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    report.reads = 0;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
      report.reads += 1;
    }
    const events = text.split("\n\n").filter(Boolean);
    report.done = events[events.length - 1] === "data: [DONE]";
    report.streamed = events
      .slice(0, -1)
      .map((e) => JSON.parse(e.slice("data: ".length)))
      .map((chunk) => (chunk.choices[0] && chunk.choices[0].delta.content) || "")
      .join("");
  } catch (e) {
    report.errors.push(String((e && e.stack) || e));
  }
  try {
    await post(refused, {});
    report.refused = "answered";
  } catch (e) {
    report.refused = e.name; // a CORS refusal is a TypeError, with no detail for the page
  }
  return report;
};
