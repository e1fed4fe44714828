"""The converter's integer FULLY_CONNECTED requantization equals the double one wherever it is used.

``integer_requant`` only checks a few accumulators per output step and relies on both forms
being monotone; here every accumulator of the unclamped range (and the int32 extremes) is
compared for the scales hypothesis draws, including scales with exact rounding ties, which the
vector form rounds the other way unless a nudged multiplier moves them. Both forms are checked:
the output offset added after the shift (the kernel library's blocks) and added in the multiply
(``fused``, VQRDMLASH in the per-layer Helium loops of fc_helium).
"""

from __future__ import annotations

import numpy as np
from helia_aot_ops_builtin.fully_connected.fc_integer_requant import (
    INT32_MAX,
    INT32_MIN,
    double_requant,
    fused_addend,
    integer_requant,
    integer_requant_values,
)
from hypothesis import given, settings
from hypothesis import strategies as st


def assert_equal_everywhere(scales, offset, lo, hi, fused=False) -> bool:
    """Compare both forms on every accumulator that can matter; False when the check refused."""
    found = integer_requant(scales, offset, lo, hi, fused=fused)
    if found is None:
        return False
    scales = np.asarray(scales, np.float64).reshape(-1)
    for unit, scale in enumerate(scales):
        multiplier = int(found.multipliers[unit])
        reach = int((max(abs(lo - offset), abs(hi - offset)) + 4) / scale)
        acc = np.concatenate(
            [np.arange(-reach, reach + 1), [INT32_MIN, INT32_MIN + 1, INT32_MAX - 1, INT32_MAX]]
        ).astype(np.int64)
        exact = np.clip(double_requant(acc, scale) + offset, lo, hi)
        if fused:
            assert fused_addend(offset, found.right) is not None
            values = integer_requant_values(acc, multiplier, found.left, found.right, offset)
        else:
            values = integer_requant_values(acc, multiplier, found.left, found.right) + offset
        fast = np.clip(values, lo, hi)
        mismatches = acc[exact != fast]
        assert mismatches.size == 0, (scale, offset, lo, hi, mismatches[:5])
    return True


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    scales=st.lists(st.floats(2e-3, 0.45), min_size=1, max_size=12),
    offset=st.integers(-128, 127),
    bounds=st.tuples(st.integers(-128, 127), st.integers(-128, 127)),
    fused=st.booleans(),
)
def test_accepted_multipliers_give_the_double_outputs(scales, offset, bounds, fused):
    lo, hi = sorted(bounds)
    assert_equal_everywhere(scales, offset, lo, hi, fused)


def test_fused_form_fits_large_offsets_by_smaller_shifts():
    """offset << right must fit the int32 VQRDMLASH adds: a large offset with a small scale takes
    shifts one or more smaller than the unfused form, and stays exact."""
    scale = [0.0010264]
    plain = integer_requant(scale, 100, 100, 127)
    fused = integer_requant(scale, 100, 100, 127, fused=True)
    assert plain is not None and fused is not None
    assert fused_addend(100, plain.right) is None and fused.right < plain.right
    assert assert_equal_everywhere(scale, 100, 100, 127, fused=True)
    assert assert_equal_everywhere(scale, -128, -128, 127, fused=True)


def test_typical_layers_are_accepted():
    """Per-unit scales of a trained layer (AD's spread) and one per-tensor scale take the
    integer form: the check is not so strict that the fast path never runs."""
    rng = np.random.default_rng(7)
    for fused in (False, True):
        assert assert_equal_everywhere(rng.uniform(2e-3, 6e-3, 16), -128, -128, 127, fused)
        assert assert_equal_everywhere([0.0123], 5, -128, 127, fused)


def test_exact_ties_keep_the_double_form():
    """Scales of few bits put accumulators exactly on halves (-0.5 rounds to -1 in LiteRT, to
    0 in a rounding shift), and over the whole int8 range no nudge of the multiplier survives
    VQRDMULH's own rounding for 2^-4 and 2^-7, so the check refuses them; elsewhere a far nudge
    may (2^-4 over a narrower clamp takes one 129 steps away), and then it is exact on every
    accumulator, as are scales one ulp away wherever accepted."""
    for scale in (2.0**-4, 2.0**-7, 3 * 2.0**-9):
        if scale != 3 * 2.0**-9:
            assert integer_requant([scale], 0, -128, 127) is None
        assert_equal_everywhere([scale], 0, -128, 127)
        assert_equal_everywhere([scale], -3, -20, 90)
        for beside in (np.nextafter(scale, 0.0), np.nextafter(scale, 1.0)):
            assert_equal_everywhere([float(beside)], 0, -128, 127)


def test_out_of_range_scales_keep_the_double_form():
    assert integer_requant([0.5], 0, -128, 127) is None
    assert integer_requant([0.7, 0.01], 0, -128, 127) is None
    assert integer_requant([0.0], 0, -128, 127) is None
