"""Argument validation for bmlib's public functions, with the error wording in one place.

Every public function checks its arguments here, at the boundary, so that a
mistake is reported as a short ``ValueError``/``TypeError`` naming the argument,
the rule and the offending value, never as an error from deep inside NumPy.

The checks live in submodules by idea, and every name is re-exported here, so
``from bmlib._checks import check_model`` is the way to import them:

* :mod:`~bmlib._checks.scalars`: integers and counts (``MAX_COUNT``), real numbers,
  flags, choices, sequences and labels.
* :mod:`~bmlib._checks.arrays`: numeric and finite arrays, probability vectors, unit indices.
* :mod:`~bmlib._checks.temperatures`: temperatures, ranges, annealing schedules.
* :mod:`~bmlib._checks.models`: weights, biases, RBM parameters, connectivity masks.
* :mod:`~bmlib._checks.states`: units (``LEVELS``), states checked block by block,
  ``MAX_EXACT_UNITS``, data sets and clamped units.
* :mod:`~bmlib._checks.memory`: refusals above the budget, and blocks within it.
* :mod:`~bmlib._checks.solvers`: the warnings of iterative methods, damping, mean activities.
"""
from __future__ import annotations

#: Largest amount of memory (bytes) that one call may allocate for its arrays:
#: 4 GiB, what a student's laptop can spare. A call that would need more is
#: refused before it allocates, saying how much it would need.
#: Defined here, not in :mod:`~bmlib._checks.memory`: the checks read it from this
#: package at every call, so setting ``bmlib._checks.MEMORY_BUDGET`` reaches them all.
MEMORY_BUDGET = 4 * 2**30

from .arrays import (  # noqa: E402
    _as_real_array,
    _check_finite,
    as_numeric_array,
    check_distribution,
    check_finite_data,
    check_indices,
    check_unit_indices,
)
from .memory import BLOCK_FRACTION, _format_bytes, block_bytes, check_memory, row_blocks  # noqa: E402
from .models import (  # noqa: E402
    check_bias,
    check_mask,
    check_masked_weights,
    check_model,
    check_rbm_parameters,
    check_weights,
)
from .scalars import (  # noqa: E402
    MAX_COUNT,
    _show,
    check_bool,
    check_choice,
    check_count,
    check_instance,
    check_integer,
    check_labels,
    check_optional_real,
    check_probability,
    check_real,
    check_real_number,
    check_sequence,
)
from .solvers import ApproximationWarning, ConvergenceWarning, check_damping, check_means  # noqa: E402
from .states import (  # noqa: E402
    LEVELS,
    MAX_EXACT_UNITS,
    UNITS,
    _index_text,
    _state_rows,
    _where,
    check_clamp,
    check_data,
    check_exact_size,
    check_state_batch,
    check_states,
    check_units,
    infer_units,
    validate_states,
)
from .temperatures import (  # noqa: E402
    MIN_APPROXIMATION_TEMPERATURE,
    check_annealing_schedule,
    check_approximation_temperature,
    check_temperature,
    check_temperature_range,
    check_temperatures,
)
