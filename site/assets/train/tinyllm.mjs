// TinyLLM's training in plain JavaScript: the mathematics of export/model.py and export/train.py
// (the same forward, loss, backward through time, gradient clipping, AdamW and initialisation),
// over Float32Array, so a browser tab trains the model with no Python and no GPU. Read
// export/model.py first: the names, shapes and gate order (i, f, o, g) are the same here.
// tests/site/test_train_tab_parity.py checks that the losses equal numpy's for the same start.
//
// Shape legend: B batch, T window, V vocabulary, E embedding, H hidden units. Arrays are
// row-major and time-major inside a layer, as in numpy: (T, B, H) is t * B * H + b * H + h.
// Numbers are stored as float32 (as numpy's) and summed in JavaScript's float64.
// Where the engine has WebAssembly SIMD, the heavy loops run in kernels.mjs instead (the same
// formulas in float32): each `fast?.` line hands its loop over and the JavaScript after it is the
// fallback; prepare() (called by trainer.mjs) puts the weights on the kernels' memory.
//
//   const net = createNet(config)            // {config, params, adam}: params as init_params
//   const { loss, grads } = lossAndGrads(net, xs, ys)   // one batch of windows
//   clipGlobalNorm(grads, config.clip); adamwStep(net, grads)

import { Mulberry32 } from "../runtime/sampler.mjs";
import { kernels } from "./kernels.mjs";

export const PARAM_NAMES = (layers) => [
  "embed",
  ...Array.from({ length: layers }, (_, l) => [`W_x${l}`, `W_h${l}`, `b${l}`]).flat(),
  "W_out",
  "b_out",
];

// ---- parameters: PyTorch-style initialisation from a seeded generator ------------------------------

/** A standard normal number (Box–Muller) from a Mulberry32 stream. */
function normal(rng) {
  const u = 1 - rng.uniform(),
    v = rng.uniform();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

// --8<-- [start:init]
/** init_params: embedding rows ~ N(0, 1), matrices ~ U(-1/sqrt(H), 1/sqrt(H)), forget bias. */
export function initParams(config) {
  const { vocab_size: V, embed: E, hidden: H, layers: L } = config;
  const rng = new Mulberry32(config.seed);
  const bound = 1 / Math.sqrt(H);
  const uniform = (n) => Float32Array.from({ length: n }, () => (2 * rng.uniform() - 1) * bound);
  const params = { embed: Float32Array.from({ length: V * E }, () => normal(rng)) };
  for (let l = 0; l < L; l++) {
    params[`W_x${l}`] = uniform((l === 0 ? E : H) * 4 * H);
    params[`W_h${l}`] = uniform(H * 4 * H);
    params[`b${l}`] = new Float32Array(4 * H).fill(config.forget_bias, H, 2 * H); // forget gate
  }
  params.W_out = uniform(H * V);
  params.b_out = uniform(V);
  return params;
}
// --8<-- [end:init]

export function countParameters(params) {
  return Object.values(params).reduce((n, p) => n + p.length, 0);
}

// ---- matrix products: one kernel, the other two shapes through a transposed copy -------------------

// The kernel computes a 4 x 4 block of C at a time, summing over k in 16 local variables: each
// number loaded is used four times, and C is written once per block instead of once per k. That
// measured about twice as fast as updating rows of C in the innermost loop (which was itself
// twice as fast as the plain triple loop). The sums are float64, stored as float32.

// biome-ignore format: the 4 x 4 block of sums is laid out as the block it is, one row of A per line
// --8<-- [start:dispatch]
/** C (M, N) (+)= A (M, K) @ B (K, N). */
function matmul(A, B, C, M, K, N, add = false) {
  if (fast?.matmul(A, B, C, M, K, N, add)) {                      // WebAssembly did the 4 x 8 blocks
    const M4 = M & ~3, N8 = N & ~7;
    if (N8 < N) matmulEdge(A, B, C, 0, M4, N8, K, N, add);
    if (M4 < M) matmulEdge(A, B, C, M4, M, 0, K, N, add);
    return;
  }
  // --8<-- [end:dispatch]
  let i = 0;
  for (; i + 4 <= M; i += 4) {
    const a0 = i * K, a1 = a0 + K, a2 = a1 + K, a3 = a2 + K;
    let j = 0;
    for (; j + 4 <= N; j += 4) {
      let s00 = 0, s01 = 0, s02 = 0, s03 = 0, s10 = 0, s11 = 0, s12 = 0, s13 = 0;
      let s20 = 0, s21 = 0, s22 = 0, s23 = 0, s30 = 0, s31 = 0, s32 = 0, s33 = 0;
      for (let k = 0, b = j; k < K; k++, b += N) {
        const b0 = B[b], b1 = B[b + 1], b2 = B[b + 2], b3 = B[b + 3];
        let x = A[a0 + k]; s00 += x * b0; s01 += x * b1; s02 += x * b2; s03 += x * b3;
        x = A[a1 + k]; s10 += x * b0; s11 += x * b1; s12 += x * b2; s13 += x * b3;
        x = A[a2 + k]; s20 += x * b0; s21 += x * b1; s22 += x * b2; s23 += x * b3;
        x = A[a3 + k]; s30 += x * b0; s31 += x * b1; s32 += x * b2; s33 += x * b3;
      }
      const c = i * N + j;
      if (add) {
        C[c] += s00; C[c + 1] += s01; C[c + 2] += s02; C[c + 3] += s03;
        C[c + N] += s10; C[c + N + 1] += s11; C[c + N + 2] += s12; C[c + N + 3] += s13;
        C[c + 2 * N] += s20; C[c + 2 * N + 1] += s21; C[c + 2 * N + 2] += s22; C[c + 2 * N + 3] += s23;
        C[c + 3 * N] += s30; C[c + 3 * N + 1] += s31; C[c + 3 * N + 2] += s32; C[c + 3 * N + 3] += s33;
      } else {
        C[c] = s00; C[c + 1] = s01; C[c + 2] = s02; C[c + 3] = s03;
        C[c + N] = s10; C[c + N + 1] = s11; C[c + N + 2] = s12; C[c + N + 3] = s13;
        C[c + 2 * N] = s20; C[c + 2 * N + 1] = s21; C[c + 2 * N + 2] = s22; C[c + 2 * N + 3] = s23;
        C[c + 3 * N] = s30; C[c + 3 * N + 1] = s31; C[c + 3 * N + 2] = s32; C[c + 3 * N + 3] = s33;
      }
    }
    if (j < N) matmulEdge(A, B, C, i, i + 4, j, K, N, add);     // the last columns, when N is not a multiple of 4
  }
  if (i < M) matmulEdge(A, B, C, i, M, 0, K, N, add);           // the last rows
}

/** Rows i0..i1 of C, from column j0 on, one number at a time. */
function matmulEdge(A, B, C, i0, i1, j0, K, N, add) {
  for (let i = i0; i < i1; i++) {
    for (let j = j0; j < N; j++) {
      let s = 0;
      for (let k = 0; k < K; k++) s += A[i * K + k] * B[k * N + j];
      C[i * N + j] = add ? C[i * N + j] + s : s;
    }
  }
}

/** out (C, R) = the transpose of A (R, C), into a buffer reused between calls. */
function transpose(A, R, C, out) {
  for (let r = 0; r < R; r++) for (let c = 0; c < C; c++) out[c * R + r] = A[r * C + c];
  return out;
}

// Every array a step needs is allocated once and reused (a step allocated about 2 MB before):
// `work(name, n)` is the first n numbers of the buffer called `name`, grown when n is larger.
// Nothing a step returns outlives the next call, so reuse is safe; a caller zeroes what it sums into.
// With the fast path (kernels.mjs), buffers come from its arena, the memory WebAssembly reads.
const scratch = new Map();
let fast = null;
const f32 = (n) => fast?.f32(n) ?? new Float32Array(n); // zeros, on the arena if there is room
function work(name, n) {
  let b = scratch.get(name);
  if (!b || b.length < n) scratch.set(name, (b = f32(n)));
  return b.subarray(0, n);
}

/** Start a run: the fast path if this engine has it, and `params` moved onto its arena (returned). */
export function prepare(params, config, { batches = [config.batch, 64], kernels: which = "fast" } = {}) {
  scratch.clear();
  fast = which === "fast" ? kernels() : null;
  if (!fast) return params;
  const { vocab_size: V, embed: E, hidden: H, layers: L, window: T } = config;
  const wide = Math.max(E, H),
    rows = (T + 1) * (batches.reduce((a, b) => a + b, 0) + T); // + the samples, 1 to T long
  const perRow = L * (8 * H + 4 * H + wide) + E + V + 2 * H + wide;
  fast.reset(4 * (perRow * rows + 4 * countParameters(params)) + (1 << 20));
  return Object.fromEntries(
    Object.entries(params).map(([k, p]) => {
      const copy = f32(p.length);
      copy.set(p);
      return [k, copy];
    }),
  );
}

/** "wasm-relaxed", "wasm" or "js": the kernels this run uses. */
export const kernelsInUse = () => (fast ? (fast.relaxed ? "wasm-relaxed" : "wasm") : "js");

/** C (K, N) += A (M, K)^T @ B (M, N): a weight gradient, summed over M rows. */
function matmulTN(A, B, C, M, K, N) {
  if (fast?.matmulTN(A, B, C, M, K, N)) {
    // WebAssembly did the 4 x 8 blocks
    const K4 = K & ~3,
      N8 = N & ~7;
    if (N8 < N) matmulTNEdge(A, B, C, M, K, N, 0, K4, N8);
    if (K4 < K) matmulTNEdge(A, B, C, M, K, N, K4, K, 0);
    return;
  }
  matmul(transpose(A, M, K, work("TN", M * K)), B, C, K, M, N, true);
}

/** Rows k0..k1 of C (K, N), from column j0 on, for matmulTN. */
function matmulTNEdge(A, B, C, M, K, N, k0, k1, j0) {
  for (let k = k0; k < k1; k++) {
    for (let j = j0; j < N; j++) {
      let s = 0;
      for (let m = 0; m < M; m++) s += A[m * K + k] * B[m * N + j];
      C[k * N + j] += s;
    }
  }
}

/** C (M, N) = A (M, K) @ B (N, K)^T: a gradient sent back through a weight matrix. */
function matmulNT(A, B, C, M, K, N, Bt = transpose(B, N, K, work("NT", N * K))) {
  matmul(A, Bt, C, M, K, N);
}

// ---- one LSTM layer, forward -----------------------------------------------------------------------

// The gate functions written with Math.exp, which measured about twice as fast as Math.tanh; in
// float64 they agree with numpy's float32 sigmoid and tanh to far below float32's precision.
const sigmoid = (z) => 1 / (1 + Math.exp(-z));
const tanh = (z) => 1 - 2 / (Math.exp(2 * z) + 1); // exp overflows to Infinity: 1, as tanh

// --8<-- [start:lstm-forward]
/** X (T, B, E_in) -> every hidden state (T, B, H) and what backward needs (lstm_forward). */
function lstmForward(X, W_x, W_h, b, T, B, Ein, H, l) {
  const G = 4 * H;
  const gates = work(`gates${l}`, T * B * G); // activated: i, f, o (sigmoid), g (tanh)
  matmul(X, W_x, gates, T * B, Ein, G); // the input's share, every step at once
  const hs = work(`hs${l}`, (T + 1) * B * H).fill(0, 0, B * H); // hs[t] is h_{t-1}: hs[0] = h0 = 0
  const cs = work(`cs${l}`, (T + 1) * B * H).fill(0, 0, B * H);
  const tanhCs = work(`tanhCs${l}`, T * B * H);
  for (let t = 0; t < T; t++) {
    matmul(hs.subarray(t * B * H), W_h, gates.subarray(t * B * G), B, H, G, true); // + h_{t-1} @ W_h
    const [now, next] = [t * B * H, (t + 1) * B * H]; // the same loops in WebAssembly:
    if (fast?.cell(gates.subarray(t * B * G), b, cs.subarray(now), cs.subarray(next), hs.subarray(next), tanhCs.subarray(now), B, H))
      continue;
    for (let n = 0; n < B; n++) {
      const a = (t * B + n) * G,
        prev = (t * B + n) * H,
        next = ((t + 1) * B + n) * H;
      for (let j = 0; j < 3 * H; j++) gates[a + j] = sigmoid(gates[a + j] + b[j]);
      for (let j = 3 * H; j < G; j++) gates[a + j] = tanh(gates[a + j] + b[j]);
      for (let h = 0; h < H; h++) {
        const i = gates[a + h],
          f = gates[a + H + h],
          o = gates[a + 2 * H + h],
          g = gates[a + 3 * H + h];
        cs[next + h] = f * cs[prev + h] + i * g; // c_t = f * c_{t-1} + i * g
        tanhCs[prev + h] = tanh(cs[next + h]);
        hs[next + h] = o * tanhCs[prev + h]; // h_t = o * tanh(c_t)
      }
    }
  }
  return { out: hs.subarray(B * H), cache: { X, W_x, W_h, gates, hs, cs, tanhCs, Ein } };
}
// --8<-- [end:lstm-forward]

// ---- one LSTM layer, backward through time ---------------------------------------------------------

// --8<-- [start:lstm-backward]
/** dHs (T, B, H) -> dX (T, B, E_in), and adds dW_x, dW_h, db into `grads` (lstm_backward). */
function lstmBackward(dHs, cache, T, B, H, grads, l) {
  const { X, W_x, W_h, gates, hs, cs, tanhCs, Ein } = cache;
  const G = 4 * H;
  const dZ = work(`dZ${l}`, T * B * G);
  const dh = work("dh", B * H).fill(0),
    dc = work("dc", B * H).fill(0);
  const W_hT = transpose(W_h, H, G, work("W_hT", G * H)); // once for all T steps
  const db = grads[`b${l}`];
  let summed = false; // db: added up by WebAssembly
  for (let t = T - 1; t >= 0; t--) {
    const [rows, gateRows] = [t * B * H, t * B * G]; // the loop below in WebAssembly, adding dZ into db:
    if (
      fast?.cellBack(
        gates.subarray(gateRows),
        tanhCs.subarray(rows),
        cs.subarray(rows),
        dHs.subarray(rows),
        dh,
        dc,
        dZ.subarray(gateRows),
        db,
        B,
        H,
      )
    ) {
      summed = true;
      matmulNT(dZ.subarray(gateRows), W_h, dh, B, G, H, W_hT);
      continue;
    }
    for (let n = 0; n < B; n++) {
      const a = (t * B + n) * G,
        s = (t * B + n) * H,
        prev = s,
        r = n * H;
      for (let h = 0; h < H; h++) {
        const i = gates[a + h],
          f = gates[a + H + h],
          o = gates[a + 2 * H + h],
          g = gates[a + 3 * H + h];
        const tc = tanhCs[s + h];
        const dhh = dh[r + h] + dHs[s + h]; // from above, plus from step t+1
        const dcc = dc[r + h] + dhh * o * (1 - tc * tc);
        dZ[a + h] = dcc * g * i * (1 - i); // i
        dZ[a + H + h] = dcc * cs[prev + h] * f * (1 - f); // f   (cs[t] is c_{t-1})
        dZ[a + 2 * H + h] = dhh * tc * o * (1 - o); // o
        dZ[a + 3 * H + h] = dcc * i * (1 - g * g); // g
        dc[r + h] = dcc * f; // to c_{t-1}
      }
    }
    matmulNT(dZ.subarray(t * B * G), W_h, dh, B, G, H, W_hT); // to h_{t-1}
  }
  matmulTN(X, dZ, grads[`W_x${l}`], T * B, Ein, G);
  matmulTN(hs, dZ, grads[`W_h${l}`], T * B, H, G); // hs[:-1]: the first T*B rows
  if (!summed) for (let r = 0; r < T * B; r++) for (let j = 0; j < G; j++) db[j] += dZ[r * G + j];
  const dX = work(`dX${l}`, T * B * Ein);
  matmulNT(dZ, W_x, dX, T * B, G, Ein);
  return dX;
}
// --8<-- [end:lstm-backward]

// ---- the whole model ---------------------------------------------------------------------------------

/** xs: B windows of T ids (arrays) -> logits (T*B, V) time-major rows, and the cache. */
export function forward(params, config, xs) {
  const { vocab_size: V, embed: E, hidden: H, layers: L } = config;
  const B = xs.length,
    T = xs[0].length;
  let out = work("embedded", T * B * E); // (T, B, E): embedding rows
  for (let t = 0; t < T; t++) for (let n = 0; n < B; n++) out.set(params.embed.subarray(xs[n][t] * E, (xs[n][t] + 1) * E), (t * B + n) * E);
  const caches = [];
  for (let l = 0; l < L; l++) {
    const r = lstmForward(out, params[`W_x${l}`], params[`W_h${l}`], params[`b${l}`], T, B, l === 0 ? E : H, H, l);
    caches.push(r.cache);
    out = r.out;
  }
  const logits = work("logits", T * B * V);
  for (let r = 0; r < T * B; r++) logits.set(params.b_out, r * V); // b_out, then + out @ W_out
  matmul(out, params.W_out, logits, T * B, H, V, true);
  return { logits, cache: { xs, caches, top: out, T, B } };
}

// --8<-- [start:loss]
/** Mean -log p(y) over rows (cross_entropy): logits (N, V), ys (N,) -> loss, and dlogits in place (added into dBias). */
export function crossEntropy(logits, ys, V, dBias = work("dBias", V).fill(0)) {
  const N = ys.length;
  if (fast) {
    const loss = crossEntropyFast(logits, ys, V, dBias);
    if (loss !== null) return loss;
  }
  let loss = 0;
  for (let r = 0; r < N; r++) {
    const row = logits.subarray(r * V, (r + 1) * V);
    let max = -Infinity;
    for (let v = 0; v < V; v++) max = Math.max(max, row[v]); // stable: the max logit is 0
    const shifted = row[ys[r]] - max;
    let total = 0;
    for (let v = 0; v < V; v++) total += row[v] = Math.exp(row[v] - max); // each exp once, kept in the row
    loss += Math.log(total) - shifted;
    for (let v = 0; v < V; v++) row[v] = row[v] / total / N; // softmax / N
    row[ys[r]] -= 1 / N; // minus the one-hot target
    for (let v = 0; v < V; v++) dBias[v] += row[v]; // the bias's gradient: the rows' sum
  }
  return loss / N;
}
// --8<-- [end:loss]

/** crossEntropy with the rows' work in WebAssembly (xent in kernels.mjs); null if it cannot (V % 4). */
function crossEntropyFast(logits, ys, V, dBias) {
  const N = ys.length,
    maxes = work("maxes", N),
    sums = work("sums", N);
  let target = 0;
  for (let r = 0; r < N; r++) target += logits[r * V + ys[r]];
  if (!fast.xent(logits, dBias, maxes, sums, N, V)) return null;
  let loss = 0;
  for (let r = 0; r < N; r++) {
    loss += Math.log(sums[r]) + maxes[r]; // -log p(y) = log(sum) + max - the target's score
    logits[r * V + ys[r]] -= 1 / N;
    dBias[ys[r]] -= 1 / N;
  }
  return (loss - target) / N;
}

/** One training batch (loss_and_grads, loss "all"): xs, ys B windows -> {loss, grads}. */
export function lossAndGrads(params, config, xs, ys, onStage = () => {}) {
  const { vocab_size: V, embed: E, hidden: H, layers: L } = config;
  onStage("forward");
  const { logits, cache } = forward(params, config, xs);
  const { T, B, caches, top } = cache;
  onStage("loss");
  const targets = new Int32Array(T * B); // time-major rows: t, then b
  for (let t = 0; t < T; t++) for (let n = 0; n < B; n++) targets[t * B + n] = ys[n][t];
  const grads = Object.fromEntries(Object.entries(params).map(([k, p]) => [k, work(`d${k}`, p.length).fill(0)]));
  const loss = crossEntropy(logits, targets, V, grads.b_out); // logits now hold dlogits
  onStage("backward");
  matmulTN(top, logits, grads.W_out, T * B, H, V);
  let dout = work("dout", T * B * H);
  matmulNT(logits, params.W_out, dout, T * B, V, H);
  for (let l = L - 1; l >= 0; l--) dout = lstmBackward(dout, caches[l], T, B, H, grads, l);
  for (let t = 0; t < T; t++)
    for (let n = 0; n < B; n++) {
      // each use of a row adds its gradient
      const row = xs[n][t] * E,
        d = (t * B + n) * E;
      for (let e = 0; e < E; e++) grads.embed[row + e] += dout[d + e];
    }
  return { loss, grads };
}

/** The loss alone (no gradients): the validation loss. */
export function evaluate(params, config, xs, ys) {
  const { logits, cache } = forward(params, config, xs);
  const targets = new Int32Array(cache.T * cache.B);
  for (let t = 0; t < cache.T; t++) for (let n = 0; n < cache.B; n++) targets[t * cache.B + n] = ys[n][t];
  return crossEntropy(logits, targets, config.vocab_size);
}

// ---- gradient clipping and AdamW ---------------------------------------------------------------------

// --8<-- [start:clip]
/** Scale all gradients together so their joint L2 norm is at most maxNorm; return the norm. */
export function clipGlobalNorm(grads, maxNorm) {
  let sum = 0;
  for (const g of Object.values(grads)) for (let i = 0; i < g.length; i++) sum += g[i] * g[i];
  const norm = Math.sqrt(sum);
  const scale = maxNorm / (norm + 1e-6);
  if (scale < 1) for (const g of Object.values(grads)) for (let i = 0; i < g.length; i++) g[i] *= scale;
  return norm;
}
// --8<-- [end:clip]

// --8<-- [start:adamw]
/** AdamW's state: running means of the gradients (m) and of their squares (v), and the step count. */
export function createAdam(params) {
  const zeros = () => Object.fromEntries(Object.entries(params).map(([k, p]) => [k, f32(p.length)]));
  return { m: zeros(), v: zeros(), t: 0 };
}

/** One AdamW update of `params` in place (AdamW.step, torch.optim.AdamW's arithmetic). */
export function adamwStep(params, grads, adam, { lr, weight_decay: wd }, beta1 = 0.9, beta2 = 0.999, eps = 1e-8) {
  adam.t += 1;
  const correct1 = 1 - beta1 ** adam.t,
    correct2 = 1 - beta2 ** adam.t; // early averages lean towards 0
  const decay = 1 - lr * wd,
    rate = lr / correct1;
  for (const k of Object.keys(params)) {
    const p = params[k],
      g = grads[k],
      m = adam.m[k],
      v = adam.v[k];
    const done = fast?.adam(p, g, m, v, decay, rate, correct2, beta1, beta2, eps) ? p.length & ~3 : 0; // WebAssembly
    for (let i = done; i < p.length; i++) {
      // one pass; each rounded to float32 as stored
      const gi = g[i];
      const mi = (m[i] = beta1 * m[i] + (1 - beta1) * gi);
      const vi = (v[i] = beta2 * v[i] + (1 - beta2) * gi * gi);
      p[i] = Math.fround(p[i] * decay) - (rate * mi) / (Math.sqrt(vi / correct2) + eps); // decay the weight, not the gradient
    }
  }
}
// --8<-- [end:adamw]
