// The order a learner sees a question's choices in: shuffled per learner, the same on every visit.
// Used by questions.mjs; knows nothing about the page.
//
// Quiz authors tend to write the right answer first, so the order of a file is a cue; a shuffle
// removes it. The shuffle is seeded by one random seed per browser (localStorage, KEY) hashed with
// the question id, so a learner sees the same order on the quiz page, on the Review page and after
// a reload, while another learner sees another. Choices keep their identity through the shuffle:
// each carries `key`, its place in the quiz file (hooks/quiz.py), and answers are stored as keys,
// so a stored answer always means the same choice whatever order it was shown in. When storage is
// blocked the seed lives as long as the page (a new order per visit, still no cue).
//
//   shuffled([{key: 0}, {key: 1}, {key: 2}], "a1b2c3", "gen-greedy")   // the same order every call

export const KEY = "lllm.quiz.order-seed";
let pageSeed = null; // the seed when localStorage is blocked

function freshSeed() {
  const bytes = new Uint32Array(2);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (n) => n.toString(16).padStart(8, "0")).join("");
}

/** This browser's seed: read once from localStorage, made and kept there the first time. */
export function learnerSeed() {
  try {
    let seed = localStorage.getItem(KEY);
    if (!seed || !/^[0-9a-f]{16}$/.test(seed)) {
      seed = freshSeed();
      localStorage.setItem(KEY, seed);
    }
    return seed;
  } catch {
    pageSeed ??= freshSeed();
    return pageSeed;
  }
}

/** FNV-1a, 32 bits: a string to a number, the same in every browser. */
function hash32(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** mulberry32: a small seeded generator of numbers in [0, 1). */
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The choices in this learner's order for question `id`: a Fisher–Yates shuffle driven by
 * hash(seed, id), over the choices sorted by key, so the build's own order makes no difference.
 */
export function shuffled(choices, seed, id) {
  const random = generator(hash32(`${seed}:${id}`));
  const out = [...choices].sort((a, b) => a.key - b.key);
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
