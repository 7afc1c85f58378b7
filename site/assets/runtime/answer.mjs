// How a blocked Python worker gets the model's answer without JSPI: a SharedArrayBuffer it waits
// on with Atomics.wait, which the model worker fills and then wakes it. Needs cross-origin
// isolation (site/_headers sends COOP and COEP; `crossOriginIsolated` is then true).
//
// Layout of the buffer: Int32 [0] = 0 while waiting, 1 when answered; Int32 [1] = the answer's
// length in bytes; from byte 8 on, the answer as UTF-8 JSON: {value} or {error}.

const HEADER = 8;
export const ANSWER_BYTES = 1 << 22; // 4 MiB: a 5000-character completion or a forward pass needs < 100 KB

/** A buffer for one Python worker's answers (reused: one question is open at a time). */
export function answerBuffer() {
  return new SharedArrayBuffer(HEADER + ANSWER_BYTES);
}

/** Model side: write `answer` ({value} or {error}) into `buffer` and wake the waiting worker. */
export function writeAnswer(buffer, answer) {
  let bytes = new TextEncoder().encode(JSON.stringify(answer));
  if (bytes.length > ANSWER_BYTES)
    bytes = new TextEncoder().encode(JSON.stringify({ error: `the answer (${bytes.length} bytes) does not fit in ${ANSWER_BYTES} bytes` }));
  const flag = new Int32Array(buffer, 0, 2);
  new Uint8Array(buffer, HEADER, bytes.length).set(bytes);
  flag[1] = bytes.length;
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

/** Python side: send(buffer) asks the question; block this thread until it is answered; the value. */
export function askAndWait(buffer, send) {
  const flag = new Int32Array(buffer, 0, 2);
  Atomics.store(flag, 0, 0);
  send(buffer);
  Atomics.wait(flag, 0, 0);
  // slice() copies into an ordinary buffer: TextDecoder refuses views of shared memory
  const answer = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, HEADER, flag[1]).slice()));
  if ("error" in answer) throw new Error(answer.error);
  return answer.value;
}
