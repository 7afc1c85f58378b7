"""export/model.py: the numpy LSTM's shapes, its gradients against finite differences, its backend."""


import numpy as np
import pytest

from export.model import Config, NumpyBackend, count_parameters, forward, init_params, loss_and_grads, preset


def tiny_config(loss="all", layers=2):
    return Config(vocab_size=7, embed=3, hidden=4, layers=layers, window=5, batch=3, loss=loss, seed=3)


def float64_params(config):
    return {k: v.astype(np.float64) for k, v in init_params(config).items()}


def test_presets_have_the_documented_sizes():
    assert count_parameters(init_params(preset("default"))) == 154_368
    seed = preset("seed")
    assert (seed.layers, seed.embed, seed.hidden, seed.batch, seed.lr, seed.epochs, seed.loss) == \
        (2, 64, 128, 48, 0.0035, 25, "last")


def test_params_are_float32_with_forget_bias_one():
    params = init_params(tiny_config())
    assert {p.dtype for p in params.values()} == {np.dtype(np.float32)}
    assert params["b0"].tolist() == [0.0] * 4 + [1.0] * 4 + [0.0] * 8


@pytest.mark.parametrize("loss", ["all", "last"])
def test_every_gradient_matches_centred_finite_differences(loss):
    cfg = tiny_config(loss)
    params = float64_params(cfg)
    rng = np.random.default_rng(0)
    x = rng.integers(0, cfg.vocab_size, size=(cfg.batch, cfg.window))
    y = rng.integers(0, cfg.vocab_size, size=(cfg.batch, cfg.window))
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


def test_carried_state_equals_one_long_call():
    cfg = tiny_config(layers=2)
    params = init_params(cfg)
    ids = [1, 2, 3, 4, 5, 6, 0, 1]
    backend = NumpyBackend(params, cfg)
    whole, _ = backend(ids, None)
    state = None
    for i in ids:
        step, state = backend([i], state)
    assert np.max(np.abs(np.array(whole) - np.array(step))) < 1e-5


def test_last_only_forward_matches_the_last_position():
    cfg = tiny_config()
    params = init_params(cfg)
    x = np.array([[1, 2, 3], [4, 5, 6]])
    full, _, _ = forward(params, cfg, x)
    last, _, _ = forward(params, cfg, x, last_only=True)
    assert last.shape == (2, 7)
    assert np.array_equal(full[:, -1], last)


def test_bad_config_is_a_clear_error():
    with pytest.raises(ValueError, match="loss must be 'all' or 'last'"):
        Config(loss="first")
    with pytest.raises(ValueError, match="unknown preset 'huge'"):
        preset("huge")
