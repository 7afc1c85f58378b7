// The WebAssembly kernels of site/assets/train/kernels.mjs (products, cell forward and backward,
// cross-entropy, AdamW) against the same formulas in float64
// JavaScript, on random numbers: prints one JSON object with the worst difference of each kernel.
// tests/site/test_train_tab_kernels.py runs it (with and without relaxed SIMD) and sets the bounds.
//   node train_kernels_check.mjs     -> {"relaxed": false, "matmul": 3e-8, ..., "outside": 0}
import { kernels } from "../../site/assets/train/kernels.mjs";

const k = kernels();
if (!k) {
  console.log(JSON.stringify({ available: false }));
  process.exit(0);
}
// The example at the top of kernels.mjs, as written there (on the arena's first page).
const example = (() => {
  const A = k.f32(8 * 3),
    B = k.f32(3 * 8),
    C = k.f32(8 * 8);
  A.forEach((_, i) => {
    A[i] = (i % 5) - 2;
  });
  B.forEach((_, i) => {
    B[i] = (i % 3) - 1;
  });
  const done = k.matmul(A, B, C, 8, 3, 8, false);
  let err = 0;
  for (let i = 0; i < 8; i++)
    for (let j = 0; j < 8; j++) {
      let s = 0;
      for (let q = 0; q < 3; q++) s += A[i * 3 + q] * B[q * 8 + j];
      err = Math.max(err, Math.abs(C[i * 8 + j] - s));
    }
  return done && err === 0;
})();
k.reset(1 << 24);
let seed = 12345;
const uniform = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
const rand = (n, scale = 1) => {
  const a = k.f32(n);
  for (let i = 0; i < n; i++) a[i] = (2 * uniform() - 1) * scale;
  return a;
};
const worst = {};
const note = (key, err) => {
  worst[key] = Math.max(worst[key] ?? 0, Number.isNaN(err) ? Infinity : err);
};
const sigmoid = (z) => 1 / (1 + Math.exp(-z));

// Products: only the 4 x 8 blocks are the kernel's; the rest of C must be left as it was.
const SENTINEL = 7.5;
for (const [M, K, N] of [
  [16, 64, 256],
  [384, 16, 256],
  [8, 3, 8],
  [12, 5, 24],
  [7, 9, 13],
  [4, 1, 8],
  [20, 33, 96],
]) {
  for (const transposed of [false, true])
    for (const addTo of [false, true]) {
      const A = transposed ? rand(K * M) : rand(M * K),
        B = rand(K * N),
        C = rand(M * N);
      const C0 = C.slice(),
        M4 = M & ~3,
        N8 = N & ~7;
      for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) if (i >= M4 || j >= N8) C[i * N + j] = C0[i * N + j] = SENTINEL;
      // transposed: C (M, N) += A (K, M)^T @ B (K, N), the call matmulTN(A, B, C, K, M, N)
      const done = transposed ? k.matmulTN(A, B, C, K, M, N) : k.matmul(A, B, C, M, K, N, addTo);
      if (!done) note("refused", 1);
      for (let i = 0; i < M; i++)
        for (let j = 0; j < N; j++) {
          if (i >= M4 || j >= N8) {
            note("outside", Math.abs(C[i * N + j] - SENTINEL));
            continue;
          }
          let s = 0,
            size = 0;
          for (let q = 0; q < K; q++) {
            const a = transposed ? A[q * M + i] : A[i * K + q];
            s += a * B[q * N + j];
            size += Math.abs(a * B[q * N + j]);
          }
          if (transposed || addTo) {
            s += C0[i * N + j];
            size += Math.abs(C0[i * N + j]);
          }
          note(transposed ? "matmulTN" : addTo ? "matmulAdd" : "matmul", Math.abs(C[i * N + j] - s) / (size + 1e-30));
        }
    }
}

// The forward cell, from ordinary gate values to ones far past where exp overflows float32.
for (const [Bn, H, scale] of [
  [16, 64, 4],
  [5, 12, 4],
  [3, 8, 200],
]) {
  const G = 4 * H,
    gates = rand(Bn * G, scale),
    raw = gates.slice(),
    bias = rand(G),
    cp = rand(Bn * H, 2);
  const cn = k.f32(Bn * H),
    hn = k.f32(Bn * H),
    tc = k.f32(Bn * H);
  if (!k.cell(gates, bias, cp, cn, hn, tc, Bn, H)) note("refused", 1);
  for (let n = 0; n < Bn; n++)
    for (let h = 0; h < H; h++) {
      const z = (q) => raw[n * G + q * H + h] + bias[q * H + h],
        at = n * H + h;
      const [i, f, o, g] = [sigmoid(z(0)), sigmoid(z(1)), sigmoid(z(2)), Math.tanh(z(3))];
      const c = f * cp[at] + i * g,
        t = Math.tanh(c);
      note("gates", Math.max(...[i, f, o, g].map((v, q) => Math.abs(gates[n * G + q * H + h] - v))));
      note("cell", Math.max(Math.abs(cn[at] - c), Math.abs(tc[at] - t), Math.abs(hn[at] - o * t)));
    }
}

// The backward cell: dZ, db (added to what it held) and the dc carried to the step before.
for (const [Bn, H] of [
  [16, 64],
  [5, 12],
]) {
  const G = 4 * H,
    g = rand(Bn * G),
    tc = rand(Bn * H),
    cp = rand(Bn * H, 2),
    dHs = rand(Bn * H),
    dh = rand(Bn * H);
  for (let r = 0; r < Bn * G; r++) g[r] = r % G < 3 * H ? (g[r] + 1) / 2 : g[r]; // sigmoid gates in (0, 1)
  const dc = rand(Bn * H),
    dc0 = dc.slice(),
    dZ = k.f32(Bn * G),
    db = rand(G),
    db0 = db.slice(),
    sums = Float64Array.from(db0);
  if (!k.cellBack(g, tc, cp, dHs, dh, dc, dZ, db, Bn, H)) note("refused", 1);
  for (let n = 0; n < Bn; n++)
    for (let h = 0; h < H; h++) {
      const a = n * G,
        s = n * H + h,
        [i, f, o, gg] = [0, 1, 2, 3].map((q) => g[a + q * H + h]);
      const dhh = dh[s] + dHs[s],
        dcc = dc0[s] + dhh * o * (1 - tc[s] * tc[s]);
      const want = [dcc * gg * i * (1 - i), dcc * cp[s] * f * (1 - f), dhh * tc[s] * o * (1 - o), dcc * i * (1 - gg * gg)];
      want.forEach((v, q) => {
        note("dZ", Math.abs(dZ[a + q * H + h] - v));
        sums[q * H + h] += v;
      });
      note("dc", Math.abs(dc[s] - dcc * f));
    }
  for (let j = 0; j < G; j++) note("db", Math.abs(db[j] - sums[j]));
}
// Softmax cross-entropy's rows: probabilities / N in place, added into dBias; each row's max and sum.
for (const [N, V, scale] of [
  [7, 96, 5],
  [3, 12, 60],
]) {
  const logits = rand(N * V, scale),
    raw = logits.slice(),
    dBias = rand(V),
    sums = Float64Array.from(dBias);
  const maxes = k.f32(N),
    totals = k.f32(N);
  if (!k.xent(logits, dBias, maxes, totals, N, V)) note("refused", 1);
  for (let r = 0; r < N; r++) {
    const row = raw.subarray(r * V, (r + 1) * V),
      max = Math.max(...row);
    const total = row.reduce((a, x) => a + Math.exp(x - max), 0);
    note("xentMax", Math.abs(maxes[r] - max));
    note("xentSum", Math.abs(totals[r] - total) / total);
    for (let v = 0; v < V; v++) {
      const p = Math.exp(row[v] - max) / total / N;
      note("xent", Math.abs(logits[r * V + v] - p));
      sums[v] += p;
    }
  }
  for (let v = 0; v < V; v++) note("xentBias", Math.abs(dBias[v] - sums[v]));
}

// AdamW on 4-number groups (the last n % 4 are the caller's), against adamwStep's formula.
{
  const n = 37,
    p = rand(n),
    g = rand(n),
    m = rand(n, 0.1),
    v = rand(n, 0.01);
  for (let i = 0; i < n; i++) v[i] = Math.abs(v[i]);
  const [p0, m0, v0] = [p.slice(), m.slice(), v.slice()],
    [decay, rate, c2, b1, b2, eps] = [0.9999, 0.01, 0.002, 0.9, 0.999, 1e-8];
  if (!k.adam(p, g, m, v, decay, rate, c2, b1, b2, eps)) note("refused", 1);
  for (let i = 0; i < n; i++) {
    if (i >= (n & ~3)) {
      note("adamTail", Math.abs(p[i] - p0[i]));
      continue;
    } // untouched
    const mi = b1 * m0[i] + (1 - b1) * g[i],
      vi = b2 * v0[i] + (1 - b2) * g[i] * g[i];
    note(
      "adam",
      Math.max(Math.abs(m[i] - mi), Math.abs(v[i] - vi), Math.abs(p[i] - (p0[i] * decay - (rate * mi) / (Math.sqrt(vi / c2) + eps)))),
    );
  }
}

// A full arena hands out nothing, and kernels refuse arrays that are not on it (the caller's JavaScript runs).
const plain = new Float32Array(64);
const refusals = [
  k.f32(1 << 26) === null,
  !k.matmul(plain, plain, plain, 8, 8, 8, false),
  !k.matmulTN(plain, plain, plain, 8, 8, 8),
  !k.cell(plain, plain, plain, plain, plain, plain, 1, 4),
  !k.xent(plain, plain, plain, plain, 1, 8),
];
console.log(JSON.stringify({ available: true, relaxed: k.relaxed, example, refusesOffArena: refusals.every(Boolean), ...worst }));
