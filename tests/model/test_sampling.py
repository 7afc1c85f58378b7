"""The PRNG and the sampler (lllm/model/sampling.py). JavaScript mirrors both: these values are the contract."""

import math

import pytest

from lllm.model.sampling import Mulberry32, SamplingConfig, sample, softmax, top_predictions

# Mulberry32 test vectors, produced by the canonical JavaScript implementation
# (Math.imul / >>> 0) under Node 20 — the browser runtime must print the same.
VECTORS = {
    0: [1144304738, 1416247, 958946056, 627933444],
    1: [2693262067, 11749833, 2265367787, 4213581821],
    42: [2581720956, 1925393290, 3661312704, 2876485805],
    4294967295: [3850105811, 813802916, 3073704848, 4054706436],
}


@pytest.mark.parametrize("seed", sorted(VECTORS))
def test_prng_vectors(seed):
    rng = Mulberry32(seed)
    assert [rng.next_u32() for _ in range(4)] == VECTORS[seed]


def test_uniform_is_the_u32_over_two_to_the_32():
    assert Mulberry32(1).uniform() == 2693262067 / 2**32
    rng = Mulberry32(123)
    draws = [rng.uniform() for _ in range(2000)]
    assert all(0 <= u < 1 for u in draws)
    assert 0.45 < sum(draws) / len(draws) < 0.55


def test_seed_is_taken_mod_2_32_and_must_be_int():
    assert Mulberry32(2**32 + 1).next_u32() == VECTORS[1][0]
    with pytest.raises(TypeError):
        Mulberry32(1.5)


def test_greedy_takes_the_first_largest_and_draws_nothing():
    rng = Mulberry32(5)
    assert sample([1.0, 3.0, 3.0, 2.0], temperature=0, rng=rng) == 1
    assert rng.state == 5            # no draw consumed


def test_top_k_one_is_greedy_whatever_the_draw():
    for seed in range(20):
        assert sample([0.5, 2.0, 1.0], temperature=1.0, top_k=1, rng=Mulberry32(seed)) == 1


def test_tiny_top_p_is_greedy():
    for seed in range(20):
        assert sample([0.1, 0.2, 5.0, 0.3], temperature=1.0, top_p=0.01, rng=Mulberry32(seed)) == 2


def test_sampler_follows_the_written_order_of_operations():
    # logits -> candidates [1, 2, 0]; p = exp((z - 2)/1) = [1, e^-1, e^-1.5]
    logits = [0.5, 2.0, 1.0]
    p = [1.0, math.exp(-1.0), math.exp(-1.5)]
    total = p[0] + p[1] + p[2]
    u = Mulberry32(9).uniform()
    target = u * total
    expected = 1 if target < p[0] else 2 if target < p[0] + p[1] else 0
    assert sample(logits, temperature=1.0, rng=Mulberry32(9)) == expected


def test_sampled_frequencies_match_the_softmax():
    logits = [0.0, 1.0, 2.0]
    rng = Mulberry32(2024)
    counts = [0, 0, 0]
    for _ in range(6000):
        counts[sample(logits, temperature=1.0, rng=rng)] += 1
    for c, p in zip(counts, softmax(logits)):
        assert abs(c / 6000 - p) < 0.02


def test_temperature_sharpens_and_flattens():
    cold, hot = softmax([0.0, 1.0], 0.25), softmax([0.0, 1.0], 4.0)
    assert cold[1] > 0.98 and 0.5 < hot[1] < 0.57


def test_top_predictions_sorted_with_probabilities():
    top = top_predictions([0.0, 2.0, 1.0, 2.0], k=3)
    assert [i for i, _ in top] == [1, 3, 2]
    assert abs(top[0][1] - top[1][1]) < 1e-12


@pytest.mark.parametrize("kwargs, message", [
    ({"temperature": -0.1}, "temperature"),
    ({"temperature": float("nan")}, "temperature"),
    ({"top_k": -1}, "top-k"),
    ({"top_p": 0.0}, "top-p"),
    ({"top_p": 1.5}, "top-p"),
])
def test_bad_settings_name_themselves(kwargs, message):
    with pytest.raises(ValueError, match=message):
        sample([1.0, 2.0], rng=Mulberry32(0), **kwargs)
    with pytest.raises(ValueError, match=message):
        SamplingConfig(**kwargs)


def test_sampling_needs_an_rng_and_logits():
    with pytest.raises(ValueError, match="rng"):
        sample([1.0, 2.0], temperature=1.0)
    with pytest.raises(ValueError, match="empty"):
        sample([], temperature=0)
