"""export/train.py and export/plot.py: AdamW, clipping, the loop's loss falls, bit-identical reruns."""

import hashlib

import numpy as np

import export.plot as plot
from export.data import load_dataset
from export.model import Config
from export.train import AdamW, clip_global_norm, keep_freed_memory, train


def tiny(seed=0, epochs=1, loss="all"):
    return Config(vocab_size=96, embed=8, hidden=16, window=10, batch=16, lr=0.01, epochs=epochs,
                  loss=loss, seed=seed)


def weights_hash(params):
    digest = hashlib.sha256()
    for name in sorted(params):
        digest.update(name.encode() + params[name].tobytes())
    return digest.hexdigest()


def test_clip_scales_all_gradients_together():
    grads = {"a": np.array([3.0, 0.0]), "b": np.array([[4.0]])}
    norm = clip_global_norm(grads, 1.0)
    assert norm == 5.0
    assert np.allclose(grads["a"], [0.6, 0.0]) and np.allclose(grads["b"], [[0.8]])
    small = {"a": np.array([0.3, 0.4])}
    clip_global_norm(small, 1.0)
    assert small["a"].tolist() == [0.3, 0.4]


def test_adamw_first_step_moves_each_weight_by_about_lr():
    params = {"w": np.array([1.0, -2.0], np.float32)}
    opt = AdamW(params, lr=0.1, weight_decay=0.0)
    opt.step(params, {"w": np.array([0.5, -7.0], np.float32)})
    assert np.allclose(params["w"], [0.9, -1.9], atol=1e-6)
    assert params["w"].dtype == np.float32


def test_adamw_decays_weights_even_without_gradient():
    params = {"w": np.array([2.0])}
    AdamW(params, lr=0.1, weight_decay=0.5).step(params, {"w": np.array([0.0])})
    assert np.allclose(params["w"], [2.0 * (1 - 0.1 * 0.5)])


def test_loss_falls_within_a_few_steps():
    tok, x, y = load_dataset(window=10)
    for loss in ("all", "last"):
        _, history = train(tiny(loss=loss), x[:160], y[:160], progress=False)   # 10 steps
        first, last = history["batch_loss"][0], history["batch_loss"][-1]
        assert first > 4.0 and last < first - 0.5, (loss, history["batch_loss"])


def test_same_seed_gives_bit_identical_weights_and_another_seed_does_not():
    tok, x, y = load_dataset(window=10)
    runs = [train(tiny(seed=s, epochs=2), x[:96], y[:96], progress=False)[0] for s in (5, 5, 6)]
    hashes = [weights_hash(p) for p in runs]
    assert hashes[0] == hashes[1]
    assert hashes[0] != hashes[2]


def test_progress_line_shows_epoch_loss_and_time_left(capsys):
    tok, x, y = load_dataset(window=10)
    train(tiny(epochs=2), x[:32], y[:32])
    lines = capsys.readouterr().err.splitlines()
    assert [line.split()[:2] for line in lines] == [["epoch", "1/2"], ["epoch", "2/2"]]
    assert "loss" in lines[0] and lines[0].endswith("s left")


def test_loss_svg_is_a_picture_with_one_dot_per_epoch():
    svg = plot.loss_svg({"loss": [3.1, 1.2], "batch_loss": [4.5, 2.0, 1.5, 1.0]}, title="a < b")
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"')
    assert svg.count("<circle") == 2 and "<title>a &lt; b</title>" in svg
    assert "final epoch mean 1.2000" in svg


def test_glibc_is_asked_to_keep_freed_memory_on_linux():
    import sys
    assert keep_freed_memory() is sys.platform.startswith("linux")

