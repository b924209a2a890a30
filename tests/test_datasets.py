"""The data sets, checked against brute-force definitions of each family of patterns."""
import itertools

import numpy as np
import pytest

import bmlib as bm


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_bars_and_stripes_are_exactly_the_images_with_uniform_rows_or_columns(n):
    X = bm.bars_and_stripes(n, units="bits")
    assert X.shape == (2 ** (n + 1) - 2, n * n) and X.dtype == np.int8
    assert len({tuple(x) for x in X}) == len(X)  # every image once
    # Brute force over all 2**(n*n) images.
    expected = set()
    for pixels in itertools.product((0, 1), repeat=n * n):
        img = np.array(pixels).reshape(n, n)
        rows_uniform = all(len(set(row)) == 1 for row in img)
        cols_uniform = all(len(set(col)) == 1 for col in img.T)
        if rows_uniform or cols_uniform:
            expected.add(pixels)
    assert {tuple(x) for x in X} == expected


def test_bars_and_stripes_order_and_units():
    X = bm.bars_and_stripes(3, units="bits")
    np.testing.assert_array_equal(X[1].reshape(3, 3), [[0, 0, 0], [0, 0, 0], [1, 1, 1]])  # stripes first
    np.testing.assert_array_equal(X[8].reshape(3, 3), [[0, 0, 1]] * 3)  # then bars, from code 1
    np.testing.assert_array_equal(bm.bars_and_stripes(3, units="spins"), 2 * X - 1)
    assert X.mean() == 0.5  # every pixel is on in half the images


@pytest.mark.parametrize("n_group", [2, 4, 8])
def test_encoder_patterns_are_two_agreeing_one_hot_groups(n_group):
    X = bm.encoder_patterns(n_group, units="bits")
    assert X.shape == (n_group, 2 * n_group)
    first, second = X[:, :n_group], X[:, n_group:]
    np.testing.assert_array_equal(first, np.eye(n_group))
    np.testing.assert_array_equal(first, second)
    S = bm.encoder_patterns(n_group, units="spins")
    np.testing.assert_array_equal(S, 2 * X - 1)


@pytest.mark.parametrize("n", [2, 3, 5])
def test_parity_patterns_are_the_even_ones(n):
    X = bm.parity_patterns(n, units="bits")
    expected = [p for p in itertools.product((0, 1), repeat=n) if sum(p) % 2 == 0]
    np.testing.assert_array_equal(X, expected)  # also in all_states order
    S = bm.parity_patterns(n, units="spins")
    assert np.all(np.prod(S, axis=1) == (-1) ** n)


def test_parity_has_the_first_and_second_moments_of_the_uniform_distribution():
    # The reason a machine without hidden units cannot learn parity (see test_learning).
    S = bm.parity_patterns(3, units="spins").astype(float)
    np.testing.assert_array_equal(S.mean(axis=0), 0.0)
    np.testing.assert_array_equal(S.T @ S / len(S), np.eye(3))


def test_ten_pixel_images():
    X = bm.ten_pixel_images(units="bits")
    assert X.shape == (60, 10) and X.dtype == np.int8
    np.testing.assert_array_equal(X, bm.ten_pixel_images(rng=0, units="bits"))  # the default seed makes it one data set
    clean = bm.ten_pixel_images(n_copies=2, flip=0.0, units="bits")
    np.testing.assert_array_equal(clean, np.repeat(bm.TEN_PIXEL_PROTOTYPES, 2, axis=0))
    S = bm.ten_pixel_images(units="spins")
    np.testing.assert_array_equal(S, 2 * X - 1)
    # Flip rate: 30 000 pixels at flip = 0.1 (seed 3); the standard error is 0.0017.
    big = bm.ten_pixel_images(n_copies=1000, flip=0.1, rng=3, units="bits")
    rate = np.mean(big != np.repeat(bm.TEN_PIXEL_PROTOTYPES, 1000, axis=0))
    assert rate == pytest.approx(0.1, abs=0.01)


def test_ten_pixel_probabilities_are_the_generating_process():
    every = bm.all_states(10)
    p = bm.ten_pixel_probabilities(every)
    assert p.shape == (1024,) and p.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(bm.ten_pixel_probabilities(bm.to_bits(every), units="bits"), p, rtol=1e-15)
    # By hand: the checkerboard with pixel 0 turned off is 1 pixel from it and 5 from each row image.
    image = np.array([0, 0, 1, 0, 1, 0, 1, 0, 1, 0])
    by_hand = (0.1 * 0.9**9 + 2 * 0.1**5 * 0.9**5) / 3
    assert float(bm.ten_pixel_probabilities(image, units="bits")) == pytest.approx(by_hand, rel=1e-14)
    # Without noise only the prototypes occur, a third each.
    clean = bm.ten_pixel_probabilities(every, flip=0.0)
    assert sorted(clean[clean > 0]) == pytest.approx([1 / 3] * 3, abs=1e-15) and (clean > 0).sum() == 3
    # Against the sampler itself: 30 000 images (seed 5) counted by state, a chi-square test over the
    # states with expected count >= 5 (the rest pooled); its 0.1% critical value for ~150 degrees of
    # freedom is about 210, and a wrong flip rate (0.12 instead of 0.1) gives several thousand.
    images = bm.ten_pixel_images(n_copies=10_000, flip=0.1, rng=5, units="bits")
    counts = np.bincount(images.astype(int) @ (1 << np.arange(9, -1, -1)), minlength=1024)
    expected = len(images) * bm.ten_pixel_probabilities(bm.to_bits(every), units="bits")
    big = expected >= 5
    observed = np.append(counts[big], counts[~big].sum())
    wanted = np.append(expected[big], expected[~big].sum())
    chi2 = ((observed - wanted) ** 2 / wanted).sum()
    dof = big.sum()
    assert chi2 < dof + 4 * np.sqrt(2 * dof), (chi2, dof)


def test_dataset_arguments_are_checked():
    with pytest.raises(ValueError, match="n must be >= 1; got 0"):
        bm.bars_and_stripes(0, units="bits")
    with pytest.raises(ValueError, match='units must be "spins" or "bits"'):
        bm.bars_and_stripes(3, units="pixels")
    with pytest.raises(ValueError, match="n_group must be >= 2; got 1"):
        bm.encoder_patterns(1, units="bits")
    with pytest.raises(ValueError, match=r"flip must be a probability in \[0, 0.5\]; got 0.7"):
        bm.ten_pixel_images(flip=0.7, units="bits")
    with pytest.raises(ValueError, match="flip must be finite"):
        bm.ten_pixel_images(flip=np.nan, units="bits")
    with pytest.raises(TypeError, match="n_copies must be an integer"):
        bm.ten_pixel_images(n_copies=2.5, units="bits")
    with pytest.raises(ValueError, match=r"flip must be a probability in \[0, 0.5\]; got 0.7"):
        bm.ten_pixel_probabilities(bm.ten_pixel_images(), flip=0.7)
    with pytest.raises(ValueError, match=r"images must have shape \(n,\) or \(\.\.\., n\) with n = 10; got shape \(3, 9\)"):
        bm.ten_pixel_probabilities(np.ones((3, 9)))
    with pytest.raises(ValueError, match="images must hold spins"):
        bm.ten_pixel_probabilities(np.full(10, 3))


def test_one_unit_convention_by_default():
    # The first line a student writes works: every default is spins.
    data = bm.bars_and_stripes(3)
    assert set(np.unique(data)) == {-1, 1}
    assert bm.BoltzmannMachine(9, rng=0).log_likelihood(data) < 0
    assert bm.RBM(9, 4, rng=0).log_likelihood(data) < 0
    for make in (bm.encoder_patterns, bm.parity_patterns, bm.ten_pixel_images):
        assert set(np.unique(make())) == {-1, 1}
    assert bm.RBM(2, 1).units == "spins" and bm.BoltzmannMachine(2).units == "spins"
