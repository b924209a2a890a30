"""The models and their data: what every chapter starts from.

=================  ==========================================================
states.py          units (spins, bits), the ``all_states`` order, conversions
energy.py          energy, local fields, single-flip energy changes, stability
lattices.py        couplings of chains, square lattices, SK, Curie-Weiss, EA
hebbian.py         Hebbian weights, recall against the load, synchronous updates
descent.py         zero-temperature energy descent
datasets.py        bars and stripes, encoder patterns, parity, 10-pixel images
digit_images.py    the UCI handwritten digits (the file is ``bmlib/data/``)
io.py, _npz.py     ``save_model`` / ``load_model`` (``.npz`` without pickle)
=================  ==========================================================

The public names are re-exported flat from :mod:`bmlib`; this package imports
nothing itself, so a module here can be loaded without the others.
"""
