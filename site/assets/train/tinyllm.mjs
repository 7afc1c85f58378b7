// TinyLLM's training in plain JavaScript: the mathematics of export/model.py and export/train.py
// (the same forward, loss, backward through time, gradient clipping, AdamW and initialisation),
// over Float32Array, so a browser tab trains the model with no Python and no GPU. Read
// export/model.py first: the names, shapes and gate order (i, f, o, g) are the same here.
// tests/export/test_train_tab_parity.py checks that the losses equal numpy's for the same start.
//
// Shape legend: B batch, T window, V vocabulary, E embedding, H hidden units. Arrays are
// row-major and time-major inside a layer, as in numpy: (T, B, H) is t * B * H + b * H + h.
// Numbers are stored as float32 (as numpy's) and summed in JavaScript's float64.
//
//   const net = createNet(config)            // {config, params, adam}: params as init_params
//   const { loss, grads } = lossAndGrads(net, xs, ys)   // one batch of windows
//   clipGlobalNorm(grads, config.clip); adamwStep(net, grads)

import { Mulberry32 } from "../runtime/sampler.mjs";

export const PARAM_NAMES = (layers) => ["embed", ...Array.from({ length: layers }, (_, l) => [`W_x${l}`, `W_h${l}`, `b${l}`]).flat(), "W_out", "b_out"];

// ---- parameters: PyTorch-style initialisation from a seeded generator ------------------------------

/** A standard normal number (Box–Muller) from a Mulberry32 stream. */
function normal(rng) {
  const u = 1 - rng.uniform(), v = rng.uniform();
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
    params[`b${l}`] = new Float32Array(4 * H).fill(config.forget_bias, H, 2 * H);   // forget gate
  }
  params.W_out = uniform(H * V);
  params.b_out = uniform(V);
  return params;
}
// --8<-- [end:init]

export function countParameters(params) {
  return Object.values(params).reduce((n, p) => n + p.length, 0);
}

// ---- matrix products: the three shapes training needs ----------------------------------------------

// Each works on four rows (or columns) at once: every number loaded from the shared matrix is used
// four times before the next is loaded, which measured twice as fast as the plain triple loop.

/** C (M, N) (+)= A (M, K) @ B (K, N). */
function matmul(A, B, C, M, K, N, add = false) {
  if (!add) C.fill(0, 0, M * N);
  let i = 0;
  for (; i + 4 <= M; i += 4) {
    const c0 = i * N, c1 = c0 + N, c2 = c1 + N, c3 = c2 + N;
    for (let k = 0; k < K; k++) {
      const a0 = A[i * K + k], a1 = A[(i + 1) * K + k], a2 = A[(i + 2) * K + k], a3 = A[(i + 3) * K + k], b = k * N;
      for (let j = 0; j < N; j++) {
        const v = B[b + j];
        C[c0 + j] += a0 * v; C[c1 + j] += a1 * v; C[c2 + j] += a2 * v; C[c3 + j] += a3 * v;
      }
    }
  }
  for (; i < M; i++) {
    for (let k = 0; k < K; k++) {
      const a = A[i * K + k], b = k * N, c = i * N;
      for (let j = 0; j < N; j++) C[c + j] += a * B[b + j];
    }
  }
}

/** C (K, N) += A (M, K)^T @ B (M, N): a weight gradient, summed over M rows. */
function matmulTN(A, B, C, M, K, N) {
  for (let i = 0; i < M; i++) {
    const b = i * N;
    let k = 0;
    for (; k + 4 <= K; k += 4) {
      const a0 = A[i * K + k], a1 = A[i * K + k + 1], a2 = A[i * K + k + 2], a3 = A[i * K + k + 3];
      const c0 = k * N, c1 = c0 + N, c2 = c1 + N, c3 = c2 + N;
      for (let j = 0; j < N; j++) {
        const v = B[b + j];
        C[c0 + j] += a0 * v; C[c1 + j] += a1 * v; C[c2 + j] += a2 * v; C[c3 + j] += a3 * v;
      }
    }
    for (; k < K; k++) {
      const a = A[i * K + k], c = k * N;
      for (let j = 0; j < N; j++) C[c + j] += a * B[b + j];
    }
  }
}

/** C (M, N) = A (M, K) @ B (N, K)^T: a gradient sent back through a weight matrix. */
function matmulNT(A, B, C, M, K, N) {
  for (let i = 0; i < M; i++) {
    const a = i * K;
    let j = 0;
    for (; j + 4 <= N; j += 4) {
      const b0 = j * K, b1 = b0 + K, b2 = b1 + K, b3 = b2 + K;
      let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      for (let k = 0; k < K; k++) {
        const v = A[a + k];
        s0 += v * B[b0 + k]; s1 += v * B[b1 + k]; s2 += v * B[b2 + k]; s3 += v * B[b3 + k];
      }
      C[i * N + j] = s0; C[i * N + j + 1] = s1; C[i * N + j + 2] = s2; C[i * N + j + 3] = s3;
    }
    for (; j < N; j++) {
      let s = 0;
      for (let k = 0; k < K; k++) s += A[a + k] * B[j * K + k];
      C[i * N + j] = s;
    }
  }
}

// ---- one LSTM layer, forward -----------------------------------------------------------------------

// --8<-- [start:lstm-forward]
/** X (T, B, E_in) -> every hidden state (T, B, H) and what backward needs (lstm_forward). */
function lstmForward(X, W_x, W_h, b, T, B, Ein, H) {
  const G = 4 * H;
  const gates = new Float32Array(T * B * G);              // activated: i, f, o (sigmoid), g (tanh)
  matmul(X, W_x, gates, T * B, Ein, G);                   // the input's share, every step at once
  const hs = new Float32Array((T + 1) * B * H);           // hs[t] is h_{t-1}: hs[0] = h0 = 0
  const cs = new Float32Array((T + 1) * B * H);
  const tanhCs = new Float32Array(T * B * H);
  const z = new Float32Array(B * G);
  for (let t = 0; t < T; t++) {
    matmul(hs.subarray(t * B * H), W_h, z, B, H, G);      // h_{t-1} @ W_h
    for (let n = 0; n < B; n++) {
      const a = (t * B + n) * G, prev = (t * B + n) * H, next = ((t + 1) * B + n) * H;
      for (let j = 0; j < G; j++) {
        const zj = gates[a + j] + z[n * G + j] + b[j];
        gates[a + j] = j < 3 * H ? 0.5 + 0.5 * Math.tanh(0.5 * zj) : Math.tanh(zj);   // sigmoid as numpy writes it
      }
      for (let h = 0; h < H; h++) {
        const i = gates[a + h], f = gates[a + H + h], o = gates[a + 2 * H + h], g = gates[a + 3 * H + h];
        cs[next + h] = f * cs[prev + h] + i * g;          // c_t = f * c_{t-1} + i * g
        tanhCs[prev + h] = Math.tanh(cs[next + h]);
        hs[next + h] = o * tanhCs[prev + h];              // h_t = o * tanh(c_t)
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
  const dZ = new Float32Array(T * B * G);
  const dh = new Float32Array(B * H), dc = new Float32Array(B * H);
  for (let t = T - 1; t >= 0; t--) {
    for (let n = 0; n < B; n++) {
      const a = (t * B + n) * G, s = (t * B + n) * H, prev = s, r = n * H;
      for (let h = 0; h < H; h++) {
        const i = gates[a + h], f = gates[a + H + h], o = gates[a + 2 * H + h], g = gates[a + 3 * H + h];
        const tc = tanhCs[s + h];
        const dhh = dh[r + h] + dHs[s + h];                       // from above, plus from step t+1
        const dcc = dc[r + h] + dhh * o * (1 - tc * tc);
        dZ[a + h] = dcc * g * i * (1 - i);                         // i
        dZ[a + H + h] = dcc * cs[prev + h] * f * (1 - f);          // f   (cs[t] is c_{t-1})
        dZ[a + 2 * H + h] = dhh * tc * o * (1 - o);                // o
        dZ[a + 3 * H + h] = dcc * i * (1 - g * g);                 // g
        dc[r + h] = dcc * f;                                       // to c_{t-1}
      }
    }
    matmulNT(dZ.subarray(t * B * G), W_h, dh, B, G, H);           // to h_{t-1}
  }
  matmulTN(X, dZ, grads[`W_x${l}`], T * B, Ein, G);
  matmulTN(hs, dZ, grads[`W_h${l}`], T * B, H, G);                 // hs[:-1]: the first T*B rows
  const db = grads[`b${l}`];
  for (let r = 0; r < T * B; r++) for (let j = 0; j < G; j++) db[j] += dZ[r * G + j];
  const dX = new Float32Array(T * B * Ein);
  matmulNT(dZ, W_x, dX, T * B, G, Ein);
  return dX;
}
// --8<-- [end:lstm-backward]

// ---- the whole model ---------------------------------------------------------------------------------

/** xs: B windows of T ids (arrays) -> logits (T*B, V) time-major rows, and the cache. */
export function forward(params, config, xs) {
  const { vocab_size: V, embed: E, hidden: H, layers: L } = config;
  const B = xs.length, T = xs[0].length;
  let out = new Float32Array(T * B * E);                           // (T, B, E): embedding rows
  for (let t = 0; t < T; t++) for (let n = 0; n < B; n++) out.set(params.embed.subarray(xs[n][t] * E, (xs[n][t] + 1) * E), (t * B + n) * E);
  const caches = [];
  for (let l = 0; l < L; l++) {
    const r = lstmForward(out, params[`W_x${l}`], params[`W_h${l}`], params[`b${l}`], T, B, l === 0 ? E : H, H);
    caches.push(r.cache);
    out = r.out;
  }
  const logits = new Float32Array(T * B * V);
  matmul(out, params.W_out, logits, T * B, H, V);
  for (let r = 0; r < T * B; r++) for (let v = 0; v < V; v++) logits[r * V + v] += params.b_out[v];
  return { logits, cache: { xs, caches, top: out, T, B } };
}

// --8<-- [start:loss]
/** Mean -log p(y) over rows (cross_entropy): logits (N, V), ys (N,) -> loss, and dlogits in place. */
export function crossEntropy(logits, ys, V) {
  const N = ys.length;
  let loss = 0;
  for (let r = 0; r < N; r++) {
    const row = logits.subarray(r * V, (r + 1) * V);
    let max = -Infinity;
    for (let v = 0; v < V; v++) max = Math.max(max, row[v]);       // stable: the max logit is 0
    let total = 0;
    for (let v = 0; v < V; v++) total += Math.exp(row[v] - max);
    loss += Math.log(total) - (row[ys[r]] - max);
    for (let v = 0; v < V; v++) row[v] = Math.exp(row[v] - max) / total / N;   // softmax / N
    row[ys[r]] -= 1 / N;                                           // minus the one-hot target
  }
  return loss / N;
}
// --8<-- [end:loss]

/** One training batch (loss_and_grads, loss "all"): xs, ys B windows -> {loss, grads}. */
export function lossAndGrads(params, config, xs, ys, onStage = () => {}) {
  const { vocab_size: V, embed: E, hidden: H, layers: L } = config;
  onStage("forward");
  const { logits, cache } = forward(params, config, xs);
  const { T, B, caches, top } = cache;
  onStage("loss");
  const targets = new Int32Array(T * B);                           // time-major rows: t, then b
  for (let t = 0; t < T; t++) for (let n = 0; n < B; n++) targets[t * B + n] = ys[n][t];
  const loss = crossEntropy(logits, targets, V);                   // logits now hold dlogits
  onStage("backward");
  const grads = Object.fromEntries(Object.entries(params).map(([k, p]) => [k, new Float32Array(p.length)]));
  matmulTN(top, logits, grads.W_out, T * B, H, V);
  for (let r = 0; r < T * B; r++) for (let v = 0; v < V; v++) grads.b_out[v] += logits[r * V + v];
  let dout = new Float32Array(T * B * H);
  matmulNT(logits, params.W_out, dout, T * B, V, H);
  for (let l = L - 1; l >= 0; l--) dout = lstmBackward(dout, caches[l], T, B, H, grads, l);
  for (let t = 0; t < T; t++) for (let n = 0; n < B; n++) {        // each use of a row adds its gradient
    const row = xs[n][t] * E, d = (t * B + n) * E;
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
  const zeros = () => Object.fromEntries(Object.entries(params).map(([k, p]) => [k, new Float32Array(p.length)]));
  return { m: zeros(), v: zeros(), t: 0 };
}

/** One AdamW update of `params` in place (AdamW.step, torch.optim.AdamW's arithmetic). */
export function adamwStep(params, grads, adam, { lr, weight_decay: wd }, beta1 = 0.9, beta2 = 0.999, eps = 1e-8) {
  adam.t += 1;
  const correct1 = 1 - beta1 ** adam.t, correct2 = 1 - beta2 ** adam.t;   // early averages lean towards 0
  for (const k of Object.keys(params)) {
    const p = params[k], g = grads[k], m = adam.m[k], v = adam.v[k];
    for (let i = 0; i < p.length; i++) {
      p[i] *= 1 - lr * wd;                                         // decay the weight, not the gradient
      m[i] = beta1 * m[i] + (1 - beta1) * g[i];
      v[i] = beta2 * v[i] + (1 - beta2) * g[i] * g[i];
      p[i] -= (lr / correct1) * m[i] / (Math.sqrt(v[i] / correct2) + eps);
    }
  }
}
// --8<-- [end:adamw]
