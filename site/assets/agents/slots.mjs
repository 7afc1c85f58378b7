// How the agent-tuned TinyLLM reads a prompt, in JavaScript: the twin of lllm/model/generate.py's
// `prompt_view`, `NumberSlots` (mask / unmask) and `model_view` (read them first; the doctests there are
// the examples). The page's ReAct runs call the model through Python, which masks there; time travel's
// drilldown (drill-brains.mjs) replays one call on this page's thread and must read the prompt the same
// way, character for character: from the last `Question: ` line on, numbers (and words outside the
// card's lexicon) as slots `#1`, `@1`, numbered by first appearance in the lines the model reads.

const NUMBER = "[0-9]+(?:\\.[0-9]+)?"; // a number literal: ASCII digits, an optional decimal part
const WORD = "[A-Za-z]+"; // a word, for word slots: ASCII letters
const SLOT = /([^\s\w])([1-9][0-9]*)/g; // a mark, then a slot number (the vocabulary is ASCII)

/** generate.prompt_view: from the last line that starts with `readsFrom` (none: all of it). */
export function promptView(prompt, readsFrom) {
  if (!readsFrom || (prompt.startsWith(readsFrom) && !prompt.includes("\n" + readsFrom))) return prompt;
  const at = prompt.lastIndexOf("\n" + readsFrom);
  return at >= 0 ? prompt.slice(at + 1) : prompt;
}

/** generate.NumberSlots from a card's `number_slots` (null: the model reads digits). */
export function numberSlots(card) {
  if (!card) return null;
  const { mark, own_lines: ownLines, word_mark: wordMark = "@", lexicon = [] } = card;
  const known = new Set(lexicon);
  const isWord = (token) => /^[A-Za-z]/.test(token);
  return {
    mark,
    wordMark,
    /** [text with slots, the values behind them in order of first appearance] */
    mask(text) {
      const slot = new Map(),
        counts = { [mark]: 0, [wordMark]: 0 };
      const read = (token) => {
        if (!slot.has(token)) {
          const word = isWord(token);
          if (word && (!known.size || known.has(token.toLowerCase()))) return token; // read as letters
          const m = word ? wordMark : mark;
          counts[m] += 1;
          slot.set(token, `${m}${counts[m]}`);
        }
        return slot.get(token);
      };
      const copied = (token) => slot.get(token) ?? token;
      const pattern = new RegExp(known.size ? `${NUMBER}|${WORD}` : NUMBER, "g");
      const lines = text.split("\n").map((line) => line.replace(pattern, ownLines.some((own) => line.startsWith(own)) ? copied : read));
      return [lines.join("\n"), [...slot.keys()]];
    },
    /** `text` with each slot that has a value replaced by it. */
    unmask(text, values) {
      const numbers = values.filter((v) => !isWord(v)),
        words = values.filter(isWord);
      return text.replace(SLOT, (whole, m, k) => {
        const table = m === mark ? numbers : m === wordMark && known.size ? words : null;
        return table && Number(k) <= table.length ? table[Number(k) - 1] : whole;
      });
    },
  };
}

/** generate.model_view: [what the model reads of `prompt`, the values its slots stand for]. */
export function modelView(prompt, readsFrom, slots) {
  const view = promptView(prompt, readsFrom);
  return slots ? slots.mask(view) : [view, []];
}
