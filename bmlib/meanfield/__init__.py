"""Deterministic approximations: mean field, TAP, belief propagation, and the inverse problem.

================  ============================================================
theories.py       naive mean field and TAP: ``MeanFieldResult``,
                  ``naive_mean_field``, ``tap_mean_field`` (the two theories
                  and how they are solved are stated in its docstring)
solver.py         their equations and fixed-point solver (shared by both)
bethe.py          loopy belief propagation and the Bethe free energy
inverse_ising.py  weights from the data's correlations (naive mean field, TAP)
================  ============================================================

The public names are flat in :mod:`bmlib`; this package re-exports those of
the former module ``bmlib.meanfield`` (``from bmlib.meanfield import
naive_mean_field`` keeps working).
"""
from .theories import MeanFieldResult, naive_mean_field, tap_mean_field

__all__ = ["MeanFieldResult", "naive_mean_field", "tap_mean_field"]
