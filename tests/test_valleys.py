"""Valley shares and crossings (bmlib/sampling/valleys.py) against direct counts and exact enumeration.

A direct loop written here (one sample at a time, the way one would count by
hand) is the reference for the vectorised count; independent draws from the
exact Boltzmann-Gibbs distribution give the expected share and number of
crossings in closed form.
"""
import numpy as np
import pytest

import bmlib as bm


def _count_by_hand(samples, ground):
    """The side of each sample and the crossings, one sample at a time."""
    s = 2 * np.asarray(samples) - 1 if set(np.unique(samples)) <= {0, 1} else np.asarray(samples)
    g = 2 * np.asarray(ground) - 1 if set(np.unique(ground)) <= {0, 1} else np.asarray(ground)
    sides, crossings, last = [], [], 0
    for k, state in enumerate(s, start=1):
        overlap = int(state @ g)
        side = (overlap > 0) - (overlap < 0)
        sides.append(side)
        if side != 0:
            if last != 0 and side != last:
                crossings.append(k)
            last = side
    return np.array(sides), sum(x > 0 for x in sides) / len(sides), np.array(crossings, dtype=int)


def test_a_hand_made_chain_with_ties():
    ground = [1, 1, 1, 1]
    chain = [[1, 1, 1, 1], [1, 1, -1, -1], [-1, -1, -1, 1], [1, 1, -1, -1], [-1, -1, -1, 1], [1, 1, 1, -1]]
    result = bm.valley_crossings(chain, ground)
    np.testing.assert_array_equal(result.valleys, [1, 0, -1, 0, -1, 1])
    assert result.share == pytest.approx(2 / 6)
    # Through a tie and back to the same valley is no crossing (samples 3 -> 5).
    np.testing.assert_array_equal(result.crossings, [3, 6])


@pytest.mark.parametrize("n", [5, 6])
@pytest.mark.parametrize("units", ["spins", "bits"])
def test_random_chains_agree_with_a_count_by_hand(n, units):
    rng = np.random.default_rng(7)
    for _ in range(20):
        chain = rng.choice([-1, 1], size=(int(rng.integers(1, 40)), n))
        ground = rng.choice([-1, 1], size=n)
        if units == "bits":
            chain, ground = (chain + 1) // 2, (ground + 1) // 2
        result = bm.valley_crossings(chain, ground)
        valleys, share, crossings = _count_by_hand(chain, ground)
        np.testing.assert_array_equal(result.valleys, valleys)
        assert result.share == pytest.approx(share, abs=1e-15)
        np.testing.assert_array_equal(result.crossings, crossings)


def test_independent_draws_match_the_exact_share_and_crossing_rate():
    # Seed 3, 20 000 independent draws of an 8-unit spin glass at T = 0.8; 5-sigma tolerances.
    n, T, draws = 8, 0.8, 20_000
    W = bm.sk_couplings(n, rng=1)
    p = bm.boltzmann_distribution(W, T=T)
    S = bm.all_states(n)
    ground = S[np.argmax(p)]
    overlap = S @ ground
    p_in, p_out = p[overlap > 0].sum(), p[overlap < 0].sum()
    chain = S[np.random.default_rng(3).choice(2**n, size=draws, p=p)]
    result = bm.valley_crossings(chain, ground)
    assert abs(result.share - p_in) < 5 * np.sqrt(p_in * (1 - p_in) / draws)
    # Among decided samples each neighbouring pair differs with probability 2 q (1 - q).
    decided = int(np.count_nonzero(result.valleys))
    q = p_in / (p_in + p_out)
    expected = (decided - 1) * 2 * q * (1 - q)
    assert abs(result.crossings.size - expected) < 5 * np.sqrt(expected)


def test_the_chapter_single_chain_crosses_rarely_and_tempering_often():
    W = bm.sk_couplings(12, rng=3)
    p = bm.boltzmann_distribution(W, T=0.3)
    ground = bm.all_states(12)[np.argmax(p)]
    one = bm.sample(W, T=0.3, n_samples=2000, burn_in=0, initial=-ground, rng=2)
    pt = bm.parallel_tempering(W, temperatures=np.geomspace(0.3, 2.0, 8), n_samples=2000, burn_in=0,
                               initial=-ground, rng=2)
    assert bm.valley_crossings(one.samples[:, 0], ground).crossings.size < 10
    assert bm.valley_crossings(pt.samples[:, 0], ground).crossings.size > 100


def test_bad_input_is_named():
    with pytest.raises(ValueError, match=r"samples must be the successive states of one chain.*\(2, 3, 3\)"):
        bm.valley_crossings(np.ones((2, 3, 3)), [1, 1, 1])
    with pytest.raises(ValueError, match=r"ground must be one state.*\(1, 3\)"):
        bm.valley_crossings(np.ones((2, 3)), [[1, 1, 1]])
    with pytest.raises(ValueError, match=r"samples and ground must have the same number of units.*\(2, 4\).*\(3,\)"):
        bm.valley_crossings(np.ones((2, 4)), [1, 1, 1])
    with pytest.raises(ValueError, match="ground must hold spins"):
        bm.valley_crossings(np.ones((2, 3)), [1, 2, 1])
    with pytest.raises(TypeError, match="samples must be a numeric array"):
        bm.valley_crossings("abc", [1, 1, 1])
