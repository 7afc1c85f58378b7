"""Layer 1 · TinyLLM in numpy: Embedding -> LSTM layers -> Linear, forward and backward (BPTT).

Consumes: nothing from the package; it serves layer 1 (`lllm.model.generate` runs it as a backend).

Contract: `init_params(config) -> params` (a dict of float32 arrays), `forward(params, config, x,
state) -> (logits, cache, state)`, `loss_and_grads(params, config, x, y) -> (loss, grads)`, and
`NumpyBackend(params, config)`, a backend for `lllm/model/generate.py`: `backend(ids, state) ->
(logits of the last position as a list of floats, state)`.

Read `data.py` first. Shape legend: B batch, T time steps (characters), V vocabulary, E embedding
width, H hidden units, L layers. Parameters (all float32):

    embed        (V, E)       one row per character
    W_x{l}       (E_in, 4H)   input -> gates of layer l (E_in = E for layer 0, else H)
    W_h{l}       (H, 4H)      previous hidden state -> gates
    b{l}         (4H,)        gate bias (the forget gate's starts at config.forget_bias, 1 by default)
    W_out, b_out (H, V), (V,) hidden state -> next-character logits

Gate order along the 4H axis is ours: i, f, o, g (input, forget, output gates, then the candidate
cell g), so one sigmoid covers the first 3H columns. ONNX wants i, o, f, c and PyTorch i, f, g, o;
`onnx_export.py` reorders. One LSTM step:

    z = x_t @ W_x + h_{t-1} @ W_h + b            (B, 4H)
    i, f, o = sigmoid(z[:, :3H]);  g = tanh(z[:, 3H:])
    c_t = f * c_{t-1} + i * g;     h_t = o * tanh(c_t)

Why the loss covers every position by default: a 30-character window holds 30 next-character
predictions, and scoring all of them gives thirty times the training signal per window and
teaches the model to continue from a context of any length, including a one-word prompt like
"Once". Measured on our story (default preset, 25 epochs), the loss on the last character of
each window was 0.018 when every position was scored and 0.285 when only the last one was (the
seed's objective, `loss="last"`), and only the first model continued "Once" with "upon a time".

Usage:

    >>> cfg = Config(vocab_size=5, embed=3, hidden=4, layers=2, batch=2, window=6)
    >>> params = init_params(cfg)
    >>> count_parameters(params)
    312
    >>> x = np.array([[0, 1, 2, 3, 4, 0], [4, 3, 2, 1, 0, 4]])
    >>> logits, cache, (h, c) = forward(params, cfg, x)
    >>> logits.shape, h.shape
    ((2, 6, 5), (2, 2, 4))
    >>> backend = NumpyBackend(params, cfg)
    >>> logits, state = backend([0, 1], None)
    >>> len(logits) == backend.vocab_size == 5
    True
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

import numpy as np

__all__ = ["Config", "PRESETS", "preset", "init_params", "count_parameters", "forward",
           "loss_and_grads", "NumpyBackend"]


# ---- configuration -----------------------------------------------------------------------------

# --8<-- [start:config]
@dataclass(frozen=True)
class Config:
    vocab_size: int = 96       # characters the model can read and write (data.build_vocab)
    embed: int = 32            # E: width of a character's learned vector
    hidden: int = 168          # H: LSTM units; sets most of the parameter count
    layers: int = 1            # L: stacked LSTM layers
    window: int = 30           # T: characters per training example (seed: 30)
    batch: int = 64            # B: windows per update
    lr: float = 0.005          # AdamW step size
    epochs: int = 25           # passes over every window of the story
    weight_decay: float = 0.01  # AdamW's decoupled decay (PyTorch's default)
    clip: float = 1.0          # global gradient-norm limit; keeps BPTT from exploding
    forget_bias: float = 1.0   # initial forget-gate bias: 1 keeps memory from the start
    loss: str = "all"          # "all": every position is a target; "last": only the last one
    seed: int = 0              # initial weights and batch order

    def __post_init__(self):
        if self.loss not in ("all", "last"):
            raise ValueError(f"loss must be 'all' or 'last', got {self.loss!r}")
        for name in ("vocab_size", "embed", "hidden", "layers", "window", "batch", "epochs"):
            if getattr(self, name) < 1:
                raise ValueError(f"config.{name} must be at least 1, got {getattr(self, name)}")

    def to_dict(self) -> dict:
        return asdict(self)


PRESETS = {
    "default": Config(),                                     # ~154k parameters, loss everywhere
    "seed": Config(embed=64, hidden=128, layers=2, batch=48,  # the seed's TinyLLM, as it trained
                   lr=0.0035, epochs=25, loss="last",         # (PyTorch starts forget biases
                   forget_bias=0.0),                          # near 0; 1 diverged at epoch 24)
}
# --8<-- [end:config]


def preset(name: str, **overrides) -> Config:
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r} (choose from: {', '.join(PRESETS)})")
    return replace(PRESETS[name], **overrides)


# ---- parameters --------------------------------------------------------------------------------

def init_params(config: Config) -> dict[str, np.ndarray]:
    """PyTorch-style initialisation from `config.seed`, forget-gate bias `config.forget_bias`."""
    rng = np.random.default_rng(config.seed)
    V, E, H = config.vocab_size, config.embed, config.hidden
    bound = 1.0 / np.sqrt(H)

    def uniform(*shape):
        return rng.uniform(-bound, bound, size=shape).astype(np.float32)

    params = {"embed": rng.standard_normal((V, E)).astype(np.float32)}
    for l in range(config.layers):
        params[f"W_x{l}"] = uniform(E if l == 0 else H, 4 * H)
        params[f"W_h{l}"] = uniform(H, 4 * H)
        params[f"b{l}"] = np.zeros(4 * H, np.float32)
        params[f"b{l}"][H:2 * H] = config.forget_bias        # forget gate
    params["W_out"] = uniform(H, V)
    params["b_out"] = uniform(V)
    return params


def count_parameters(params: dict[str, np.ndarray]) -> int:
    return int(sum(p.size for p in params.values()))


# ---- one LSTM layer, forward -------------------------------------------------------------------

# Inside a layer, arrays are time-major - (T, B, ...) - so each step's slice is one contiguous
# block, and the loops write into buffers allocated once (`out=`) rather than into fresh
# temporaries. Most of a training step is matrix products; everything else is kept out of the way.

# --8<-- [start:lstm-forward]
def lstm_forward(X, W_x, W_h, b, h0, c0):
    """X (T, B, E_in), h0 and c0 (B, H) -> every hidden state (T, B, H) and what backward needs."""
    T, B, _ = X.shape
    H = W_h.shape[0]
    # sigmoid(z) = 0.5 + 0.5 * tanh(z / 2): halve the i, f, o columns once, and then a single
    # tanh per step activates all four gates.
    half = np.concatenate([np.full(3 * H, 0.5), np.ones(H)]).astype(X.dtype)
    Zx = (X.reshape(T * B, -1) @ (W_x * half)).reshape(T, B, 4 * H)  # the input's share
    Zx += b * half
    W_h_half = W_h * half
    gates = np.empty((T, B, 4 * H), X.dtype)   # activated: i, f, o (sigmoid), g (tanh)
    hs = np.empty((T + 1, B, H), X.dtype)      # hs[t] is h_{t-1}: hs[0] = h0
    cs = np.empty((T + 1, B, H), X.dtype)
    tanh_cs = np.empty((T, B, H), X.dtype)
    ig = np.empty((B, H), X.dtype)
    hs[0], cs[0] = h0, c0
    for t in range(T):
        a = gates[t]                                        # (B, 4H)
        np.matmul(hs[t], W_h_half, out=a)
        a += Zx[t]
        np.tanh(a, out=a)
        a[:, :3 * H] *= 0.5
        a[:, :3 * H] += 0.5                                 # i, f, o are now sigmoids
        i, f, o, g = a[:, :H], a[:, H:2 * H], a[:, 2 * H:3 * H], a[:, 3 * H:]
        np.multiply(f, cs[t], out=cs[t + 1])                # c_t = f * c_{t-1} + i * g
        np.multiply(i, g, out=ig)
        cs[t + 1] += ig
        np.tanh(cs[t + 1], out=tanh_cs[t])                  # h_t = o * tanh(c_t)
        np.multiply(o, tanh_cs[t], out=hs[t + 1])
    cache = (X, W_x, W_h, gates, hs, cs, tanh_cs)
    return hs[1:], cache
# --8<-- [end:lstm-forward]


# ---- one LSTM layer, backward through time -----------------------------------------------------

# --8<-- [start:lstm-backward]
def lstm_backward(dHs, cache):
    """dHs (T, B, H): loss gradient w.r.t. each output h_t -> (dX, dW_x, dW_h, db).

    Only dh and dc have to travel backwards step by step. Everything else a gate's gradient
    needs is known from the forward pass, so it is computed for all steps at once first:

        dz_i = dc * g * i(1-i)    dz_f = dc * c_{t-1} * f(1-f)    dz_g = dc * i * (1-g^2)
        dz_o = dh * tanh(c_t) * o(1-o)                            dc += dh * o * (1-tanh(c_t)^2)

    The weight gradients are then three big matrix products over every step's dz.
    """
    X, W_x, W_h, gates, hs, cs, tanh_cs = cache
    T, B, H = dHs.shape
    i, f, o, g = (gates[:, :, k * H:(k + 1) * H] for k in range(4))
    sig = gates[:, :, :3 * H]
    slope = sig * (1 - sig)                                     # sigmoid' for i, f, o at once
    from_dc = np.empty((T, B, 3, H), X.dtype)                   # multiplies dc, per gate i, f, g
    np.multiply(g, slope[:, :, :H], out=from_dc[:, :, 0])
    np.multiply(cs[:-1], slope[:, :, H:2 * H], out=from_dc[:, :, 1])
    np.multiply(i, 1 - g * g, out=from_dc[:, :, 2])
    o_from_dh = tanh_cs * slope[:, :, 2 * H:]                   # dz_o = dh * this
    dc_from_dh = o * (1 - tanh_cs * tanh_cs)                    # dc  += dh * this
    W_hT = np.ascontiguousarray(W_h.T)
    dZ = np.empty_like(gates)                                   # (T, B, 4H)
    dZ4 = dZ.reshape(T, B, 4, H)
    dh = np.zeros((B, H), X.dtype)
    dc = np.zeros((B, H), X.dtype)
    tmp = np.empty((B, H), X.dtype)
    for t in reversed(range(T)):
        dh += dHs[t]                                            # from above, plus from step t+1
        np.multiply(dh, dc_from_dh[t], out=tmp)
        dc += tmp
        np.multiply(from_dc[t, :, :2], dc[:, None, :], out=dZ4[t, :, :2])   # i, f
        np.multiply(dh, o_from_dh[t], out=dZ4[t, :, 2])                     # o
        np.multiply(from_dc[t, :, 2], dc, out=dZ4[t, :, 3])                 # g
        dc *= f[t]                                              # to c_{t-1}
        np.matmul(dZ[t], W_hT, out=dh)                          # to h_{t-1}
    dZ2 = dZ.reshape(T * B, 4 * H)
    dW_x = X.reshape(T * B, -1).T @ dZ2
    dW_h = hs[:-1].reshape(T * B, H).T @ dZ2
    db = dZ2.sum(axis=0)
    dX = (dZ2 @ W_x.T).reshape(T, B, -1)
    return dX, dW_x, dW_h, db
# --8<-- [end:lstm-backward]


# ---- the whole model ---------------------------------------------------------------------------

def forward(params, config: Config, x, state=None, last_only: bool = False):
    """x (B, T) int ids; state (h, c) each (L, B, H) or None for zeros.

    Returns logits (B, T, V) - or (B, V) for the last position if `last_only` - the cache for
    `loss_and_grads`, and the final state (h, c) to carry into the next call. The cache is
    (x, one cache per layer, top) where top, the last layer's outputs, is time-major: (T, B, H),
    or (B, H) if `last_only`.
    """
    x = np.asarray(x)
    B = x.shape[0]
    L, H = config.layers, config.hidden
    dtype = params["embed"].dtype
    if state is None:
        state = (np.zeros((L, B, H), dtype), np.zeros((L, B, H), dtype))
    h0, c0 = state
    out = params["embed"][x.T]                                   # (T, B, E)
    caches, hn, cn = [], [], []
    for l in range(L):
        out, cache = lstm_forward(out, params[f"W_x{l}"], params[f"W_h{l}"], params[f"b{l}"],
                                  h0[l], c0[l])                  # (T, B, H)
        caches.append(cache)
        hn.append(out[-1])
        cn.append(cache[5][-1])
    top = out[-1] if last_only else out                          # (B, H) or (T, B, H)
    logits = top @ params["W_out"] + params["b_out"]             # (B, V) or (T, B, V)
    if not last_only:
        logits = logits.transpose(1, 0, 2)                       # (B, T, V), a view
    return logits, (x, caches, top), (np.stack(hn), np.stack(cn))


# --8<-- [start:loss]
def cross_entropy(logits, y):
    """Mean -log p(y) over rows. logits (N, V), y (N,) -> (loss, dlogits (N, V))."""
    z = logits - logits.max(axis=1, keepdims=True)               # stable: the max logit is 0
    exp_z = np.exp(z)
    total = exp_z.sum(axis=1, keepdims=True)
    rows = np.arange(len(y))
    loss = float(np.mean(np.log(total[:, 0]) - z[rows, y]))
    dlogits = exp_z / total                                      # softmax
    dlogits[rows, y] -= 1.0                                      # minus the one-hot target
    return loss, dlogits / len(y)
# --8<-- [end:loss]


def loss_and_grads(params, config: Config, x, y):
    """One training batch: x, y (B, T) ids -> (mean loss, grads with the same keys as params)."""
    B, T = x.shape
    H, V = config.hidden, config.vocab_size
    last = config.loss == "last"
    logits, (x, caches, top), _ = forward(params, config, x, last_only=last)
    if last:
        loss, dlogits = cross_entropy(logits, y[:, -1])           # (B, V)
    else:                                                         # time-major rows: t, then b
        loss, dlogits = cross_entropy(logits.transpose(1, 0, 2).reshape(T * B, V), y.T.reshape(-1))
    grads = {"W_out": top.reshape(-1, H).T @ dlogits, "b_out": dlogits.sum(axis=0)}
    dtop = dlogits @ params["W_out"].T
    if last:
        dout = np.zeros((T, B, H), dtop.dtype)
        dout[-1] = dtop
    else:
        dout = dtop.reshape(T, B, H)
    for l in reversed(range(config.layers)):
        dout, grads[f"W_x{l}"], grads[f"W_h{l}"], grads[f"b{l}"] = lstm_backward(dout, caches[l])
    one_hot = np.zeros((T * B, V), dout.dtype)                   # embedding rows receive the
    one_hot[np.arange(T * B), x.T.reshape(-1)] = 1.0             # gradient of each use, summed
    grads["embed"] = one_hot.T @ dout.reshape(T * B, -1)
    return loss, grads


# ---- a backend for lllm/model/generate.py ------------------------------------------------------------

class NumpyBackend:
    """`backend(ids, state) -> (logits, state)`: feed new characters, carry (h, c) between calls."""

    def __init__(self, params, config: Config):
        self.params, self.config = params, config
        self.vocab_size = config.vocab_size

    def __call__(self, ids, state=None):
        if len(ids) == 0:
            raise ValueError("backend needs at least one new character id")
        x = np.asarray(ids, dtype=np.int64)[None, :]                # (1, T)
        logits, _, state = forward(self.params, self.config, x, state, last_only=True)
        return logits[0].astype(np.float64).tolist(), state


if __name__ == "__main__":
    for name, cfg in PRESETS.items():
        print(f"{name:8s} {count_parameters(init_params(cfg)):>7,d} parameters  {cfg}")
