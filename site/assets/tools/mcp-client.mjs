// An MCP client in the page: tools of a streamable HTTP server on the reader's own computer
// (`python -m lllm mcp --http --allow-origin ORIGIN`, or any MCP server that allows this page's
// origin). Read lllm/web/page_tools.py first: its tools ask here, through worker.mjs, once per call;
// ../runtime/chat.mjs reaches "your model" the same way, and its notes on what a page may see hold here.
//
// The protocol, as much as a client that only lists and calls tools needs: each message is a
// JSON-RPC POST to the server's one address; `initialize` opens a session (the server may name it
// in the Mcp-Session-Id header, which every later request carries), `notifications/initialized`
// says the client is ready, `tools/list` and `tools/call` do the work. A server answers a request
// with JSON or with a short server-sent event stream holding the reply; both are read here.
//
// What the browser lets a page see: loopback only (connect-src in site/_headers), and only from a
// server that allows this page's origin (CORS). A server that is not running and one that refuses
// the origin fail the same way, on purpose (a page must not learn which ports of your computer are
// open), so the sentence names both fixes until the server has answered this page once.
//
//   await listTools("http://127.0.0.1:8765/mcp")        // -> [{name, description, inputSchema}] or throws McpError
//   await callTool(url, "calc", {expression: "17 * 23"}) // -> {text, isError}
//   answerMcp(port, message)                             // worker.mjs's question: {id, args: [json], reply}
//   stopCalls()                                          // Stop: every request in flight ends now

import { writeAnswer } from "../runtime/answer.mjs";

export const PROTOCOL = "2025-06-18"; // the MCP revision this client speaks
export const CHECK_MS = 5000; // initialize and tools/list: a loopback server answers in milliseconds
export const CALL_MS = 30_000; // a tool call: as McpTools's timeout in the terminal
const LOOPBACK = /^http:\/\/(127\.0\.0\.1|localhost)(:\d{1,5})?(\/\S*)?$/;
const sessions = new Map(); // url -> {id: Mcp-Session-Id or null, version}
const answered = new Set(); // addresses that have answered this page
const inFlight = new Set(); // AbortControllers of the requests running now
let lastId = 0;

export class McpError extends Error {
  constructor(message) {
    super(message);
    this.name = "McpError";
  }
}

class SessionGone extends McpError {} // 404 for a session the server no longer has (it was restarted)

/** The server's address as the reader wrote it, checked: http://127.0.0.1:PORT/PATH or localhost. */
export function serverUrl(url) {
  const text = String(url ?? "").trim();
  if (!LOOPBACK.test(text))
    throw new McpError(
      `The address ${JSON.stringify(String(url ?? ""))} is not an MCP server on this computer: write http://127.0.0.1:PORT/mcp or http://localhost:PORT/mcp (this page may reach nothing else).`,
    );
  return text;
}

function unreachable(url) {
  const page = location.origin,
    port = new URL(url).port || "80";
  if (answered.has(url)) return `Nothing answers at ${url} any more: the MCP server stopped; start it again (and press Run).`;
  return (
    `Nothing at ${url} answered this page: start the server with \`python -m lllm mcp --http --port ${port} --allow-origin ${page}\`, ` +
    `or, if it is running, let it accept the origin ${page} (for lllm mcp that is --allow-origin; a browser cannot tell a stopped server from a refusing one).`
  );
}

/** The JSON-RPC reply with `id` in a response: JSON, or a server-sent event stream holding it. */
async function replyIn(response, id, url) {
  const type = response.headers.get("Content-Type") ?? "",
    text = await response.text();
  const messages = [];
  try {
    if (type.includes("text/event-stream")) {
      for (const line of text.split(/\r?\n/))
        if (line.startsWith("data:") && line.slice(5).trim()) messages.push(JSON.parse(line.slice(5)));
    } else {
      messages.push(JSON.parse(text));
    }
  } catch {
    /* not JSON: said below */
  }
  const reply = messages.flat().find((m) => m?.jsonrpc === "2.0" && m.id === id);
  if (!reply)
    throw new McpError(
      `${url} answered, but not as an MCP server (no JSON-RPC reply in ${JSON.stringify(text.slice(0, 60))}): give the address of a streamable HTTP MCP server, e.g. http://127.0.0.1:8765/mcp.`,
    );
  return reply;
}

/** One JSON-RPC message to the server; the reply's result (a notification: nothing). */
async function post(url, method, params, ms) {
  const session = sessions.get(url) ?? {};
  const id = method.startsWith("notifications/") ? undefined : ++lastId;
  const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
  if (session.id) headers["Mcp-Session-Id"] = session.id;
  if (session.version) headers["MCP-Protocol-Version"] = session.version;
  const controller = new AbortController();
  const timer = setTimeout(
    () =>
      controller.abort(
        new McpError(`${url} did not answer ${method} within ${ms / 1000} s: check the server's own log, then press Run again.`),
      ),
    ms,
  );
  inFlight.add(controller);
  let response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
      mode: "cors",
      credentials: "omit",
      signal: controller.signal,
    });
    answered.add(url);
    if (response.status === 404 && session.id) throw new SessionGone(`${url} forgot this page's session.`);
    if (!response.ok && response.status !== 202)
      throw new McpError(
        `${url} answered ${method} with HTTP ${response.status} (${(await response.text()).replace(/\s+/g, " ").slice(0, 80)}): is this the address of an MCP server? \`lllm mcp --http\` serves at /mcp.`,
      );
    if (id === undefined) return { result: null, response };
    const reply = await replyIn(response, id, url);
    if (reply.error)
      throw new McpError(`The MCP server at ${url} refused ${method}: ${reply.error.message ?? JSON.stringify(reply.error)}.`);
    return { result: reply.result, response };
  } catch (e) {
    if (controller.signal.aborted) throw controller.signal.reason instanceof McpError ? controller.signal.reason : new McpError("Stopped.");
    throw e instanceof McpError ? e : new McpError(unreachable(url));
  } finally {
    clearTimeout(timer);
    inFlight.delete(controller);
  }
}

/** initialize, then notifications/initialized: a session with the server at `url`. */
async function connect(url) {
  sessions.delete(url);
  const { result, response } = await post(
    url,
    "initialize",
    { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "lllm-page", version: "1" } },
    CHECK_MS,
  );
  if (!result?.capabilities?.tools)
    throw new McpError(`The MCP server at ${url} offers no tools (its initialize reply has no tools capability).`);
  sessions.set(url, { id: response.headers.get("Mcp-Session-Id"), version: result.protocolVersion ?? PROTOCOL });
  await post(url, "notifications/initialized", undefined, CHECK_MS);
}

/** A request in the session, opened first if need be (and again once if the server forgot it). */
async function request(url, method, params, ms) {
  if (!sessions.has(url)) await connect(url);
  try {
    return (await post(url, method, params, ms)).result;
  } catch (e) {
    if (!(e instanceof SessionGone)) throw e;
    await connect(url); // the server was restarted: a new session
    return (await post(url, method, params, ms)).result;
  }
}

/** The server's tools, each {name, description, inputSchema}, from a new session. */
export async function listTools(url) {
  const address = serverUrl(url);
  await connect(address);
  const result = await request(address, "tools/list", {}, CHECK_MS);
  if (!Array.isArray(result?.tools)) throw new McpError(`The MCP server at ${address} answered tools/list without a list of tools.`);
  return result.tools;
}

/** One tools/call: the result's text (its text parts joined, else its structured content) and isError. */
export async function callTool(url, name, args) {
  const address = serverUrl(url);
  tell({ kind: "call", name, arguments: args });
  const result = await request(address, "tools/call", { name, arguments: args }, CALL_MS);
  const texts = (result?.content ?? []).filter((part) => part?.type === "text").map((part) => part.text);
  const text = texts.length ? texts.join(" ") : result?.structuredContent !== undefined ? JSON.stringify(result.structuredContent) : "";
  tell({ kind: "result", name, text, isError: Boolean(result?.isError) });
  return { text, isError: Boolean(result?.isError) };
}

function tell(detail) {
  window.dispatchEvent(new CustomEvent("lllm:mcp", { detail }));
}

/** worker.mjs's question (Python blocked on it): answer {value: JSON of {text, isError}} or {error: sentence}. */
export async function answerMcp(port, { id, args: [text], reply }) {
  const answer = (a) => (reply ? writeAnswer(reply, a) : port.postMessage({ id, ...a }));
  try {
    const call = JSON.parse(text);
    answer({ value: JSON.stringify(await callTool(call.url, call.name, call.arguments)) });
  } catch (e) {
    answer({ error: e instanceof McpError ? e.message : `The MCP call could not be made: ${e.message ?? e}` });
  }
}

/** Stop: every request in flight ends (Python's worker is restarted by lllm.stop itself). */
export function stopCalls() {
  for (const controller of inFlight) controller.abort(new McpError("Stopped."));
  inFlight.clear();
}
