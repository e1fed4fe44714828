"""An integer requantization for FULLY_CONNECTED, proved at conversion to equal LiteRT's double one.

LiteRT's reference FULLY_CONNECTED requantizes with ``round(double(acc) * scale)`` (halves away
from zero), which a Helium core can only do one output at a time on its double FPU. Four
outputs at once take three vector integer steps instead::

    u = sat32(acc << left)                      VQSHL
    t = sat32((2 * u * multiplier + 2^31) >> 32) VQRDMULH
    r = (t + 2^(right - 1)) >> right             VRSHL by -right

which approximates ``acc * scale`` to about 2^-(right + 1) but rounds differently near ties, so
it is not exact for every scale. It only has to agree after the output offset and the clamp,
though, and both forms are non-decreasing in ``acc``: if they agree just before and just after
every point where the double form's clamped output steps up, and at both ends of that range,
they agree on every int32 accumulator. That takes a few hundred evaluations per unit, so the
converter checks it for each layer (``integer_requant``) and hands the kernel the multipliers
only when it holds; otherwise the kernel keeps the double form.

The per-layer Helium loops (``fc_helium``) add the output offset inside the multiply instead,
``t = sat32((2 * u * multiplier + (offset << (right + 32)) + 2^31) >> 32)`` (VQRDMLASH), so
that ``r`` already includes it; that form (``fused=True``) is proved the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1

NUDGES = tuple(sorted(range(-256, 257), key=lambda v: (abs(v), -v)))
"""Multiplier offsets tried, nearest first. A layer takes one left and right shift for all its
units, fitted to its extreme scales, so a unit whose scale sits far from those extremes may need
a multiplier a few hundred steps from the nearest (two of AD's ten layers do); the search stops
as soon as every unit has one."""


# Read field by field, never compared, hashed or printed: no generated __eq__/__hash__/__repr__.
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class IntegerRequant:
    """``requant_multiplier`` (one per scale given), ``requant_left`` and ``requant_right``."""

    multipliers: np.ndarray
    left: int
    right: int


def double_requant(acc: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """``hk_round_to_i32(double(acc) * scale)``: LiteRT's rounding, halves away from zero; a
    value that rounds beyond int32 is INT32_MIN (the LiteRT reference's x86-64 conversion)."""
    x = acc.astype(np.float64) * scale
    whole = np.trunc(x)
    fraction = x - whole  # exact in binary floating point
    rounded = whole + (fraction >= 0.5) - (fraction <= -0.5)
    inside = (rounded >= INT32_MIN) & (rounded <= INT32_MAX)
    return np.where(inside, rounded, INT32_MIN).astype(np.int64)


def saturation_free(
    weights: np.ndarray | None,
    bias: np.ndarray | None,
    input_offset: int,
    filter_offset: int,
    output_offset: int,
    scales: np.ndarray,
) -> bool:
    """Whether an int8 layer's outputs are the same whether a requantized value beyond int32
    saturates (VCVTA, the Cortex-M55's packed paths) or becomes INT32_MIN (the reference).

    Either holds when the output offset is not 0: added modulo 2^32 before the int8 clamp, it
    sends INT32_MAX and INT32_MIN to the same end of the clamp (a positive offset wraps INT32_MAX
    to the bottom, a negative one wraps INT32_MIN to the top). With offset 0, every unit's
    ``|acc| * scale`` must stay below ``2^31 - 1``, bounding ``|acc|`` by the weights and bias
    (constant; ``None`` when not, then the int32 accumulator's own range bounds it)."""
    if output_offset != 0:
        return True
    reach: np.ndarray | int = 1 << 31
    if weights is not None:
        w = np.abs(np.asarray(weights, np.int64) + int(filter_offset))
        x = max(abs(-128 + int(input_offset)), abs(127 + int(input_offset)))
        b = 0 if bias is None else np.abs(np.asarray(bias, np.int64).reshape(-1))
        reach = np.minimum(w.sum(axis=1) * x + b, 1 << 31)
    scaled = np.asarray(reach, np.float64) * np.asarray(scales, np.float64).reshape(-1)
    return bool(np.all(scaled < float((1 << 31) - 1)))


def integer_requant_values(
    acc: np.ndarray, multiplier: np.ndarray, left: int, right: int, fused_offset: int | None = None
) -> np.ndarray:
    """The three vector steps of the module docstring, lane by lane, in int64. With
    ``fused_offset`` the offset enters the multiply (VQRDMLASH) and the result includes it."""
    u = np.clip(acc.astype(np.int64) << left, INT32_MIN, INT32_MAX)
    if fused_offset is None:
        t = np.clip((2 * u * multiplier + (1 << 31)) >> 32, INT32_MIN, INT32_MAX)
    else:
        # floor((p + a * 2^32 + 2^31) / 2^32) = floor((p + 2^31) / 2^32) + a: the addend stays
        # out of the 64-bit product.
        addend = int(fused_offset) << right
        t = np.clip(((2 * u * multiplier + (1 << 31)) >> 32) + addend, INT32_MIN, INT32_MAX)
    rounded: np.ndarray = (t + (1 << (right - 1))) >> right
    return rounded


def fused_addend(offset: int, right: int) -> int | None:
    """``offset << right`` as the int32 scalar VQRDMLASH adds, or None when it does not fit."""
    addend = int(offset) << int(right)
    return addend if INT32_MIN <= addend <= INT32_MAX else None


def _parameters(scales: np.ndarray, span: int) -> IntegerRequant | None:
    """The left shift that keeps the unclamped accumulators (|acc| * smallest scale <= span) in
    31 bits, and the right shift and multipliers that leave the largest scale 31 bits."""
    smallest, largest = float(scales.min()), float(scales.max())
    if not (0.0 < smallest and largest < 0.5):
        return None
    reach = int(np.ceil(span / smallest)) + 4
    left = max(0, int(np.floor(np.log2(INT32_MAX / reach))))
    grow = int(np.floor(-np.log2(largest)))  # 2^grow * largest in [0.5, 1]
    while grow > 0 and round(largest * 2.0 ** (31 + grow)) > INT32_MAX:
        grow -= 1
    left = min(left, 31 - grow)
    right = left + grow
    if right < 1:
        return None
    multipliers = np.rint(scales * 2.0 ** (31 + grow)).astype(np.int64)
    if multipliers.min() < 1 or multipliers.max() > INT32_MAX:
        return None
    return IntegerRequant(multipliers, left, right)


def integer_requant(
    scales: np.ndarray, output_offset: int, act_min: int, act_max: int, *, fused: bool = False
) -> IntegerRequant | None:
    """The integer form for these double ``scales`` (per unit, or one) when it gives the same
    int8 outputs as the double form on every int32 accumulator, else None.

    ``act_min`` / ``act_max`` are the kernel's clamp (already within int8). ``fused`` proves the
    form that adds the output offset in the multiply (and needs ``offset << right`` in int32).
    """
    scales = np.asarray(scales, np.float64).reshape(-1)
    lo, hi = int(act_min), int(act_max)
    if scales.size == 0 or lo > hi:
        return None
    span = max(abs(lo - output_offset), abs(hi - output_offset)) + 2
    found = _parameters(scales, span)
    if found is not None and fused:
        # The addend offset << right must fit int32: a large offset takes smaller shifts (less
        # precision, which the check below judges).
        while found.left > 0 and fused_addend(output_offset, found.right) is None:
            found = IntegerRequant(found.multipliers, found.left - 1, found.right - 1)
    if found is None or (fused and fused_addend(output_offset, found.right) is None):
        return None
    fused_offset = int(output_offset) if fused else None
    after = 0 if fused else int(output_offset)  # what is added to the form's result
    # Where the clamped double form steps from k to k + 1 (k + offset in [lo - 1, hi]): the
    # accumulators around (k + 0.5) / scale, and the range's two ends, for every unit at once.
    steps = np.arange(lo - output_offset - 1, hi - output_offset + 1, dtype=np.float64) + 0.5
    s = scales[:, None]
    centres = np.floor(steps[None, :] / s).astype(np.int64)
    # The first accumulator at k + 1 is centre + 1, or centre or centre + 2 when the division
    # rounded across an integer; checking it and the one before it is what the proof needs.
    points = (centres[:, :, None] + np.arange(-1, 3)[None, None, :]).reshape(scales.size, -1)
    below = np.floor((lo - output_offset - 1.5) / scales).astype(np.int64) - 3
    above = np.ceil((hi - output_offset + 1.5) / scales).astype(np.int64) + 3
    points = np.clip(np.concatenate([below[:, None], points, above[:, None]], axis=1), INT32_MIN, INT32_MAX)
    exact = np.clip(double_requant(points, s) + output_offset, lo, hi)
    # The ends must already be clamped, so that monotonicity covers everything beyond them.
    if not (np.all(exact[:, 0] == lo) and np.all(exact[:, -1] == hi)):
        return None
    # A multiplier one or a few steps off the nearest moves the few accumulators that land on
    # the wrong side of a tie, so each unit takes the nearest that agrees everywhere.
    multipliers = found.multipliers.copy()
    pending = np.ones(scales.size, bool)
    for nudge in NUDGES:
        trial = np.clip(found.multipliers + nudge, 1, INT32_MAX)
        values = integer_requant_values(
            points[pending], trial[pending, None], found.left, found.right, fused_offset
        )
        agrees = np.all(np.clip(values + after, lo, hi) == exact[pending], axis=1)
        index = np.nonzero(pending)[0][agrees]
        multipliers[index] = trial[index]
        pending[index] = False
        if not pending.any():
            break
    if pending.any():
        return None
    return IntegerRequant(multipliers, found.left, found.right)
