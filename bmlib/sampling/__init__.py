"""Sampling the Boltzmann-Gibbs distribution of any Boltzmann machine.

==============  ================================================================
module          what it holds
==============  ================================================================
rules           single-unit update rules as objects, each with all its forms:
                heat bath, Metropolis, descent (T = 0)
rule_arguments  a rule as a caller gives it (name, object, function), checked
schedules       scan orders: sequential, random, colouring (checkerboard)
couplings       coupling operators: local fields and energies of a model
                (dense ``W``, or a square-lattice stencil)
chains          the runner: many chains, burn-in, thinning, clamping, annealing
diagnostics     autocorrelation time, blocking error bars, R-hat, effective
                sample size
observables     energy, magnetization, susceptibility, specific heat
clusters        Wolff's cluster update of the square lattice, critical slowing down
transition      the exact transition matrix of a tiny network, distances between
                distributions, convergence curves
valleys         which of two mirror valleys a chain is in, and when it crosses
==============  ================================================================

The public names are re-exported flat from :mod:`bmlib`.
"""
from .._checks import ConvergenceWarning
from .chains import SampleResult, anneal, sample
from .clusters import CriticalSlowing, critical_slowing_down, wolff_sample, wolff_sweeps
from .couplings import CouplingOperator, DenseCouplings, SquareLattice
from .diagnostics import Estimate, autocorrelation, autocorrelation_time, blocking_error, estimate
from .goodness import ChiSquareResult, chi_square_test
from .observables import temperature_scan, thermal_averages
from .rule_arguments import heat_bath, metropolis
from .rules import Descent, HeatBath, Metropolis, UpdateRule
from .schedules import greedy_colouring
from .tempering import TemperingResult, parallel_tempering
from .transition import convergence_curves, state_frequencies, total_variation, transition_matrix
from .valleys import ValleyCrossings, valley_crossings

__all__ = [
    "ChiSquareResult",
    "ConvergenceWarning",
    "CriticalSlowing",
    "CouplingOperator",
    "DenseCouplings",
    "Descent",
    "Estimate",
    "HeatBath",
    "Metropolis",
    "SampleResult",
    "SquareLattice",
    "TemperingResult",
    "UpdateRule",
    "ValleyCrossings",
    "anneal",
    "autocorrelation",
    "autocorrelation_time",
    "blocking_error",
    "critical_slowing_down",
    "chi_square_test",
    "convergence_curves",
    "estimate",
    "greedy_colouring",
    "heat_bath",
    "metropolis",
    "parallel_tempering",
    "sample",
    "state_frequencies",
    "temperature_scan",
    "thermal_averages",
    "total_variation",
    "transition_matrix",
    "valley_crossings",
    "wolff_sample",
    "wolff_sweeps",
]
