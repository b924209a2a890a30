"""A model changed after construction is checked by every method that uses it, with one message per fault.

An RBM or BoltzmannMachine can be changed in two ways after it is built: an
attribute replaced (``rbm.T = -1``, ``rbm.W = other_array``) or an array
written in place (``rbm.W[:] = np.nan``, a weight written where the mask has
no connection). Every public method that uses the parameters, and ``train``,
checks the whole model before its work and refuses a broken one with a
ValueError/TypeError that names the attribute, the rule and the bad value, the
same message whichever method found it. The methods are listed with
``inspect``, so a method added later without an entry in ``CALLS`` fails here.
"""
import inspect

import numpy as np
import pytest

import bmlib as bm

RBM_DATA = np.array([[1, 0, 1], [0, 1, 1]])
BM_DATA = np.array([[1, -1, 1, 1], [-1, -1, 1, -1]])


def new_rbm():
    return bm.RBM(3, 2, W=[[0.5, -1.0], [0.25, 0.0], [-0.5, 1.5]], b_visible=[0.1, -0.2, 0.3], b_hidden=[0.4, -0.1],
                  units="bits")


def new_machine():
    """Two visible groups of 2 units and 1 hidden unit; units 0 and 2 are not connected."""
    return bm.BoltzmannMachine(4, 1, mask=bm.encoder_mask(2, 1), units="spins", init_scale=0.5, rng=1)


# One call per public method (and train), with arguments that are valid for an undamaged model.
CALLS = {
    bm.RBM: {
        "complete": lambda m: m.complete([1, 0, 1], missing=[0]),
        "copy": lambda m: m.copy(),
        "energy": lambda m: m.energy(RBM_DATA, [[1, 0], [0, 1]]),
        "free_energy": lambda m: m.free_energy(RBM_DATA),
        "gibbs": lambda m: m.gibbs(RBM_DATA, n_sweeps=2, rng=0),
        "gibbs_chain": lambda m: m.gibbs_chain(RBM_DATA, n_sweeps=2, rng=0),
        "gradient": lambda m: m.gradient(RBM_DATA),
        "hidden_means": lambda m: m.hidden_means(RBM_DATA),
        "log_likelihood": lambda m: m.log_likelihood(RBM_DATA),
        "log_partition": lambda m: m.log_partition(),
        "log_probability": lambda m: m.log_probability(RBM_DATA),
        "pseudo_log_likelihood": lambda m: m.pseudo_log_likelihood(RBM_DATA),
        "reconstruct": lambda m: m.reconstruct(RBM_DATA),
        "sample": lambda m: m.sample(2, n_sweeps=3, rng=0),
        "to_boltzmann_machine": lambda m: m.to_boltzmann_machine(),
        "visible_means": lambda m: m.visible_means([[1, 0], [0.5, 0.5]]),
        "train": lambda m: bm.train(m, RBM_DATA, epochs=1, statistics="cd", monitor=None, rng=0),
    },
    bm.BoltzmannMachine: {
        "copy": lambda m: m.copy(),
        "energy": lambda m: m.energy(np.array([[1, -1, 1, 1, -1]])),
        "gradient": lambda m: m.gradient(BM_DATA),
        "log_likelihood": lambda m: m.log_likelihood(BM_DATA),
        "log_partition": lambda m: m.log_partition(),
        "log_probability": lambda m: m.log_probability(BM_DATA),
        "pseudo_log_likelihood": None,  # needs a machine without hidden units: see test_pseudo_log_likelihood_...
        "sample": lambda m: m.sample(3, rng=0),
        "train": lambda m: bm.train(m, BM_DATA, epochs=1, monitor=None),
    },
}


def _set(name, value):
    return lambda m: setattr(m, name, value)


def _write(name, index, value, symmetric=False):
    def damage(m):
        getattr(m, name)[index] = value
        if symmetric:
            getattr(m, name)[index[::-1]] = value
    return damage


def _reshape_W(m):
    m.W.shape = m.W.shape[::-1]


# (damage, the message it must give): every kind of change a reader can make.
COMMON = {
    "T_negative": (_set("T", -1), ValueError, r"^the model's T must be finite and > 0; got -1\.0$"),
    "T_zero": (_set("T", 0.0), ValueError, r"^the model's T must be finite and > 0; got 0\.0$"),
    "T_nan": (_set("T", float("nan")), ValueError, r"^the model's T must be finite and > 0; got nan$"),
    "T_text": (_set("T", "1"), TypeError, r"^the model's T must be a real number > 0; got '1' of type str$"),
    "units": (_set("units", "ising"), ValueError, r"""^the model's units must be "spins" or "bits"; got 'ising'$"""),
    "n_hidden_text": (_set("n_hidden", "2"), TypeError,
                      r"^the model's n_hidden must be an integer; got '2' of type str$"),
    "W_text": (lambda m: setattr(m, "W", np.full(m.W.shape, "a")), TypeError,
               r"^the model's W must be a numeric array; got dtype <U1$"),
}
DAMAGES = {
    bm.RBM: {
        **COMMON,
        "W_nan_in_place": (_write("W", (1, 0), np.nan), ValueError, r"^the model's W must be finite; W\[1, 0\] = nan$"),
        "W_all_nan": (lambda m: m.W.__setitem__(slice(None), np.nan), ValueError,
                      r"^the model's W must be finite; W\[0, 0\] = nan$"),
        "W_nan_assigned": (_set("W", np.array([[0, 1], [2, 3], [4, np.nan]])), ValueError,
                           r"^the model's W must be finite; W\[2, 1\] = nan$"),
        "b_visible_inf": (_write("b_visible", 2, np.inf), ValueError,
                          r"^the model's b_visible must be finite; b_visible\[2\] = inf$"),
        "b_hidden_inf": (_write("b_hidden", 0, -np.inf), ValueError,
                         r"^the model's b_hidden must be finite; b_hidden\[0\] = -inf$"),
        "W_wrong_shape": (_set("W", np.zeros((2, 3))), ValueError,
                          r"^the model's W must have shape \(n_visible, n_hidden\) = \(3, 2\); got shape \(2, 3\)$"),
        "W_reshaped_in_place": (_reshape_W, ValueError,
                                r"^the model's W must have shape \(n_visible, n_hidden\) = \(3, 2\); "
                                r"got shape \(2, 3\)$"),
        "b_hidden_wrong_shape": (_set("b_hidden", np.zeros(3)), ValueError,
                                 r"^the model's b_hidden must have shape \(n_hidden,\) = \(2,\); got shape \(3,\)$"),
        "n_hidden_assigned": (_set("n_hidden", 3), ValueError,
                              r"^the model's W must have shape \(n_visible, n_hidden\) = \(3, 3\); got shape \(3, 2\)$"),
    },
    bm.BoltzmannMachine: {
        **COMMON,
        "W_nan_in_place": (_write("W", (1, 0), np.nan, symmetric=True), ValueError,
                           r"^the model's W must be finite; W\[0, 1\] = nan$"),
        "W_nan_assigned": (lambda m: setattr(m, "W", np.where(m.mask, np.nan, 0.0)), ValueError,
                           r"^the model's W must be finite; W\[0, 1\] = nan$"),
        "b_inf": (_write("b", 3, np.inf), ValueError, r"^the model's b must be finite; b\[3\] = inf$"),
        "W_outside_mask": (_write("W", (0, 2), 0.5, symmetric=True), ValueError,
                           r"^the model's W must be 0 where mask is False \(units 0 and 2 are not connected\); "
                           r"W\[0, 2\] = 0\.5$"),
        "W_asymmetric": (_write("W", (0, 1), 7.0), ValueError,
                         r"^the model's W must be symmetric; W\[0, 1\] = 7 but W\[1, 0\] = "),
        "W_wrong_shape": (_set("W", np.zeros((4, 4))), ValueError,
                          r"^the model's W must have shape \(5, 5\) for 5 units; got shape \(4, 4\)$"),
        "b_wrong_shape": (_set("b", np.zeros(4)), ValueError,
                          r"^the model's b must have shape \(5,\) to match W of shape \(5, 5\); got shape \(4,\)$"),
        "mask_narrowed": (_set("mask", np.zeros((5, 5), dtype=bool)), ValueError,
                          r"^the model's W must be 0 where mask is False \(units 0 and 1 are not connected\); "
                          r"W\[0, 1\] = "),
        "mask_asymmetric": (_write("mask", (0, 2), True), ValueError,
                            r"^the model's mask must be symmetric; mask\[0, 2\] = True but mask\[2, 0\] = False$"),
        "mask_wrong_shape": (_set("mask", np.ones((4, 4), dtype=bool)), ValueError,
                             r"^the model's mask must have shape \(5, 5\), one row and column per unit; "
                             r"got shape \(4, 4\)$"),
    },
}
NEW = {bm.RBM: new_rbm, bm.BoltzmannMachine: new_machine}


def public_methods(cls):
    return sorted(name for name, _ in inspect.getmembers(cls, inspect.isfunction) if not name.startswith("_"))


@pytest.mark.parametrize("cls", [bm.RBM, bm.BoltzmannMachine], ids=lambda c: c.__name__)
def test_every_public_method_is_in_the_table(cls):
    # A method added later must be added to CALLS (and so to every test below).
    assert sorted(public_methods(cls) + ["train"]) == sorted(CALLS[cls])


CASES = [(cls, method, damage) for cls in (bm.RBM, bm.BoltzmannMachine) for method in CALLS[cls]
         if CALLS[cls][method] is not None for damage in DAMAGES[cls]]


@pytest.mark.parametrize("cls, method, damage", CASES,
                         ids=[f"{c.__name__}-{m}-{d}" for c, m, d in CASES])
def test_every_method_refuses_every_damage(cls, method, damage):
    model = NEW[cls]()
    CALLS[cls][method](model)  # the undamaged model works
    harm, error, message = DAMAGES[cls][damage]
    harm(model)
    with pytest.raises(error, match=message):
        CALLS[cls][method](model)


@pytest.mark.parametrize("cls, damage", [(c, d) for c in DAMAGES for d in DAMAGES[c]],
                         ids=[f"{c.__name__}-{d}" for c in DAMAGES for d in DAMAGES[c]])
def test_the_message_is_the_same_whichever_method_found_it(cls, damage):
    model = NEW[cls]()
    DAMAGES[cls][damage][0](model)
    messages = set()
    for method, call in CALLS[cls].items():
        if call is None:
            continue
        with pytest.raises((ValueError, TypeError)) as info:
            call(model)
        messages.add(f"{type(info.value).__name__}: {info.value}")
    assert len(messages) == 1, messages


@pytest.mark.parametrize("damage", list(DAMAGES[bm.BoltzmannMachine]))
def test_pseudo_log_likelihood_of_a_machine_without_hidden_units_refuses_every_damage(damage):
    # The damages above are written for 4 + 1 units; here the hidden unit becomes a fifth visible one.
    model = bm.BoltzmannMachine(5, 0, mask=bm.encoder_mask(2, 1), units="spins", init_scale=0.5, rng=1)
    data = np.array([[1, -1, 1, 1, -1]])
    model.pseudo_log_likelihood(data)
    harm, error, message = DAMAGES[bm.BoltzmannMachine][damage]
    harm(model)
    with pytest.raises(error, match=message):
        model.pseudo_log_likelihood(data)


def test_the_reproducers_of_the_issue():
    data = bm.bars_and_stripes(2, units="bits")
    rbm = bm.RBM(4, 2, units="bits", rng=0)
    rbm.W[:] = np.nan  # gibbs used to return states, log_likelihood refused
    with pytest.raises(ValueError, match=r"the model's W must be finite; W\[0, 0\] = nan"):
        rbm.gibbs(data[:2], rng=0)
    rbm = bm.RBM(4, 2, units="bits", rng=0)
    rbm.T = -1  # sample and hidden_means used to return plausible values
    for call in (lambda: rbm.sample(2, n_sweeps=5, rng=0), lambda: rbm.hidden_means(data[:1])):
        with pytest.raises(ValueError, match=r"the model's T must be finite and > 0; got -1\.0"):
            call()
    machine = new_machine()
    machine.W[0, 2] = machine.W[2, 0] = 0.5  # used by log_likelihood, kept by train
    before = machine.W.copy()
    for call in (lambda: machine.log_likelihood(BM_DATA), lambda: bm.train(machine, BM_DATA, epochs=2, monitor=None)):
        with pytest.raises(ValueError, match=r"W must be 0 where mask is False \(units 0 and 2"):
            call()
    np.testing.assert_array_equal(machine.W, before)  # train refused before its first step


def test_a_repaired_model_works_again_and_valid_changes_are_used():
    rbm = new_rbm()
    rbm.T = 0.0
    with pytest.raises(ValueError, match="T must be"):
        rbm.log_likelihood(RBM_DATA)
    rbm.T = 0.5
    W = np.array([[1.0, 0.0], [0.0, -1.0], [2.0, 0.5]])
    rbm.W[:] = W  # in place, valid
    rbm.b_hidden = [0.0, 1.0]  # replaced by a list: still accepted, as before
    fresh = bm.RBM(3, 2, W=W, b_visible=[0.1, -0.2, 0.3], b_hidden=[0.0, 1.0], units="bits", T=0.5)
    assert rbm.log_likelihood(RBM_DATA) == fresh.log_likelihood(RBM_DATA)
    machine = new_machine()
    mask = machine.mask.copy()
    mask[0, 2] = mask[2, 0] = True  # a new connection: mask and weight changed together, in either order
    W = machine.W.copy()
    W[0, 2] = W[2, 0] = 0.5
    machine.W = W
    machine.mask = mask
    fresh = bm.BoltzmannMachine(4, 1, mask=mask, W=W, b=machine.b, units="spins")
    assert machine.log_likelihood(BM_DATA) == fresh.log_likelihood(BM_DATA)


class _Counter:
    """Counts the calls of the model's private check (the per-call check must not run in inner loops)."""

    def __init__(self, monkeypatch, cls):
        self.calls = 0
        check = cls._check_parameters

        def counted(model):
            self.calls += 1
            return check(model)
        monkeypatch.setattr(cls, "_check_parameters", counted)


def test_the_check_runs_once_per_call_not_per_step(monkeypatch):
    counter = _Counter(monkeypatch, bm.RBM)
    rbm = new_rbm()
    for call, expected in [
        (lambda: rbm.sample(4, n_sweeps=50, rng=0), 1),
        (lambda: rbm.gibbs(RBM_DATA, n_sweeps=50, rng=0), 1),
        (lambda: rbm.gibbs_chain(RBM_DATA, n_sweeps=50, rng=0), 1),
        (lambda: rbm.log_likelihood(RBM_DATA), 1),  # not again in log_probability and log_partition
        (lambda: rbm.log_probability(RBM_DATA), 1),
        # at the start only, not per epoch or per step; the checked parameters are not re-checked by the monitor
        (lambda: bm.train(rbm, RBM_DATA, epochs=5, batch_size=1, statistics="cd", monitor=None, rng=0), 1),
        (lambda: bm.train(rbm, RBM_DATA, epochs=5, batch_size=1, statistics="pcd", monitor=None, rng=0), 1),
    ]:
        counter.calls = 0
        call()
        assert counter.calls == expected
    counter = _Counter(monkeypatch, bm.BoltzmannMachine)
    machine = new_machine()
    for call, expected in [
        (lambda: machine.log_likelihood(BM_DATA), 1),
        (lambda: machine.log_probability(BM_DATA), 1),
        (lambda: bm.train(machine, BM_DATA, epochs=5, monitor=None), 1),
    ]:
        counter.calls = 0
        call()
        assert counter.calls == expected


def test_the_check_allocates_at_most_a_few_copies_of_the_parameters():
    # O(parameters): the RBM's check does not copy W at all (its sum says "finite" for a finite W).
    import tracemalloc

    rbm = bm.RBM(300, 200, rng=0)
    rbm._check_parameters()
    tracemalloc.start()
    rbm._check_parameters()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < rbm.W.nbytes / 10


def test_huge_but_finite_parameters_are_accepted_without_a_warning():
    # The check sums each array (a NaN or an infinity makes the sum non-finite); a sum that overflows
    # from finite entries must not be mistaken for a non-finite entry, nor warn.
    import warnings

    rbm = bm.RBM(2, 1, W=[[1e308], [1e308]], b_visible=[1e308, 1e308], units="bits")
    machine = bm.BoltzmannMachine(2, W=[[0, 1e308], [1e308, 0]], b=[1e308, 1e308])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rbm._check_parameters()
        machine._check_parameters()


# The public functions outside the two classes that take a model: each must refuse a damaged one as
# its methods do (they reach the model's parameters through private methods or directly).
FUNCTIONS = {
    "exact_statistics": lambda m: bm.exact_statistics(m, RBM_DATA if isinstance(m, bm.RBM) else BM_DATA[:, :4]),
    "ContrastiveDivergence": lambda m: bm.ContrastiveDivergence()(m, RBM_DATA, rng=0),
    "PersistentContrastiveDivergence": lambda m: bm.PersistentContrastiveDivergence(n_chains=3)(m, RBM_DATA, rng=0),
    "SampledStatistics": lambda m: bm.SampledStatistics(n_samples=2, burn_in=1)(m, BM_DATA, rng=0),
    "AnnealedStatistics": lambda m: bm.AnnealedStatistics()(m, BM_DATA, rng=0),
    "MeanFieldStatistics": lambda m: bm.MeanFieldStatistics()(m, BM_DATA, rng=0),
    "inpaint": lambda m: bm.inpaint(m, RBM_DATA, missing=[1], n_sweeps=2, burn_in=0, rng=0),
    "rbm_parallel_tempering": lambda m: bm.rbm_parallel_tempering(m, [1.0, 2.0], n_samples=2, rng=0),
    "plot_filters": lambda m: bm.plot_filters(m, shape=(3, 1)),
    "encoder_report": lambda m: bm.encoder_report(m),
    "expected_cd_update": lambda m: bm.expected_cd_update(m, RBM_DATA),
    "cd_update_spread": lambda m: bm.cd_update_spread(m, RBM_DATA, n_runs=2, rng=0),
    "plot_moment_match": lambda m: bm.plot_moment_match(m, BM_DATA),
}
MACHINE_FUNCTIONS = ("SampledStatistics", "AnnealedStatistics", "MeanFieldStatistics", "encoder_report", "plot_moment_match")


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_functions_that_take_a_model_refuse_a_damaged_one(name):
    import matplotlib.pyplot as plt

    model = new_machine() if name in MACHINE_FUNCTIONS else new_rbm()
    try:
        FUNCTIONS[name](model)  # valid as constructed
    finally:
        plt.close("all")
    model.W[0, 1] = np.nan
    if isinstance(model, bm.BoltzmannMachine):
        model.W[1, 0] = np.nan
    with pytest.raises(ValueError, match=r"the model's W must be finite"):
        FUNCTIONS[name](model)
    model = new_machine() if name in MACHINE_FUNCTIONS else new_rbm()
    model.T = -1.0
    with pytest.raises(ValueError, match=r"the model's T must be finite and > 0"):
        FUNCTIONS[name](model)
