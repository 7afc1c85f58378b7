"""Layer 1 · TinyGPT in numpy: the attention twin of TinyLLM, forward and backward written out.

Consumes: layer 1 of the package (`lllm.model.gpt_backend.refill_rule`); `lllm.model.gpt_backend`
and the page run its ONNX export.

Contract: `init_params(config) -> params` (a dict of float32 arrays), `forward(params, config, x,
past=None) -> (logits, cache, present, attention)`, `loss_and_grads(params, config, x, y) -> (loss,
grads)`, and `NumpyBackend(params, config)`, a backend for `lllm/model/generate.py` that carries a
key/value cache (`backend(ids, state) -> (logits of the last position, state)`).

Read `model.py` (TinyLLM) first: same data, same tokenizer, same loss, same optimiser. Where TinyLLM
carries a state (h, c) from one character to the next, TinyGPT looks back: every position asks
every earlier position what it holds (attention), in every head of every layer. A decoder-only
transformer with pre-layernorm blocks, as GPT-2 is:

    x = embed[ids] + pos[t]                                  token + learned position
    repeat L times:
        x = x + attention(layernorm1(x))                     causal, n_head heads
        x = x + mlp(layernorm2(x))                           Linear -> GELU -> Linear
    logits = layernorm_f(x) @ W_out + b_out

Shape legend: B batch, T new positions, P cached positions (the past), S = P + T keys, V vocabulary,
C width (embed), n heads, D = C / n per head, L layers, M = 4C the MLP's width. Parameters:

    embed (V, C)   pos (block, C)                    token and position embeddings
    ln1_g{l}, ln1_b{l}, ln2_g{l}, ln2_b{l} (C,)      layernorm gain and bias, per block
    W_qkv{l} (C, 3C)  b_qkv{l} (3C,)                 queries, keys, values of all heads at once
    W_o{l} (C, C)  b_o{l} (C,)                       the heads' outputs mixed back into the stream
    W_fc{l} (C, M)  b_fc{l} (M,)  W_pr{l} (M, C)  b_pr{l} (C,)    the MLP
    lnf_g, lnf_b (C,)  W_out (C, V)  b_out (V,)      final layernorm and next-character logits

One attention head, for the T new queries against S = P + T keys (the cache holds the P old ones):

    scores = q @ k.T / sqrt(D)          (T, S)   masked: query t sees keys 0 .. P + t only
    a = softmax(scores)                 (T, S)   `attention`: what the page draws
    y = a @ v                           (T, D)

The context is at most `block` characters (positions have learned vectors up to there). When a
text grows past it, the backend re-reads its last `refill` characters into an empty cache: the same
rule in CPython and in the page, so a seed gives the same text in both.

Usage:

    >>> cfg = GPTConfig(vocab_size=5, embed=8, heads=2, layers=1, block=6, refill=4, batch=2)
    >>> params = init_params(cfg)
    >>> count_parameters(params)
    1021
    >>> x = np.array([[0, 1, 2, 3], [4, 3, 2, 1]])
    >>> logits, cache, present, attention = forward(params, cfg, x)
    >>> logits.shape, present[0].shape, attention.shape
    ((2, 4, 5), (1, 2, 2, 4, 4), (1, 2, 2, 4, 4))
    >>> backend = NumpyBackend(params, cfg)
    >>> logits, state = backend([0, 1], None)
    >>> len(logits), state["past"][0].shape
    (5, (1, 1, 2, 2, 4))
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

import numpy as np

from export.model import cross_entropy
from lllm.model.gpt_backend import refill_rule

__all__ = ["GPTConfig", "GPT_PRESETS", "gpt_preset", "init_params", "count_parameters", "forward",
           "loss_and_grads", "NumpyBackend"]


# ---- 1. configuration --------------------------------------------------------------------------

# --8<-- [start:config]
@dataclass(frozen=True)
class GPTConfig:
    vocab_size: int = 96       # characters the model can read and write (data.build_vocab)
    embed: int = 64            # C: the width of the residual stream
    heads: int = 4             # n: attention heads per layer (each D = C / n wide)
    layers: int = 4            # L: transformer blocks
    block: int = 64            # the longest context; also the training window
    refill: int = 48           # past `block`, re-read the last `refill` characters into an empty cache
    batch: int = 32            # B: windows per update
    lr: float = 0.002          # AdamW peak step size (cosine decay to a tenth of it)
    warmup: int = 100          # steps of linear warm-up: attention is unstable in the first steps
    steps: int = 2000          # updates (15 passes over the story's 4,264 windows of 64)
    weight_decay: float = 0.01  # AdamW's decoupled decay, as TinyLLM
    clip: float = 1.0          # global gradient-norm limit
    seed: int = 0              # initial weights and batch order

    def __post_init__(self):
        for name in ("vocab_size", "embed", "heads", "layers", "block", "refill", "batch", "steps"):
            if getattr(self, name) < 1:
                raise ValueError(f"config.{name} must be at least 1, got {getattr(self, name)}")
        if self.embed % self.heads:
            raise ValueError(f"config.embed ({self.embed}) must be a multiple of config.heads ({self.heads})")
        if self.refill > self.block:
            raise ValueError(f"config.refill ({self.refill}) must be at most config.block ({self.block})")

    def to_dict(self) -> dict:
        return asdict(self)


GPT_PRESETS = {"default": GPTConfig()}      # ~217k parameters
# --8<-- [end:config]


def gpt_preset(name: str, **overrides) -> GPTConfig:
    if name not in GPT_PRESETS:
        raise ValueError(f"unknown preset {name!r} (choose from: {', '.join(GPT_PRESETS)})")
    return replace(GPT_PRESETS[name], **overrides)


# ---- 2. parameters -----------------------------------------------------------------------------

def init_params(config: GPTConfig) -> dict[str, np.ndarray]:
    """GPT-2's initialisation: normal(0, 0.02); the two projections back into the residual stream
    scaled by 1/sqrt(2L), so the stream's variance does not grow with depth."""
    rng = np.random.default_rng(config.seed)
    V, C, L = config.vocab_size, config.embed, config.layers

    def normal(*shape, std=0.02):
        return (rng.standard_normal(shape) * std).astype(np.float32)

    def zeros(n):
        return np.zeros(n, np.float32)

    params = {"embed": normal(V, C), "pos": normal(config.block, C)}
    for l in range(L):
        params |= {f"ln1_g{l}": np.ones(C, np.float32), f"ln1_b{l}": zeros(C),
                   f"W_qkv{l}": normal(C, 3 * C), f"b_qkv{l}": zeros(3 * C),
                   f"W_o{l}": normal(C, C, std=0.02 / np.sqrt(2 * L)), f"b_o{l}": zeros(C),
                   f"ln2_g{l}": np.ones(C, np.float32), f"ln2_b{l}": zeros(C),
                   f"W_fc{l}": normal(C, 4 * C), f"b_fc{l}": zeros(4 * C),
                   f"W_pr{l}": normal(4 * C, C, std=0.02 / np.sqrt(2 * L)), f"b_pr{l}": zeros(C)}
    params |= {"lnf_g": np.ones(C, np.float32), "lnf_b": zeros(C), "W_out": normal(C, V), "b_out": zeros(V)}
    return params


def count_parameters(params: dict[str, np.ndarray]) -> int:
    return int(sum(p.size for p in params.values()))


# ---- 3. layernorm and GELU, forward and backward -----------------------------------------------

EPS = 1e-5                                       # layernorm's epsilon (PyTorch's and ONNX's default)
GELU_K = np.float32(np.sqrt(2.0 / np.pi))        # GELU's tanh approximation, as GPT-2


def layernorm(x, g, b):
    """x (..., C) -> (y, cache): each row to mean 0, variance 1, then scaled by g and shifted by b."""
    mu = x.mean(axis=-1, keepdims=True)
    rstd = 1.0 / np.sqrt(x.var(axis=-1, keepdims=True) + EPS)
    xhat = (x - mu) * rstd
    return xhat * g + b, (xhat, rstd, g)


def layernorm_backward(dy, cache):
    """-> (dx, dg, db). dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat))."""
    xhat, rstd, g = cache
    dxhat = dy * g
    dx = rstd * (dxhat - dxhat.mean(axis=-1, keepdims=True)
                 - xhat * (dxhat * xhat).mean(axis=-1, keepdims=True))
    rows = dy.reshape(-1, dy.shape[-1])
    return dx, (rows * xhat.reshape(rows.shape)).sum(axis=0), rows.sum(axis=0)


def gelu(x):
    """0.5 x (1 + tanh(k (x + 0.044715 x^3))) -> (y, the tanh, for backward)."""
    t = np.tanh(GELU_K * (x + 0.044715 * (x * x * x)))   # x*x*x: np.power is 20x slower
    return 0.5 * x * (1.0 + t), t


def gelu_backward(dy, x, t):
    return dy * (0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * GELU_K * (1.0 + 3 * 0.044715 * x * x))


# ---- 4. causal self-attention, forward and backward --------------------------------------------

# --8<-- [start:attention]
def attention_forward(a, W_qkv, b_qkv, W_o, b_o, heads, past=None):
    """a (B, T, C), past (k, v) each (B, n, P, D) or None -> (out (B, T, C), cache, (k, v), att).

    The new keys and values are appended to the past ones, so `present` (B, n, S, D) is what the
    next call gets as `past`. att (B, n, T, S) is every head's attention, each row summing to 1."""
    B, T, C = a.shape
    D = C // heads
    qkv = a @ W_qkv + b_qkv                                        # (B, T, 3C)
    q, k, v = (qkv[..., i * C:(i + 1) * C].reshape(B, T, heads, D).transpose(0, 2, 1, 3)
               for i in range(3))                                  # each (B, n, T, D)
    if past is not None:
        k, v = np.concatenate([past[0], k], axis=2), np.concatenate([past[1], v], axis=2)
    S = k.shape[2]
    P = S - T
    scores = (q @ k.transpose(0, 1, 3, 2)) / np.sqrt(D).astype(a.dtype)    # (B, n, T, S)
    future = np.arange(S)[None, :] > P + np.arange(T)[:, None]             # (T, S): key after query
    scores = np.where(future, -np.inf, scores)
    scores -= scores.max(axis=-1, keepdims=True)
    att = np.exp(scores)
    att /= att.sum(axis=-1, keepdims=True)
    y = (att @ v).transpose(0, 2, 1, 3).reshape(B, T, C)           # heads side by side again
    out = y @ W_o + b_o
    return out, (a, q, k, v, att, y, W_qkv, W_o), (k, v), att
# --8<-- [end:attention]


# --8<-- [start:attention-backward]
def attention_backward(dout, cache):
    """dout (B, T, C) -> (da, dW_qkv, db_qkv, dW_o, db_o), for a call without a past (training).

    Softmax's backward, row by row: dscores = att * (datt - sum(datt * att)). A masked score has
    att = 0, so it gets no gradient, as it should."""
    a, q, k, v, att, y, W_qkv, W_o = cache
    B, T, C = a.shape
    n, D = q.shape[1], q.shape[3]
    dW_o = y.reshape(-1, C).T @ dout.reshape(-1, C)
    db_o = dout.reshape(-1, C).sum(axis=0)
    dy = (dout @ W_o.T).reshape(B, T, n, D).transpose(0, 2, 1, 3)  # (B, n, T, D)
    datt = dy @ v.transpose(0, 1, 3, 2)                            # (B, n, T, S)
    dv = att.transpose(0, 1, 3, 2) @ dy
    dscores = att * (datt - (datt * att).sum(axis=-1, keepdims=True)) / np.sqrt(D).astype(a.dtype)
    dq = dscores @ k
    dk = dscores.transpose(0, 1, 3, 2) @ q
    dqkv = np.concatenate([d.transpose(0, 2, 1, 3).reshape(B, T, C) for d in (dq, dk, dv)], axis=-1)
    dW_qkv = a.reshape(-1, C).T @ dqkv.reshape(-1, 3 * C)
    db_qkv = dqkv.reshape(-1, 3 * C).sum(axis=0)
    return dqkv @ W_qkv.T, dW_qkv, db_qkv, dW_o, db_o
# --8<-- [end:attention-backward]


# ---- 5. the whole model ------------------------------------------------------------------------

def forward(params, config: GPTConfig, x, past=None):
    """x (B, T) int ids; past: per layer (k, v) each (B, n, P, D), or None.

    Returns logits (B, T, V), the cache for `loss_and_grads`, `present` - per layer (k, v) with
    the new positions appended, as one array (L, B, n, S, D) for keys and one for values - and
    the attention of every layer and head, (L, B, n, T, S)."""
    x = np.asarray(x)
    B, T = x.shape
    P = 0 if past is None else past[0].shape[3]
    if P + T > config.block:
        raise ValueError(f"{P + T} positions exceed the model's context of {config.block} characters")
    h = params["embed"][x] + params["pos"][P:P + T]                # (B, T, C)
    caches, keys, values, atts = [], [], [], []
    for l in range(config.layers):
        a, ln1 = layernorm(h, params[f"ln1_g{l}"], params[f"ln1_b{l}"])
        layer_past = None if past is None else (past[0][l], past[1][l])
        att_out, att_cache, (k, v), att = attention_forward(
            a, params[f"W_qkv{l}"], params[f"b_qkv{l}"], params[f"W_o{l}"], params[f"b_o{l}"],
            config.heads, layer_past)
        h = h + att_out
        m, ln2 = layernorm(h, params[f"ln2_g{l}"], params[f"ln2_b{l}"])
        pre = m @ params[f"W_fc{l}"] + params[f"b_fc{l}"]          # (B, T, M)
        act, t = gelu(pre)
        h = h + act @ params[f"W_pr{l}"] + params[f"b_pr{l}"]
        caches.append((ln1, att_cache, ln2, m, pre, t, act))
        keys.append(k), values.append(v), atts.append(att)
    top, lnf = layernorm(h, params["lnf_g"], params["lnf_b"])
    logits = top @ params["W_out"] + params["b_out"]               # (B, T, V)
    return logits, (x, caches, top, lnf), (np.stack(keys), np.stack(values)), np.stack(atts)


def loss_and_grads(params, config: GPTConfig, x, y):
    """One training batch: x, y (B, T) ids -> (mean loss over every position, grads like params)."""
    B, T = x.shape
    C, V = config.embed, config.vocab_size
    logits, (x, caches, top, lnf), _, _ = forward(params, config, x)
    loss, dlogits = cross_entropy(logits.reshape(B * T, V), y.reshape(-1))
    grads = {"W_out": top.reshape(-1, C).T @ dlogits, "b_out": dlogits.sum(axis=0)}
    dh, grads["lnf_g"], grads["lnf_b"] = layernorm_backward((dlogits @ params["W_out"].T).reshape(B, T, C), lnf)
    for l in reversed(range(config.layers)):
        ln1, att_cache, ln2, m, pre, t, act = caches[l]
        grads[f"W_pr{l}"] = act.reshape(-1, 4 * C).T @ dh.reshape(-1, C)    # the MLP's residual branch
        grads[f"b_pr{l}"] = dh.reshape(-1, C).sum(axis=0)
        dpre = gelu_backward(dh @ params[f"W_pr{l}"].T, pre, t)
        grads[f"W_fc{l}"] = m.reshape(-1, C).T @ dpre.reshape(-1, 4 * C)
        grads[f"b_fc{l}"] = dpre.reshape(-1, 4 * C).sum(axis=0)
        dm, grads[f"ln2_g{l}"], grads[f"ln2_b{l}"] = layernorm_backward(dpre @ params[f"W_fc{l}"].T, ln2)
        dh = dh + dm                                                          # residual: both paths
        da, grads[f"W_qkv{l}"], grads[f"b_qkv{l}"], grads[f"W_o{l}"], grads[f"b_o{l}"] = \
            attention_backward(dh, att_cache)
        da, grads[f"ln1_g{l}"], grads[f"ln1_b{l}"] = layernorm_backward(da, ln1)
        dh = dh + da
    grads["pos"] = np.zeros_like(params["pos"])
    grads["pos"][:T] = dh.sum(axis=0)
    grads["embed"] = np.zeros_like(params["embed"])
    np.add.at(grads["embed"], x.reshape(-1), dh.reshape(-1, C))     # each use of a row adds its share
    return loss, grads


# ---- 6. a backend for lllm/model/generate.py, with a key/value cache ---------------------------

# What to feed past the context's end is lllm.model.gpt_backend.refill_rule: one rule for numpy,
# onnxruntime and the page.

class NumpyBackend:
    """`backend(ids, state) -> (logits, state)`; state = {"ids": read so far, "past": (K, V)}."""

    def __init__(self, params, config: GPTConfig):
        self.params, self.config = params, config
        self.vocab_size = config.vocab_size

    def __call__(self, ids, state=None):
        if len(ids) == 0:
            raise ValueError("backend needs at least one new character id")
        history, past = (state["ids"], state["past"]) if state else ([], None)
        cached = 0 if past is None else past[0].shape[3]
        feed, keep = refill_rule(history, list(ids), cached, self.config.block, self.config.refill)
        x = np.asarray(feed, dtype=np.int64)[None, :]
        logits, _, present, _ = forward(self.params, self.config, x, past if keep else None)
        state = {"ids": (history + list(ids))[-self.config.block:], "past": present}
        return logits[0, -1].astype(np.float64).tolist(), state


if __name__ == "__main__":
    for name, cfg in GPT_PRESETS.items():
        print(f"{name:8s} {count_parameters(init_params(cfg)):>7,d} parameters  {cfg}")
