"""Estimates of log Z: deterministic, sampled, and all of them against the exact value.

==============  ==============================================================
variational.py  ``LogZEstimate`` (every estimate's result) and the mean-field
                family: ``log_z_mean_field`` (a lower bound), ``log_z_tap``,
                ``log_z_bethe``
sampled.py      importance sampling, the visited-states sum (a lower bound)
                and annealed importance sampling, with error bars
sandwich.py     ``ais_sandwich``: forward and reverse AIS, a stochastic lower and
                upper bound whose gap exposes a schedule that is too short
study.py        ``compare_log_z``: every estimator against the exact value
                over temperatures and budgets (the Z chapter's table,
                figures and widget)
==============  ==============================================================

Exact functions are named ``*_log_partition`` (in :mod:`bmlib.exact`),
estimates ``log_z_*``. The public names are flat in :mod:`bmlib`; this package
re-exports those of the former module ``bmlib.partition`` (``from
bmlib.partition import log_z_tap`` keeps working).
"""
from .variational import LogZEstimate, log_z_bethe, log_z_mean_field, log_z_tap

__all__ = ["LogZEstimate", "log_z_bethe", "log_z_mean_field", "log_z_tap"]
