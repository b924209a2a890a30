"""The random numbers of the update rules, and the two unit levels they are turned into.

Every form of a rule (:mod:`bmlib.sampling.rules`) draws its uniforms here, so
that the forms that must make the same decisions (the elementwise heat bath
and the lattice's table of thresholds) consume the same numbers.
"""
import math

import numpy as np


def uniform(rng, like):
    """Uniform numbers in [0, 1) of the shape of ``like``, in its float precision.

    float64 for float64 fields (dense models): ``rng.random``, resolution 2**-53.
    float32 for float32 fields (the lattice sampler): :func:`uniform_bits24`
    times 2**-24, two numbers per 64-bit draw of the generator: this halves
    the cost of the random numbers, which dominate a lattice sweep. Their
    resolution is 2**-24: ``u < p`` then happens with probability ``p``
    rounded up to a multiple of 2**-24 ~ 6e-8. That error matters only for
    events rarer than about 1e-6 per update (on a lattice, a spin turning
    against four aligned neighbours below T ~ 0.6 J); use a dense model for
    such a study.
    """
    if like.dtype != np.float32:
        return rng.random(like.shape)
    bits = uniform_bits24(rng, like.shape)
    return np.multiply(bits, np.float32(2.0**-24), dtype=np.float32)


def uniform_bits24(rng, shape):
    """Integers uniform in [0, 2**24) of ``shape`` (uint32): the float32 uniforms times 2**24.

    Built from the generator's raw 64-bit output, cut into two 32-bit halves
    of which the top 24 bits are kept (exactly representable in float32).
    """
    size = math.prod(shape)  # not np.prod: this runs twice per lattice sweep, and np.prod costs ~10 us
    bits = rng.bit_generator.random_raw((size + 1) // 2).view(np.uint32)[:size]
    bits >>= 8
    return bits.reshape(shape)


def set_levels(high_mask, units, dtype):
    """``high`` where ``high_mask`` is True, ``low`` elsewhere, as an array of ``dtype``."""
    new = high_mask.astype(dtype)
    if units == "spins":  # 0/1 -> -1/+1, in place (no int64 temporaries)
        new *= 2
        new -= 1
    return new
