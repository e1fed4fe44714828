"""Conversion-time multipliers: exact LiteRT QuantizeMultiplier, typed rejection of impossible scales;
CheckedLog2 against the reference's arithmetic compiled from C."""

from __future__ import annotations

import ctypes
import functools
import math
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from helia_aot.testing import require_tools
from helia_aot_ops_builtin.common.quantization import checked_log2, quantize_multiplier
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


# LiteRT's CheckedLog2 (quantization_util.cc) restated in C: float32 logf of x times the float32
# reciprocal of logf(2), rounded half away from zero, accepted when the float32 fractional part
# is below 1e-3f. Compiled with the host compiler against the same C library.
_CHECKED_LOG2_C = r"""
#include <math.h>
int reference_checked_log2(float x, int *log2_result) {
    const float x_log2 = logf(x) * (1.0f / logf(2.0f));
    const float rounded = roundf(x_log2);
    if (!isfinite(rounded)) return 0;
    *log2_result = (int)rounded;
    return fabsf(x_log2 - rounded) < 1e-3f;
}
"""


@functools.cache
def _reference_checked_log2() -> Callable[[float], int | None]:
    folder = Path(tempfile.mkdtemp(prefix="checked_log2_"))
    (folder / "ref.c").write_text(_CHECKED_LOG2_C)
    subprocess.run(
        ["gcc", "-std=c99", "-O0", "-Wall", "-Wextra", "-Werror", "-fPIC", "-shared",
         str(folder / "ref.c"), "-o", str(folder / "ref.so"), "-lm"],
        check=True,
        capture_output=True,
    )  # fmt: skip
    fn = ctypes.CDLL(str(folder / "ref.so")).reference_checked_log2
    fn.argtypes = [ctypes.c_float, ctypes.POINTER(ctypes.c_int)]
    fn.restype = ctypes.c_int

    def checked(x: float) -> int | None:
        out = ctypes.c_int(0)
        return out.value if fn(x, ctypes.byref(out)) else None

    return checked


@st.composite
def _near_powers(draw: st.DrawFn) -> float:
    """Scales at and around powers of two, where the three earlier copies could disagree: a few
    ulps off 2^e, and near the 1e-3 threshold (2^(e +- 0.001))."""
    exponent = draw(st.integers(-40, 40))
    offset = draw(st.sampled_from([0.0, 0.0009995, 0.001, 0.0010005, 0.5]))
    x = np.float32(2.0 ** (exponent + draw(st.sampled_from([1, -1])) * offset))
    for _ in range(draw(st.integers(0, 3))):
        x = np.nextafter(x, np.float32(np.inf) if draw(st.booleans()) else np.float32(0.0))
    return float(x)


@given(st.one_of(_near_powers(), st.floats(min_value=0.0, max_value=2.0**100, width=32)))
def test_checked_log2_is_the_references(x):
    require_tools("gcc")
    assert checked_log2(x) == _reference_checked_log2()(x)


def test_checked_log2_on_powers_of_two_and_others():
    assert [checked_log2(2.0**e) for e in (-15, -7, 0, 3)] == [-15, -7, 0, 3]
    assert checked_log2(1.0 / 3.0) is None
    assert checked_log2(0.0) is None
    assert checked_log2(-0.25) is None
