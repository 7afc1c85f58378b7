// TinyGPT's forward pass in the page: onnxruntime-web on tinygpt.onnx, carrying a key/value cache.
// The twin of lllm/model/gpt_backend.py (read it first): the same graph, the same refill rule, so
// the token loop in model.mjs gives the same text as `python -m lllm generate --predictor tinygpt`.
//
// The state, after reading some characters:
//   {ids: the last `block` ids read, keys, values: Float32Array [layers, 1, heads, S, headDim], S}
// Each call feeds only the new ids and gets back the keys and values with them appended: the
// positions already read are never computed again (until the context is full: see refillRule).

export const GPT_FORMAT = "lllm.tinygpt/1";

export const isGpt = (card) => card?.format === GPT_FORMAT;

/** lllm.model.gpt_backend.refill_rule, line for line: [ids to feed, keep the cache?]. */
export function refillRule(history, fresh, cached, block, refill) {
  if (cached + fresh.length <= block) return [fresh.slice(), true];
  const everything = history.concat(fresh);
  return [everything.slice(-Math.max(refill, Math.min(fresh.length, block))), false];
}

/**
 * Read `ids` after `state` (null: nothing read yet) -> {logits after the last id, state, attention,
 * fed}. attention is the graph's output as is: {data, dims [layers, 1, heads, T, S]}.
 */
export async function gptForward(ort, m, ids, state) {
  const { layers, heads, embed, block, refill } = m.card.config;
  const D = embed / heads;
  const history = state?.ids ?? [];
  const [feed, keep] = refillRule(history, Array.from(ids), state?.S ?? 0, block, refill);
  const P = keep ? (state?.S ?? 0) : 0;
  const past = (data) => new ort.Tensor("float32", keep && data ? data : new Float32Array(0), [layers, 1, heads, P, D]);
  const out = await m.session.run({
    input_ids: new ort.Tensor("int64", BigInt64Array.from(feed, BigInt), [1, feed.length]),
    past_key: past(state?.keys),
    past_value: past(state?.values),
  });
  const V = m.card.vocab.length;
  const logits = out.logits.data.subarray((feed.length - 1) * V, feed.length * V);
  const next = {
    ids: history.concat(Array.from(ids)).slice(-block),
    keys: out.present_key.data,
    values: out.present_value.data,
    S: P + feed.length,
  };
  return { logits, state: next, attention: { data: out.attention.data, dims: out.attention.dims }, fed: feed.length };
}
