// The fast path of tinyllm.mjs: its matrix products, the LSTM cell's step forward and backward, the
// softmax cross-entropy and AdamW as WebAssembly SIMD, four float32 numbers per instruction. No
// compiler is needed: this file writes the WebAssembly module's bytes itself (the emitter below) and
// compiles them where it runs, so the site stays static files. The numbers live in one WebAssembly
// memory (the arena): tinyllm.mjs takes its weights and scratch arrays from it, so a kernel is a
// call with a few addresses, and nothing is copied. Where WebAssembly SIMD is missing, kernels()
// is null and tinyllm.mjs runs its plain JavaScript; where relaxed SIMD is there (Chromium), the
// products use its fused multiply-add.
//
//   const k = kernels()                          // null where WebAssembly SIMD is missing
//   const A = k.f32(8 * 3), B = k.f32(3 * 8), C = k.f32(8 * 8)   // views on the arena
//   k.matmul(A, B, C, 8, 3, 8, false)            // true: C = A @ B, done in WebAssembly
//
// Everything is float32, as numpy's (the plain JavaScript computes in float64 and stores float32);
// tests/site/test_train_tab_kernels.py checks each kernel against float64 JavaScript, and
// tests/site/test_train_tab_parity.py the losses of both paths against numpy's.

// ---- a tiny WebAssembly binary writer ------------------------------------------------------------

const uleb = (n) => {
  const out = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
};
const sleb = (n) => {
  const out = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && !(b & 0x40)) || (n === -1 && b & 0x40)) return [...out, b];
    out.push(b | 0x80);
  }
};
const name = (s) => [...uleb(s.length), ...new TextEncoder().encode(s)];
const section = (id, body) => [id, ...uleb(body.length), ...body];
const I32 = 0x7f,
  F32 = 0x7d,
  V128 = 0x7b;

// The instructions the kernel uses (opcodes from the WebAssembly core and SIMD specifications).
const get = (i) => [0x20, ...uleb(i)],
  set = (i) => [0x21, ...uleb(i)];
const i32 = (n) => [0x41, ...sleb(n)];
const [add, mul, ltu] = [[0x6a], [0x6c], [0x49]];
const simd = (op, ...imm) => [0xfd, ...uleb(op), ...imm];
const load = (offset) => simd(0x00, 2, ...uleb(offset)); // v128.load, 4-byte aligned
const splat = simd(0x09, 2, 0); // v128.load32_splat
const store = (offset) => simd(0x0b, 2, ...uleb(offset)); // v128.store
const zero = simd(0x0c, ...new Array(16).fill(0)); // v128.const 0
const [fadd, fsub, fmul, fdiv, fmin, fmax] = [0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9].map((op) => simd(op)); // f32x4.*
const madd = simd(0x105); // f32x4.relaxed_madd: a * b + c
const [nearest, toInt, iadd, ishl] = [simd(0x6a), simd(0xf8), simd(0xae), simd(0xab)];
const [lane, splat4, sqrt4, neg4] = [(k) => simd(0x1f, k), simd(0x13), simd(0xe3), simd(0xe1)];
const [fmax1, fadd1, fmul1, toF32, f32store] = [[0x97], [0x92], [0x94], [0xb2], [0x38, 2, 0]]; // f32.*
const f32x4 = (v) => simd(0x0c, ...new Uint8Array(new Float32Array([v, v, v, v]).buffer));
const loop = (...body) => [0x03, 0x40, ...body.flat(), 0x0b];
const when = (cond, yes, no) => [...cond, 0x04, 0x40, ...yes.flat(), 0x05, ...no.flat(), 0x0b];
const brIf = (depth) => [0x0d, ...uleb(depth)];
const incr = (local, by) => [...get(local), ...by, ...add, ...set(local)];

// biome-ignore format: WebAssembly instructions, laid out one statement of the kernel per line
// e^v for the four numbers on the stack (Cephes' expf, within about 2 units of float32's last
// place): e^v = 2^n e^r with n = round(v / ln 2), |r| <= ln 2 / 2, e^r a polynomial, 2^n put
// straight into a float's exponent bits. Uses locals t (the argument) and n.
function exp4(t, n) {
  const poly = [1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1];
  return [
    ...f32x4(88.3), ...fmin, ...f32x4(-87.3), ...fmax, ...set(t),          // e^v stays a normal float32
    ...get(t), ...f32x4(Math.LOG2E), ...fmul, ...nearest, ...set(n),
    ...get(t), ...get(n), ...f32x4(0.693359375), ...fmul, ...fsub, ...get(n), ...f32x4(-2.12194440e-4), ...fmul, ...fsub, ...set(t),
    ...f32x4(poly[0]), ...poly.slice(1).flatMap((c) => [...get(t), ...fmul, ...f32x4(c), ...fadd]),
    ...get(t), ...fmul, ...get(t), ...fmul, ...get(t), ...fadd, ...f32x4(1), ...fadd,      // p(r) r^2 + r + 1
    ...get(n), ...toInt, ...simd(0x0c, ...new Uint8Array(new Int32Array([127, 127, 127, 127]).buffer)), ...iadd, ...i32(23), ...ishl, ...fmul,
  ];
}
// sigmoid(v) = 1 / (1 + e^-v) and tanh(v) = 1 - 2 / (e^2v + 1), as tinyllm.mjs writes them.
const sigmoid4 = (t, n) => [...neg4, ...exp4(t, n), ...f32x4(1), ...fadd, ...set(t), ...f32x4(1), ...get(t), ...fdiv];
// biome-ignore format: WebAssembly instructions, laid out one statement of the kernel per line
const tanh4 = (t, n) => [...f32x4(2), ...fmul, ...exp4(t, n), ...f32x4(1), ...fadd, ...set(t), ...f32x4(1), ...f32x4(2), ...get(t), ...fdiv, ...fsub];

// biome-ignore format: WebAssembly instructions, laid out one statement of the kernel per line
// cell(g, bias, cp, cn, hn, tc, B, H): one time step of lstmForward after the products, for B rows:
// gates g (B, 4H) += bias and activated, then c (cn) = f * c_prev (cp) + i * g, tanh(c) (tc),
// h (hn) = o * tanh(c). H a multiple of 4.
function cellBody() {
  const [g, bias, cp, cn, hn, tc, B, H] = [0, 1, 2, 3, 4, 5, 6, 7];
  const [n, j, H4] = [8, 9, 10], [t, e, c] = [11, 12, 13];
  const at = (base, off = []) => [...get(base), ...get(j), ...add, ...off];
  const gate = (k) => [...at(g, [...get(H4), ...i32(k), ...mul, ...add]), ...load(0)];
  const activate = (fn, upTo) => loop([...at(g), ...at(g), ...load(0), ...at(bias), ...load(0), ...fadd, ...fn(t, e), ...store(0),
    ...incr(j, i32(16)), ...get(j), ...upTo, ...ltu, ...brIf(0)]);
  const row = [
    ...i32(0), ...set(j), ...activate(sigmoid4, [...get(H4), ...i32(3), ...mul]),
    ...activate(tanh4, [...get(H4), ...i32(4), ...mul]),
    ...i32(0), ...set(j),
    ...loop([
      ...at(cn), ...gate(1), ...at(cp), ...load(0), ...fmul, ...gate(0), ...gate(3), ...fmul, ...fadd, ...set(c), ...get(c), ...store(0),
      ...at(tc), ...get(c), ...tanh4(t, e), ...set(c), ...get(c), ...store(0),
      ...at(hn), ...gate(2), ...get(c), ...fmul, ...store(0),
      ...incr(j, i32(16)), ...get(j), ...get(H4), ...ltu, ...brIf(0)]),
    ...incr(g, [...get(H4), ...i32(4), ...mul]), ...[cp, cn, hn, tc].flatMap((p) => incr(p, get(H4))),
    ...incr(n, i32(-1)), ...get(n), ...brIf(0),
  ];
  const body = [...get(H), ...i32(4), ...mul, ...set(H4), ...get(B), ...set(n), ...loop(row)];
  const locals = [[3, I32], [3, V128]];
  return [...uleb(locals.length), ...locals.flat(), ...body, 0x0b];
}
// biome-ignore format: WebAssembly instructions, laid out one statement of the kernel per line
// --8<-- [start:kernel]
// mm(a, b, c, M, N, K, sa, ka, sb, add): C (M, N) (+)= A (M, K) @ B (K, N), addresses in bytes; in
// A rows are sa bytes apart and columns ka (A^T @ B is the same call with the two swapped), in B
// and C rows are sb apart; M a multiple of 4 and N of 8 (JavaScript does the rest).
// Each pass of the k loop loads 8 numbers of a row of B (two vectors) and 4 numbers of A (one per
// row, each copied into all four lanes), and adds 32 products into 8 vectors that stay in registers:
// a 4 x 8 block of C is written once, after all K.
function matmulBody(relaxed) {
  const [a, b, c, M, N, K, sa, ka, sb, addTo] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  const [i, j, k, pb, pc, p0, p1, p2, p3, b0, b1, x, acc] = [10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22];
  const rows = [p0, p1, p2, p3];
  const fma = (s, v) => relaxed ? [...get(x), ...get(v), ...get(s), ...madd, ...set(s)]
    : [...get(s), ...get(x), ...get(v), ...fmul, ...fadd, ...set(s)];
  const kStep = [
    ...get(pb), ...load(0), ...set(b0), ...get(pb), ...load(16), ...set(b1),
    ...rows.flatMap((p, r) => [...get(p), ...splat, ...set(x), ...fma(acc + 2 * r, b0), ...fma(acc + 2 * r + 1, b1), ...incr(p, get(ka))]),
    ...incr(pb, get(sb)), ...incr(k, i32(-1)), ...get(k), ...brIf(0),
  ];
  const rowAt = (r) => [...get(pc), ...i32(r), ...get(sb), ...mul, ...add];     // address of row r of the block
  const write = (plus) => Array.from({ length: 8 }, (_, s) => [...rowAt(s >> 1),
    ...(plus ? [...rowAt(s >> 1), ...load(16 * (s & 1)), ...get(acc + s), ...fadd] : get(acc + s)), ...store(16 * (s & 1))]).flat();
  const block = [
    ...Array.from({ length: 8 }, (_, s) => [...zero, ...set(acc + s)]).flat(),
    ...get(a), ...get(i), ...get(sa), ...mul, ...add, ...set(p0),
    ...[p1, p2, p3].flatMap((p, r) => [...get(rows[r]), ...get(sa), ...add, ...set(p)]),
    ...get(b), ...get(j), ...i32(4), ...mul, ...add, ...set(pb),
    ...get(K), ...set(k), ...loop(kStep),
    ...get(c), ...get(i), ...get(sb), ...mul, ...add, ...get(j), ...i32(4), ...mul, ...add, ...set(pc),
    ...when(get(addTo), [write(true)], [write(false)]),
    ...incr(j, i32(8)), ...get(j), ...get(N), ...ltu, ...brIf(0),
  ];
  const body = [...i32(0), ...set(i), ...loop([...i32(0), ...set(j), ...loop(block), ...incr(i, i32(4)), ...get(i), ...get(M), ...ltu, ...brIf(0)])];
  const locals = [[9, I32], [11, V128]];
  return [...uleb(locals.length), ...locals.flat(), ...body, 0x0b];
}
// --8<-- [end:kernel]

// biome-ignore format: WebAssembly instructions, laid out one statement of the kernel per line
// cellBack(g, tc, cp, dHs, dh, dc, dZ, db, B, H): lstmBackward's step t for B rows, from the
// gates g, tanh(c) tc, c_prev cp, the gradient from above dHs and the carried dh, dc: writes the
// gates' gradient dZ (B, 4H), adds it into db (4H) and leaves dc for step t-1 in dc.
function cellBackBody() {
  const [g, tc, cp, dHs, dh, dc, dZ, db, B, H] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  const [n, j, H4] = [10, 11, 12], [gi, gf, go, gg, t, dhh, dcc, d] = [13, 14, 15, 16, 17, 18, 19, 20];
  const at = (base, k = 0) => [...get(base), ...get(j), ...add, ...(k ? [...get(H4), ...i32(k), ...mul, ...add] : [])];
  const oneMinus = (v) => [...f32x4(1), ...get(v), ...fsub];
  const out = (k, value) => [...at(dZ, k), ...value, ...set(d), ...get(d), ...store(0),
    ...at(db, k), ...at(db, k), ...load(0), ...get(d), ...fadd, ...store(0)];
  const step = [
    ...[gi, gf, go, gg].flatMap((v, k) => [...at(g, k), ...load(0), ...set(v)]), ...at(tc), ...load(0), ...set(t),
    ...at(dh), ...load(0), ...at(dHs), ...load(0), ...fadd, ...set(dhh),                       // from step t+1 and from above
    ...at(dc), ...load(0), ...get(dhh), ...get(go), ...fmul, ...f32x4(1), ...get(t), ...get(t), ...fmul, ...fsub, ...fmul, ...fadd, ...set(dcc),
    ...out(0, [...get(dcc), ...get(gg), ...fmul, ...get(gi), ...fmul, ...oneMinus(gi), ...fmul]),
    ...out(1, [...get(dcc), ...at(cp), ...load(0), ...fmul, ...get(gf), ...fmul, ...oneMinus(gf), ...fmul]),
    ...out(2, [...get(dhh), ...get(t), ...fmul, ...get(go), ...fmul, ...oneMinus(go), ...fmul]),
    ...out(3, [...get(dcc), ...get(gi), ...fmul, ...f32x4(1), ...get(gg), ...get(gg), ...fmul, ...fsub, ...fmul]),
    ...at(dc), ...get(dcc), ...get(gf), ...fmul, ...store(0),
    ...incr(j, i32(16)), ...get(j), ...get(H4), ...ltu, ...brIf(0),
  ];
  const row = [...i32(0), ...set(j), ...loop(step),
    ...[g, dZ].flatMap((p) => incr(p, [...get(H4), ...i32(4), ...mul])), ...[tc, cp, dHs, dh, dc].flatMap((p) => incr(p, get(H4))),
    ...incr(n, i32(-1)), ...get(n), ...brIf(0)];
  const body = [...get(H), ...i32(4), ...mul, ...set(H4), ...get(B), ...set(n), ...loop(row)];
  const locals = [[3, I32], [8, V128]];
  return [...uleb(locals.length), ...locals.flat(), ...body, 0x0b];
}

// biome-ignore format: WebAssembly instructions, laid out one statement of the kernel per line
// xent(logits, dbias, maxes, sums, N, V): the softmax of each of N rows of V scores, in place, over N
// (the gradient of the mean loss, before the target's -1/N), added into dbias too; each row's
// largest score goes to maxes and its sum of exponentials to sums (the loss needs both).
function xentBody() {
  const [logits, dbias, maxes, sums, N, V] = [0, 1, 2, 3, 4, 5];
  const [r, j, V4] = [6, 7, 8], [m, total] = [9, 10], [vm, vs, t, e, d] = [11, 12, 13, 14, 15];
  const at = (base) => [...get(base), ...get(j), ...add];
  const over = (...body) => [...i32(0), ...set(j), ...loop([...body.flat(), ...incr(j, i32(16)), ...get(j), ...get(V4), ...ltu, ...brIf(0)])];
  const across = (v, op) => [...get(v), ...lane(0), ...[1, 2, 3].flatMap((k) => [...get(v), ...lane(k), ...op])];
  const row = [
    ...f32x4(-Infinity), ...set(vm), ...over([...get(vm), ...at(logits), ...load(0), ...fmax, ...set(vm)]),
    ...across(vm, fmax1), ...set(m), ...get(m), ...splat4, ...set(vm),
    ...zero, ...set(vs), ...over([...at(logits), ...at(logits), ...load(0), ...get(vm), ...fsub, ...exp4(t, e), ...set(d), ...get(d), ...store(0),
      ...get(vs), ...get(d), ...fadd, ...set(vs)]),
    ...across(vs, fadd1), ...set(total), ...get(maxes), ...get(m), ...f32store, ...get(sums), ...get(total), ...f32store,
    ...f32x4(1), ...get(total), ...get(N), ...toF32, ...fmul1, ...splat4, ...fdiv, ...set(vm),                   // 1 / (sum N)
    ...over([...at(logits), ...at(logits), ...load(0), ...get(vm), ...fmul, ...set(d), ...get(d), ...store(0),
      ...at(dbias), ...at(dbias), ...load(0), ...get(d), ...fadd, ...store(0)]),
    ...incr(logits, get(V4)), ...incr(maxes, i32(4)), ...incr(sums, i32(4)), ...incr(r, i32(-1)), ...get(r), ...brIf(0),
  ];
  const body = [...get(V), ...i32(4), ...mul, ...set(V4), ...get(N), ...set(r), ...loop(row)];
  const locals = [[3, I32], [2, F32], [5, V128]];
  return [...uleb(locals.length), ...locals.flat(), ...body, 0x0b];
}

// biome-ignore format: WebAssembly instructions, laid out one statement of the kernel per line
// adam(p, g, m, v, n, decay, rate, correct2, beta1, beta2, eps): adamwStep's loop over n numbers
// (a multiple of 4), in float32.
function adamBody() {
  const [p, g, m, v, n] = [0, 1, 2, 3, 4], [decay, rate, correct2, beta1, beta2, eps] = [5, 6, 7, 8, 9, 10].map((k) => [...get(k), ...splat4]);
  const [j, gi, mi, vi] = [11, 12, 13, 14];
  const at = (base) => [...get(base), ...get(j), ...add];
  const one = f32x4(1);
  const step = [
    ...at(g), ...load(0), ...set(gi),
    ...at(m), ...beta1, ...at(m), ...load(0), ...fmul, ...one, ...beta1, ...fsub, ...get(gi), ...fmul, ...fadd, ...set(mi), ...get(mi), ...store(0),
    ...at(v), ...beta2, ...at(v), ...load(0), ...fmul, ...one, ...beta2, ...fsub, ...get(gi), ...fmul, ...get(gi), ...fmul, ...fadd, ...set(vi), ...get(vi), ...store(0),
    ...at(p), ...at(p), ...load(0), ...decay, ...fmul, ...rate, ...get(mi), ...fmul, ...get(vi), ...correct2, ...fdiv, ...sqrt4, ...eps, ...fadd, ...fdiv, ...fsub, ...store(0),
    ...incr(j, i32(16)), ...get(j), ...get(n), ...i32(4), ...mul, ...ltu, ...brIf(0),   // n numbers: 4n bytes
  ];
  const locals = [[1, I32], [3, V128]];
  return [...uleb(locals.length), ...locals.flat(), ...i32(0), ...set(j), ...loop(step), 0x0b];
}

/** The module's bytes: memory imported from env.memory; functions mm, cell, cellBack, xent and adam exported. */
export function moduleBytes(relaxed = false) {
  const ints = (n) => new Array(n).fill(I32);
  const fns = [
    ["mm", ints(10), matmulBody(relaxed)],
    ["cell", ints(8), cellBody()],
    ["cellBack", ints(10), cellBackBody()],
    ["xent", ints(6), xentBody()],
    ["adam", [...ints(5), ...new Array(6).fill(F32)], adamBody()],
  ];
  const type = [fns.length, ...fns.flatMap(([, args]) => [0x60, args.length, ...args, 0])];
  const imports = [1, ...name("env"), ...name("memory"), 0x02, 0x00, 1]; // a memory of at least 1 page
  return new Uint8Array([
    0x00,
    0x61,
    0x73,
    0x6d,
    1,
    0,
    0,
    0,
    ...section(1, type),
    ...section(2, imports),
    ...section(3, [fns.length, ...fns.map((_, f) => f)]),
    ...section(7, [fns.length, ...fns.flatMap(([n], f) => [...name(n), 0x00, f])]),
    ...section(10, [fns.length, ...fns.flatMap(([, , c]) => [...uleb(c.length), ...c])]),
  ]);
}

// ---- the arena and the calls ---------------------------------------------------------------------

const PAGE = 65536;
let instance = null;

/** The kernels for this thread (one arena each), or null when WebAssembly SIMD is not there. */
export function kernels() {
  if (instance !== null) return instance || null;
  instance = false;
  if (typeof WebAssembly !== "object") return null;
  const relaxed = WebAssembly.validate(moduleBytes(true)); // Chromium, Firefox: a fused multiply-add
  const bytes = relaxed ? moduleBytes(true) : moduleBytes(false);
  if (!WebAssembly.validate(bytes)) return null; // no SIMD: the plain JavaScript
  const memory = new WebAssembly.Memory({ initial: 1 });
  let exports;
  try {
    exports = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory } }).exports;
  } catch {
    return null; // a page whose policy forbids compiling WebAssembly: the plain JavaScript
  }
  const { mm, cell, cellBack, xent, adam } = exports;
  let top = 0;
  const inArena = (x) => x.buffer === memory.buffer;
  instance = {
    relaxed,
    /** Forget every view handed out and make room for `bytes`: views from before are invalid after. */
    reset(bytes) {
      top = 0;
      const pages = Math.ceil(bytes / PAGE) - memory.buffer.byteLength / PAGE;
      try {
        if (pages > 0) memory.grow(pages);
      } catch {
        // no room for all of it: what does not fit is made by the caller, and runs in JavaScript
      }
    },
    /** n float32 numbers on the arena, 16-byte aligned, or null when it is full (the caller makes its own). */
    f32(n) {
      const at = top,
        end = at + ((4 * n + 15) & ~15);
      if (end > memory.buffer.byteLength) return null;
      top = end;
      return new Float32Array(memory.buffer, at, n).fill(0); // a new run finds the last run's numbers here
    },
    /** C (M, N) (+)= A (M, K) @ B (K, N) over the largest 4 x 8 blocks; false if an array is not on the arena. */
    matmul(A, B, C, M, K, N, addTo) {
      if (!(inArena(A) && inArena(B) && inArena(C))) return false;
      const M4 = M & ~3,
        N8 = N & ~7;
      if (M4 > 0 && N8 > 0 && K > 0) mm(A.byteOffset, B.byteOffset, C.byteOffset, M4, N8, K, 4 * K, 4, 4 * N, addTo ? 1 : 0);
      return true;
    },
    /** C (K, N) += A (M, K)^T @ B (M, N) over the largest 4 x 8 blocks; false if an array is not on the arena. */
    matmulTN(A, B, C, M, K, N) {
      if (!(inArena(A) && inArena(B) && inArena(C))) return false;
      const K4 = K & ~3,
        N8 = N & ~7;
      if (K4 > 0 && N8 > 0 && M > 0) mm(A.byteOffset, B.byteOffset, C.byteOffset, K4, N8, M, 4, 4 * K, 4 * N, 1);
      return true;
    },
    /** lstmForward's step t for B rows (see cellBody); false when H is not a multiple of 4. */
    cell(gates, b, cPrev, cNext, hNext, tanhC, B, H) {
      if (H % 4 || ![gates, b, cPrev, cNext, hNext, tanhC].every(inArena)) return false;
      cell(gates.byteOffset, b.byteOffset, cPrev.byteOffset, cNext.byteOffset, hNext.byteOffset, tanhC.byteOffset, B, H);
      return true;
    },
    /** lstmBackward's step t for B rows (see cellBackBody); false when H is not a multiple of 4. */
    cellBack(gates, tanhC, cPrev, dHs, dh, dc, dZ, db, B, H) {
      const all = [gates, tanhC, cPrev, dHs, dh, dc, dZ, db];
      if (H % 4 || !all.every(inArena)) return false;
      cellBack(...all.map((x) => x.byteOffset), B, H);
      return true;
    },
    /** crossEntropy's rows (see xentBody); false when V is not a multiple of 4. */
    xent(logits, dBias, maxes, sums, N, V) {
      if (V % 4 || ![logits, dBias, maxes, sums].every(inArena)) return false;
      xent(logits.byteOffset, dBias.byteOffset, maxes.byteOffset, sums.byteOffset, N, V);
      return true;
    },
    /** adamwStep on the first n - n % 4 numbers; false when an array is not on the arena. */
    adam(p, g, m, v, decay, rate, correct2, beta1, beta2, eps) {
      if (![p, g, m, v].every(inArena)) return false;
      if (p.length >= 4)
        adam(p.byteOffset, g.byteOffset, m.byteOffset, v.byteOffset, p.length & ~3, decay, rate, correct2, beta1, beta2, eps);
      return true;
    },
  };
  return instance;
}
