"""export/gpt.py and gpt_train.py: TinyGPT's gradients against finite differences, its key/value
cache against reading everything at once, and training that is bit for bit reproducible."""

import numpy as np
import pytest

from export.data import load_dataset
from export.gpt import GPTConfig, NumpyBackend, count_parameters, forward, gpt_preset, init_params, loss_and_grads
from export.gpt_train import learning_rate, train


def tiny_config(**overrides):
    return GPTConfig(**{"vocab_size": 7, "embed": 8, "heads": 2, "layers": 2, "block": 5, "refill": 3,
                        "batch": 3, "seed": 3, **overrides})


def test_the_default_preset_has_the_documented_size():
    cfg = gpt_preset("default", vocab_size=96)
    assert count_parameters(init_params(cfg)) == 216_544
    assert 150_000 <= count_parameters(init_params(cfg)) <= 400_000


def test_every_gradient_matches_centred_finite_differences():
    cfg = tiny_config()
    rng = np.random.default_rng(0)
    # away from the initial weights (zero biases, unit gains), where some terms would vanish
    params = {k: v.astype(np.float64) + 0.1 * rng.standard_normal(v.shape) for k, v in init_params(cfg).items()}
    x = rng.integers(0, cfg.vocab_size, size=(cfg.batch, cfg.block))
    y = rng.integers(0, cfg.vocab_size, size=(cfg.batch, cfg.block))
    _, grads = loss_and_grads(params, cfg, x, y)
    assert sorted(grads) == sorted(params)
    eps = 1e-6
    for name, p in params.items():
        numeric = np.zeros_like(p)
        for idx in np.ndindex(p.shape):
            saved = p[idx]
            p[idx] = saved + eps
            plus, _ = loss_and_grads(params, cfg, x, y)
            p[idx] = saved - eps
            minus, _ = loss_and_grads(params, cfg, x, y)
            p[idx] = saved
            numeric[idx] = (plus - minus) / (2 * eps)
        err = np.max(np.abs(numeric - grads[name])) / max(1e-8, np.max(np.abs(numeric)))
        assert err < 1e-6, f"{name}: relative error {err:.2e}\n numeric {numeric.ravel()[:5]}\n analytic {grads[name].ravel()[:5]}"


def test_attention_is_causal_and_sums_to_one():
    cfg = tiny_config()
    x = np.array([[1, 2, 3, 4, 5]])
    _, _, _, att = forward(init_params(cfg), cfg, x)
    assert att.shape == (cfg.layers, 1, cfg.heads, 5, 5)
    assert np.allclose(att.sum(axis=-1), 1.0, atol=1e-6)
    assert np.all(att[..., np.triu_indices(5, k=1)[0], np.triu_indices(5, k=1)[1]] == 0.0)
    # a later character cannot change what an earlier position computes
    changed = x.copy()
    changed[0, 4] = 0
    a, _, _, _ = forward(init_params(cfg), cfg, x)
    b, _, _, _ = forward(init_params(cfg), cfg, changed)
    assert np.array_equal(a[0, :4], b[0, :4]) and not np.array_equal(a[0, 4], b[0, 4])


def test_the_cache_gives_what_reading_everything_gives():
    cfg = tiny_config(block=8, refill=6)
    params = init_params(cfg)
    ids = [1, 2, 3, 4, 5, 6, 0]
    whole, _, _, whole_att = forward(params, cfg, np.array([ids]))
    _, _, past, _ = forward(params, cfg, np.array([ids[:4]]))
    rest, _, present, att = forward(params, cfg, np.array([ids[4:]]), past)
    assert np.abs(rest[0] - whole[0, 4:]).max() < 1e-6
    assert np.abs(att - whole_att[:, :, :, 4:, :]).max() < 1e-6
    assert present[0].shape == (cfg.layers, 1, cfg.heads, 7, cfg.embed // cfg.heads)


def test_the_backend_refills_its_cache_past_the_block():
    cfg = tiny_config(block=5, refill=3)
    backend = NumpyBackend(init_params(cfg), cfg)
    logits, state = backend([1, 2, 3, 4], None)
    logits, state = backend([5], state)
    assert state["past"][0].shape[3] == 5
    logits, state = backend([6], state)                       # full: re-read 4, 5, 6 from empty
    assert state["past"][0].shape[3] == 3 and state["ids"] == [2, 3, 4, 5, 6]
    fresh, _ = backend([4, 5, 6], None)
    assert logits == fresh
    with pytest.raises(ValueError, match="exceed the model's context of 5"):
        forward(backend.params, cfg, np.zeros((1, 6), np.int64))


def test_the_schedule_warms_up_then_decays_to_a_tenth():
    cfg = tiny_config(lr=0.01, warmup=10, steps=110)
    assert learning_rate(cfg, 5) == pytest.approx(0.005)
    assert learning_rate(cfg, 10) == pytest.approx(0.01)
    assert learning_rate(cfg, 110) == pytest.approx(0.001)


def test_two_trainings_give_identical_weights_and_a_third_seed_does_not():
    tok, x, y = load_dataset(window=16)
    cfg = GPTConfig(vocab_size=len(tok), embed=16, heads=2, layers=2, block=16, refill=12, batch=8,
                    steps=12, warmup=4, seed=5)
    first, history = train(cfg, x[:400], y[:400], progress=False)
    second, _ = train(cfg, x[:400], y[:400], progress=False)
    other, _ = train(GPTConfig(**{**cfg.to_dict(), "seed": 6}), x[:400], y[:400], progress=False)
    assert all(np.array_equal(first[k], second[k]) for k in first)
    assert not np.array_equal(first["W_qkv0"], other["W_qkv0"])
    assert history["step_loss"][-1] < history["step_loss"][0]
