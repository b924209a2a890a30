"""Gradient ascent on the log-likelihood, with a history to plot.

One update, for every parameter ``theta`` of the model (``W`` and the biases):

    g        = (<.>_clamped - <.>_free) / T  - weight_decay * theta   (decay on weights only)
    velocity = momentum * velocity + learning_rate * g
    theta   += velocity

where the statistics come from a provider (:mod:`bmlib.learning.statistics`).
With ``update="sign"`` the step uses only the sign of each component,
``learning_rate * sign(g)``: the fixed-size weight change of Ackley, Hinton &
Sejnowski (1985), who moved every weight by 2 in the direction of
``p+_ij - p-_ij``.
"""
from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np

from .._checks import check_bool, check_choice, check_count, check_real
from .._progress import progress_bar
from .._random import as_generator
from .._threads import thin_blas
from .history import TrainingHistory, _check_model
from .machine import BoltzmannMachine
from .rbm import RBM
from .statistics import (
    ContrastiveDivergence,
    PersistentContrastiveDivergence,
    _exact_statistics_of_checked,
    exact_statistics,
    resolve_statistics,
)

# monitor="auto" records the exact log-likelihood after every epoch when one
# evaluation touches at most this many (state, unit) entries: a fraction of a
# second. That is any machine of up to 20 units, or an RBM whose smaller layer
# (n_s units, enumerated) and larger layer (n_l units) have 2**n_s * n_l <= 2**25.
_MONITOR_MAX_ENTRIES = 2**25


class TrainingWarning(UserWarning):
    """Training ended far below the best value it monitored (see :func:`train`, "Warns").

    The parameters of the best epoch are kept on the returned history:
    ``history.restore_best(model)`` puts them back. Turn the warning into an
    error with ``warnings.simplefilter("error", bmlib.TrainingWarning)``.
    """


#: "Far below its best": the last monitored value lies more than this many nats per pattern under the best
#: one, i.e. the model gives each training pattern, on average, less than 1/e of the probability it gave at its
#: best epoch. Late PCD swings on 3 x 3 bars and stripes span at most about 0.5 nats (the PCD docstring); a drop
#: of 1 nat is no longer the noise of sampled statistics but a step the training cannot settle with.
FAR_BELOW_BEST = 1.0

#: The half-life (epochs) of the step that ``step_decay="auto"`` gives persistent CD on an RBM in spins.
AUTO_STEP_DECAY = 30.0


def _exact_entries(model):
    """(state, unit) entries that one exact log-likelihood of the model enumerates."""
    if isinstance(model, BoltzmannMachine):
        return 2**model.n_units * model.n_units
    return 2 ** min(model.n_visible, model.n_hidden) * max(model.n_visible, model.n_hidden)


def _resolve_monitor(monitor, model):
    """Return (name, function(model, data) -> float), or (None, None)."""
    if monitor is None:
        return None, None
    if callable(monitor):
        return getattr(monitor, "__name__", "monitor"), monitor
    if monitor == "auto":
        if _exact_entries(model) <= _MONITOR_MAX_ENTRIES:
            monitor = "log_likelihood"
        elif isinstance(model, RBM) or model.n_hidden == 0:
            monitor = "pseudo_log_likelihood"
        else:
            return None, None
    if monitor in ("log_likelihood", "pseudo_log_likelihood"):
        return monitor, lambda m, d: getattr(m, monitor)(d)
    raise ValueError(
        f'monitor must be "auto", "log_likelihood", "pseudo_log_likelihood", None or a callable; got {monitor!r}'
    )


def _check_statistics(model, stats):
    """Check a provider's answer at the boundary, so a wrong shape is named here."""
    shapes = model._statistics_shapes()
    try:
        phases = [(np.asarray(mean, dtype=float), np.asarray(second, dtype=float)) for mean, second in stats]
    except (TypeError, ValueError):
        raise TypeError("a statistics provider must return ((mean, second), (mean, second)) as arrays") from None
    if len(phases) != 2:
        raise TypeError(f"a statistics provider must return two phases (clamped, free); got {len(phases)}")
    for phase, (mean, second) in zip(("clamped", "free"), phases):
        for what, arr, shape in (("mean", mean, shapes[0]), ("second", second, shapes[1])):
            if arr.shape != shape:
                raise ValueError(f"the {phase} {what} from the statistics provider must have shape {shape}; "
                                 f"got {arr.shape}")
            if not np.isfinite(arr).all():
                raise ValueError(f"the {phase} {what} from the statistics provider must be finite")
    return phases


def _batches(data, batch_size, rng):
    """The epoch's mini-batches: ``data`` itself, or its rows shuffled and cut into ``batch_size`` rows."""
    P = len(data)
    if batch_size is None or batch_size >= P:
        return [data]
    # One shuffled copy per epoch, then views: the same rows as indexing each batch, one copy fewer per batch.
    shuffled = data[rng.permutation(P)]
    return [shuffled[k : k + batch_size] for k in range(0, P, batch_size)]


class _Step(NamedTuple):
    """How a gradient becomes a parameter step (train's arguments, checked)."""

    learning_rate: float
    momentum: float
    weight_decay: float
    update: str
    decayed: tuple


def _epoch(model, data, batch_size, gen, provider, trusted, step, velocity, *, epoch):
    """One pass over the data; the model's parameters and ``velocity`` are updated in place.

    A step that makes a parameter non-finite stops training with a ValueError. Answers from a
    reader's provider are checked, and every step before it is taken, so the model stays as it
    was before the bad step. bmlib's CD and PCD (``trusted``) cannot fail on non-finite
    parameters, so their steps are checked once, at the end of the epoch (a check per step costs
    a tenth of a 10-row step), and a failure restores the model as it was when the epoch began.

    ``trusted`` is None for a reader's provider, or, for bmlib's CD and PCD on an RBM, their
    ``_phases(model, batch, rng)``: the one CD/PCD step (:mod:`bmlib.learning.chain_step`) that
    their public call runs too, whose phases give the gradient step or the statistics.
    """
    names = model.parameter_names
    # Steps replace the parameter arrays, never write into them: these stay the epoch's start.
    at_start = {p: getattr(model, p) for p in names}
    velocity_at_start = dict(velocity)
    # A plain step (no momentum, decay or sign) is learning_rate times the gradient: bmlib's CD and
    # PCD return it scaled already, which saves a multiplication per parameter.
    plain = not step.momentum and not step.decayed and step.update == "gradient"
    is_step = plain and trusted is not None
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is reported below
        for batch in _batches(data, batch_size, gen):
            if trusted is not None:  # bmlib's own CD and PCD, on rows of the checked data
                phases = trusted(model, batch, gen)
                if step.update == "gradient":
                    grads = phases.step(step.learning_rate if plain else 1.0)
                else:  # a component whose two phases agree exactly must keep the sign 0, not a rounding's
                    grads = model._gradient(*phases.statistics())
            else:
                grads = model._gradient(*_check_statistics(model, provider(model, batch, gen)))
            steps = {}
            for p, grad in grads.items():
                theta = getattr(model, p)
                if is_step:
                    change = grad
                else:
                    if p in step.decayed:
                        grad = grad - step.weight_decay * theta
                    if step.update == "sign":
                        grad = np.sign(grad)
                    # Without momentum the step is learning_rate * grad exactly (0 * v + x == x).
                    change = step.learning_rate * grad
                    if step.momentum:
                        change = step.momentum * velocity[p] + change
                steps[p] = (change, theta + change)
            if trusted is None:
                _stop_if_diverged({p: new for p, (_, new) in steps.items()}, epoch, step)
            for p, (change, new) in steps.items():
                velocity[p] = change
                setattr(model, p, new)
    if trusted is not None:
        try:
            _stop_if_diverged({p: getattr(model, p) for p in names}, epoch, step)
        except ValueError:
            for p in names:
                setattr(model, p, at_start[p])
            velocity.update(velocity_at_start)
            raise


def _stop_if_diverged(parameters, epoch, step):
    """Raise the ValueError that names the first non-finite parameter of ``parameters`` (name -> array)."""
    for p, new in parameters.items():
        if not np.isfinite(new).all():  # overflow: stop, saying why
            raise ValueError(
                f"training diverged in epoch {epoch}: the update made {p} non-finite; "
                f"lower learning_rate (= {step.learning_rate:g}) or weight_decay (= {step.weight_decay:g}), "
                "or use update='sign'"
            )


@thin_blas
def train(model, data, *, epochs=100, learning_rate=0.1, momentum=0.0, weight_decay=0.0, batch_size=None,
          statistics=None, update="gradient", monitor="auto", callback=None, resume=None, progress=None, rng=None,
          step_decay="auto"):
    """Fit a model to data by gradient ascent on the log-likelihood; the model is updated in place.

    Parameters
    ----------
    model : BoltzmannMachine or RBM
    data : array_like of shape (P, n_visible)
        Training patterns, in the model's units.
    epochs : int
        Passes over the data, >= 0.
    learning_rate : float
        Step size, > 0, applied to the batch-averaged gradient.
    momentum : float
        In [0, 1): fraction of the previous step added to the next.
    weight_decay : float
        >= 0; adds ``-weight_decay * W`` to the weight gradient (an L2 penalty),
        not to the biases.
    batch_size : int, optional
        Patterns per update; all of them (one exact step per epoch) if omitted.
        Mini-batches are reshuffled every epoch.
    statistics : str or callable, optional
        Where the clamped and free statistics come from: ``"exact"``
        (enumeration, the default; or, with ``resume``, the provider of the
        run resumed), ``"sampled"`` (sequential dynamics in both phases,
        BoltzmannMachine only; see :class:`~bmlib.SampledStatistics`),
        ``"cd"`` or ``"pcd"`` (RBM only; CD-1 / persistent CD-1),
        ``"annealed"`` (the two-phase procedure of Ackley, Hinton &
        Sejnowski 1985; see :class:`~bmlib.AnnealedStatistics`),
        ``"mean_field"`` (the deterministic Boltzmann machine; see
        :class:`~bmlib.MeanFieldStatistics`), a provider object such as
        ``ContrastiveDivergence(k=5)``, or any callable
        ``(model, batch, rng) -> ((mean, second), (mean, second))``.
    update : {"gradient", "sign"}
        ``"gradient"``: step ``learning_rate * g``. ``"sign"``: step
        ``learning_rate * sign(g)`` in every component (zero where ``g`` is
        zero, so unconnected weights stay zero): the rule of Ackley, Hinton &
        Sejnowski (1985), with ``learning_rate=2`` for a machine in bits at
        ``T = 10``. A fixed step ignores how small (and how noisy) a
        difference of statistics is; it does not settle at a maximum but
        keeps stepping around it.
    monitor : str, callable or None
        What to record after every epoch. ``"auto"``: the exact
        log-likelihood where it is cheap (a machine of up to 20 units; an RBM
        whose smaller layer of ``n_s`` units and larger of ``n_l`` have
        ``2**n_s * n_l <= 2**25``), else the pseudo-log-likelihood (RBM, or a
        machine without hidden units), else nothing. Or ``"log_likelihood"``,
        ``"pseudo_log_likelihood"``, a callable ``(model, data) -> float``, or None.
    callback : callable, optional
        Called after every epoch as ``callback(epoch, model, value)`` with the
        epoch number (counting on from a resumed run), the model, and the
        monitored value (None if nothing is monitored). Returning True stops
        training there (early stopping); it may also record or plot.
    resume : TrainingHistory, optional
        A previous run on the same model: training goes on with its momentum
        (the last steps), its statistics provider unless ``statistics`` is
        given, and its epoch count. Without it every call starts at rest.
    progress : bool or None
        A tqdm progress bar (in a notebook, a widget). None (the default):
        only if training is still running after 2 seconds, so short runs print
        nothing. True: a bar from the start. False: never (and tqdm is not
        imported).
    rng : None, int or numpy.random.Generator
        Shuffles the mini-batches and drives sampled statistics.
    step_decay : "auto", None or float
        A decaying step (stochastic approximation with a Robbins-Monro
        schedule, as Younes 1989 and Tieleman 2008 use for persistent
        chains): every update of epoch ``e`` (counting on from a resumed
        run) steps with ``learning_rate * tau / (tau + e - 1)``, so the step
        halves after ``tau`` epochs and the steps sum to infinity while their
        squares do not. A number: that ``tau``, > 0. None: a constant
        ``learning_rate``. ``"auto"`` (the default): ``tau = 30``
        (``bmlib.learning.training.AUTO_STEP_DECAY``) for :class:`~bmlib.PersistentContrastiveDivergence`
        on an RBM in spins, None for everything else. In spins every
        statistic has up to 4 times the variance it has in bits, so the same
        ``learning_rate`` is a larger step: on 3 x 3 bars and stripes
        ``statistics="pcd"`` with a constant 0.1 ended at -13 to -29 after 3000
        epochs (best possible -2.64), with the decay at -2.77 to -2.81. In
        bits the same decay would stall the slow start (-6.2 after 3000
        epochs), so bits keep the constant step, which ends at -2.91 to
        -3.13 (seeds 0-5). The step at epoch ``e`` is one number for the
        whole epoch, however many mini-batches it has.

    Returns
    -------
    TrainingHistory
        With the values monitored, and the epoch with the best of them and
        its parameters (``history.best_epoch``, ``history.restore_best(model)``).

    Warns
    -----
    TrainingWarning
        If training ends far below its best: the last value of the
        ``"log_likelihood"`` or ``"pseudo_log_likelihood"`` monitor lies more
        than ``bmlib.learning.training.FAR_BELOW_BEST`` = 1 nat per pattern
        under the best one of the run (the model then gives each training
        pattern, on average, less than 1/e of the probability it gave at its
        best epoch). That is no longer the noise of sampled statistics but a
        step too large to settle. A callable monitor is not judged (bmlib
        cannot know whether higher is better).

    Raises
    ------
    ValueError
        If a step makes a parameter non-finite (too large a ``learning_rate``
        or ``weight_decay``). The model is left as it was before that step;
        with bmlib's own CD and PCD, which check once per epoch, as it was
        when that epoch began.

    Notes
    -----
    Explained in the chapters "The learning rule" and "Hidden units".

    Examples
    --------
    >>> import bmlib as bm
    >>> data = bm.parity_patterns(3, units="spins")
    >>> machine = bm.BoltzmannMachine(3, n_hidden=1, init_scale=0.5, rng=0)
    >>> history = bm.train(machine, data, epochs=500, learning_rate=0.5, momentum=0.5)
    >>> history.monitor, history.values.round(3)[[0, -1]]  # towards the best possible, -log 4 = -1.386
    ('log_likelihood', array([-2.328, -1.398]))

    Too large a step overshoots and says so; the best epoch's parameters are kept:

    >>> import warnings
    >>> machine = bm.BoltzmannMachine(9, rng=0)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     history = bm.train(machine, bm.bars_and_stripes(3), epochs=100, learning_rate=2.0)
    >>> caught[0].category.__name__, history.best_epoch, history.values[[0, 1]].round(2)
    ('TrainingWarning', 1, array([-6.12, -3.89]))
    """
    model = _check_model(model)
    model._check_parameters()  # a model changed after construction: refused before the first step, once
    data = model._check_data(data)
    epochs = check_count(epochs, "epochs", minimum=0)
    learning_rate = check_real(learning_rate, "learning_rate", positive=True)
    momentum = check_real(momentum, "momentum", nonnegative=True)
    if momentum >= 1:
        raise ValueError(f"momentum must be in [0, 1); got {momentum!r}")
    weight_decay = check_real(weight_decay, "weight_decay", nonnegative=True)
    batch_size = None if batch_size is None else check_count(batch_size, "batch_size", minimum=1)
    progress = check_bool(progress, "progress", allow_none=True)
    update = check_choice(update, "update", ("gradient", "sign"))
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be a function (epoch, model, value) -> bool or None; got {callback!r:.60}")
    if resume is not None and not isinstance(resume, TrainingHistory):
        raise TypeError(f"resume must be the TrainingHistory of an earlier train call; got {type(resume).__name__}")
    if statistics is None:
        statistics = resume.statistics if resume is not None else "exact"
    provider = resolve_statistics(statistics)
    # bmlib's CD and PCD providers, on an RBM, skip re-checking each batch and their (known-good)
    # answers; on anything else their own call raises the error that explains why. Exact types:
    # a student's subclass that overrides __call__ must be called.
    chains = (ContrastiveDivergence, PersistentContrastiveDivergence)
    trusted = provider._phases if type(provider) in chains and isinstance(model, RBM) else None
    # train has checked the model and the data once: the exact statistics need not check both again
    # at every step, as the public exact_statistics does (the history still names the public one).
    per_batch = _exact_statistics_of_checked if provider is exact_statistics else provider
    tau = _resolve_step_decay(step_decay, model, provider)
    name, measure = _resolve_monitor(monitor, model)
    gen = as_generator(rng)
    decayed = model._decayed if weight_decay else ()

    velocity = _starting_velocity(model, resume)
    first = int(resume.epochs[-1]) if resume is not None and len(resume.epochs) else 0
    values = [measure(model, data)] if measure else []
    # The best epoch is kept for bmlib's own monitors only: a callable's direction (higher is better?) is unknown.
    keep_best = name in ("log_likelihood", "pseudo_log_likelihood")
    best_epoch, best_parameters = (first, _parameters(model)) if keep_best else (None, {})
    done, stopped = 0, False
    step = _Step(learning_rate, momentum, weight_decay, update, decayed)
    with progress_bar(progress, total=epochs, desc="training", unit="epoch") as bar:
        for _ in range(epochs):
            epoch = first + done + 1
            if tau is not None:  # Robbins-Monro: the step of epoch e is learning_rate * tau / (tau + e - 1)
                step = step._replace(learning_rate=learning_rate * tau / (tau + (epoch - 1)))  # not tau + epoch - 1: 0 for tiny tau
            _epoch(model, data, batch_size, gen, per_batch, trusted, step, velocity, epoch=epoch)
            done += 1
            if measure:
                values.append(measure(model, data))
                bar.set_postfix({name: f"{values[-1]:.4f}"}, refresh=False)
                if keep_best and values[-1] > values[best_epoch - first]:
                    best_epoch, best_parameters = epoch, _parameters(model)
            bar.update()
            if callback is not None and callback(first + done, model, values[-1] if measure else None) is True:
                stopped = True
                break
    if keep_best:
        _warn_if_far_below_best(values, best_epoch, first, name, step)
    return TrainingHistory(first + np.arange(done + 1), np.asarray(values, dtype=float), name, provider,
                           velocity, stopped, best_epoch, best_parameters)


def _parameters(model):
    """Copies of the model's parameters, name -> array."""
    return {p: np.array(getattr(model, p), dtype=float) for p in model.parameter_names}


def _warn_if_far_below_best(values, best_epoch, first, name, step):
    """Warn with a TrainingWarning if the last value is more than FAR_BELOW_BEST under the best one."""
    best, last = values[best_epoch - first], values[-1]
    if best - last > FAR_BELOW_BEST:
        warnings.warn(
            f"training ended with {name} {last:.4g}, {best - last:.3g} nats per pattern below its best "
            f"{best:.4g} (epoch {best_epoch}): more than FAR_BELOW_BEST = {FAR_BELOW_BEST:g}, so the step does "
            f"not settle (last learning rate {step.learning_rate:.3g}, momentum {step.momentum:g}). Lower "
            "learning_rate or give step_decay; history.restore_best(model) puts the best parameters back.",
            TrainingWarning, stacklevel=4)  # past this helper, train and its thin_blas wrapper


def _resolve_step_decay(step_decay, model, provider):
    """The half-life tau (in epochs) of the step, or None for a constant step."""
    if isinstance(step_decay, str):
        if step_decay != "auto":
            raise ValueError(f'step_decay must be "auto", None or a number of epochs > 0; got {step_decay!r}')
        # Any PersistentContrastiveDivergence, subclasses too: their chains persist the same way.
        if isinstance(provider, PersistentContrastiveDivergence) and isinstance(model, RBM) and model.units == "spins":
            return AUTO_STEP_DECAY
        return None
    if step_decay is None:
        return None
    return check_real(step_decay, "step_decay", positive=True)


def _starting_velocity(model, resume):
    """Zeros, or the last steps of a resumed run (checked to fit the model)."""
    velocity = {p: np.zeros_like(getattr(model, p)) for p in model.parameter_names}
    if resume is None:
        return velocity
    for p in model.parameter_names:
        if p not in resume.velocity or np.shape(resume.velocity[p]) != velocity[p].shape:
            raise ValueError(f"resume is a history of another model: its velocity has no {p} of shape "
                             f"{velocity[p].shape}")
        velocity[p] = np.array(resume.velocity[p], dtype=float)
    return velocity
