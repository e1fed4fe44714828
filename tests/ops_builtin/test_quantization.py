"""Conversion-time multipliers: exact LiteRT QuantizeMultiplier, typed rejection of impossible scales."""

from __future__ import annotations

import math

import pytest
from helia_aot_ops_builtin.quantization import quantize_multiplier
from hypothesis import given
from hypothesis import strategies as st


@given(st.floats(min_value=1e-30, max_value=1e30, allow_nan=False, allow_infinity=False))
def test_multiplier_and_shift_reconstruct_the_scale(real):
    multiplier, shift = quantize_multiplier(real)
    if multiplier == 0:
        assert real < 2.0**-31  # LiteRT flushes scales below Q31 range to zero
        return
    assert (1 << 30) <= multiplier < (1 << 31)
    assert math.isclose(multiplier * 2.0 ** (shift - 31), real, rel_tol=2.0**-30)


@pytest.mark.parametrize("bad", [math.inf, -math.inf, math.nan])
def test_non_finite_scale_is_a_value_error(bad):
    # Resolve turns ValueError into an UnsupportedModelError naming the operator (fuzzing found a
    # LEAKY_RELU alpha of 3.4e38 that overflowed to infinity here).
    with pytest.raises(ValueError, match="not finite"):
        quantize_multiplier(bad)
