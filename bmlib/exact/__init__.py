"""Exact answers: every state summed, by enumeration or by elimination, and the closed forms.

====================  =======================================================
enumeration.py        log Z, the distribution, moments and energy moments by
                      enumerating all 2**n states in blocks; ``log_partition``
                      hands sparse machines to elimination when it is cheaper
clamped.py            the same with some units clamped (the clamped phase)
free_energy.py        free energy, entropy, heat capacity, F[q] = F + T KL(q, p)
elimination.py        variable elimination for sparse machines (with the plan in
                      ``_elimination_plan.py`` and the tables in
                      ``_elimination_tables.py``)
samples.py            independent exact samples, drawn back through the
                      elimination order (wherever log Z is exact)
closed_forms.py       the Ising chain's transfer matrix, Onsager, Yang, T_c
kaufman.py            Kaufman's exact finite square torus
====================  =======================================================

The public names are flat in :mod:`bmlib`; this package re-exports those of
the former module ``bmlib.exact`` (``from bmlib.exact import log_partition``
keeps working).
"""
from .clamped import clamped_log_partition, clamped_moments
from .enumeration import (
    ELIMINATION_ADVANTAGE,
    MAX_ELIMINATION_UNITS,
    MAX_EXACT_UNITS,
    MAX_TABLE_UNITS,
    SPARSE_FROM_UNITS,
    EliminationPlan,
    EnergyMoments,
    Moments,
    all_states,
    boltzmann_distribution,
    exact_energy_moments,
    exact_moments,
    exact_route,
    log_partition,
    sparse_log_partition,
)

__all__ = [
    "ELIMINATION_ADVANTAGE",
    "MAX_ELIMINATION_UNITS",
    "MAX_EXACT_UNITS",
    "MAX_TABLE_UNITS",
    "SPARSE_FROM_UNITS",
    "EliminationPlan",
    "all_states",
    "boltzmann_distribution",
    "clamped_log_partition",
    "clamped_moments",
    "exact_energy_moments",
    "exact_moments",
    "exact_route",
    "log_partition",
    "sparse_log_partition",
]
