"""The fast requantization helpers of hk_requant.h equal LiteRT's MultiplyByQuantizedMultiplier.

hk_requant, hk_requant_right and hk_requant_s8_narrow rewrite the fixed-point steps (the sign-
dependent nudge, the rounding division, a saturating add) for fewer instructions; each must give
the reference's integers for every input its conditions admit. They are header-only, so a small
shim exports them (and the row function, which picks a form per call) for ctypes. Inputs are
random int32 values weighted towards the limits, where the rewrites could go wrong.
"""

from __future__ import annotations

import ctypes
import subprocess

import numpy as np
import pytest
from helia_aot_ops_builtin.families import include_flags

from ops_builtin.support import conv_family_refmodels as ref
from ops_builtin.support.cbuild import CFLAGS

SHIM = r"""
#include "hk_requant.h"

void shim_requant(const int32_t *x, const int32_t *m, const int32_t *s, int32_t n, int32_t *out)
{
    for (int32_t i = 0; i < n; ++i) out[i] = hk_requant(x[i], m[i], s[i]);
}

void shim_right(const int32_t *x, const int32_t *m, const int32_t *s, int32_t n, int32_t *out)
{
    for (int32_t i = 0; i < n; ++i) out[i] = hk_requant_right(x[i], m[i], s[i]);
}

void shim_narrow(const int32_t *x, const int32_t *m, const int32_t *s, int32_t n, int32_t offset,
                 int32_t lo, int32_t hi, int32_t *out)
{
    for (int32_t i = 0; i < n; ++i) out[i] = hk_requant_s8_narrow(x[i], m[i], s[i], offset, lo, hi);
}

int32_t shim_row(const int32_t *acc, const int32_t *m, const int32_t *s, int32_t n, int32_t offset,
                 int32_t lo, int32_t hi, int8_t *out)
{
    const int32_t mode = hk_requant_mode(m, s, n);
    hk_requant_row_s8(acc, m, s, n, offset, lo, hi, mode, out);
    return mode;
}
"""

I32 = np.int32
P = ctypes.c_void_p
N = 20000


@pytest.fixture(scope="module")
def shim(tmp_path_factory):
    folder = tmp_path_factory.mktemp("requant")
    (folder / "shim.c").write_text(SHIM)
    lib = folder / "shim.so"
    subprocess.run(
        ["gcc", *CFLAGS, *include_flags(), str(folder / "shim.c"), "-o", str(lib)],
        check=True,
        capture_output=True,
        text=True,
    )
    return ctypes.CDLL(str(lib))


def _values(rng, n):
    """int32 values, a quarter of them within 2^16 of a limit."""
    x = rng.integers(-(2**31), 2**31, n, dtype=np.int64)
    near = rng.random(n) < 0.25
    x[near] = np.where(rng.random(near.sum()) < 0.5, 2**31 - 1, -(2**31)) - np.sign(
        rng.random(near.sum()) - 0.5
    ).astype(np.int64) * rng.integers(0, 1 << 16, near.sum())
    return np.clip(x, -(2**31), 2**31 - 1).astype(I32)


def _call(fn, *arrays, extra=(), out_dtype=I32):
    out = np.zeros(arrays[0].size, out_dtype)
    args = [P(a.ctypes.data) for a in arrays] + [ctypes.c_int32(arrays[0].size)]
    args += [ctypes.c_int32(v) for v in extra] + [P(out.ctypes.data)]
    result = fn(*args)
    return out, result


def test_requant_equals_the_reference_for_every_shift(shim):
    rng = np.random.default_rng(1)
    x, m = _values(rng, N), _values(rng, N)
    m[:50] = -(2**31)  # the multiplier whose doubling product saturates
    x[:25] = -(2**31)
    s = rng.integers(-31, 31, N, endpoint=True).astype(I32)
    got, _ = _call(shim.shim_requant, x, m, s)
    np.testing.assert_array_equal(got, ref.mbqm(x, m, s).astype(I32))


def test_right_form_equals_the_reference_without_left_shifts(shim):
    rng = np.random.default_rng(2)
    x = _values(rng, N)
    m = rng.integers(-(2**31) + 1, 2**31, N).astype(I32)
    s = rng.integers(-31, 0, N, endpoint=True).astype(I32)
    got, _ = _call(shim.shim_right, x, m, s)
    np.testing.assert_array_equal(got, ref.mbqm(x, m, s).astype(I32))


@pytest.mark.parametrize("act", [(-128, 127), (-7, 90), (127, 127)])
def test_narrow_form_equals_the_reference_after_the_int8_clamp(shim, act):
    rng = np.random.default_rng(3)
    x = _values(rng, N)
    m = rng.integers(-(2**31) + 1, 2**31, N).astype(I32)
    m[:100] = 2**31 - 1
    x[:100] = 2**31 - 1  # y within 2^(e-1) of INT32_MAX: the add saturates
    s = rng.integers(-23, -1, N, endpoint=True).astype(I32)
    offset = -128
    got, _ = _call(shim.shim_narrow, x, m, s, extra=(offset, *act))
    expected = np.clip(ref.mbqm(x, m, s) + offset, *act)
    np.testing.assert_array_equal(got, expected.astype(I32))


@pytest.mark.parametrize(("shift_range", "mode"), [((-31, 5), 0), ((-31, 0), 1), ((-23, -1), 2)])
def test_row_picks_the_cheapest_exact_form(shim, shift_range, mode):
    rng = np.random.default_rng(4)
    n = 1001
    acc, m = _values(rng, n), rng.integers(1 << 30, 2**31, n).astype(I32)
    s = rng.integers(*shift_range, n, endpoint=True).astype(I32)
    s[0] = shift_range[1]
    shim.shim_row.restype = ctypes.c_int32
    got, picked = _call(shim.shim_row, acc, m, s, extra=(3, -100, 120), out_dtype=np.int8)
    assert picked == mode
    expected = ref.requantize(acc, None, m, s, 3, (-100, 120), np.int8)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("n", [0, 1, 3, 4, 5, 8, 9])
@pytest.mark.parametrize(
    "case",
    ["narrow", "zero_shift", "deep_shift", "left_shift", "unit_left_shift", "int32_min", "negative"],
)
def test_mode_is_read_from_every_channel_whatever_the_count(shim, n, case):
    # The mode loop takes four channels per step and then the rest one by one: the odd channel
    # (last here) decides the mode wherever it falls, and the row is exact in every mode.
    rng = np.random.default_rng(n)
    acc, m = _values(rng, max(n, 1)), rng.integers(1 << 30, 2**31, max(n, 1)).astype(I32)
    s = rng.integers(-23, -1, max(n, 1), endpoint=True).astype(I32)
    odd = {"zero_shift": (0, None), "deep_shift": (-24, None), "left_shift": (2, None)}
    odd["unit_left_shift"] = (1, None)
    odd |= {"int32_min": (-5, -(2**31)), "negative": (-5, -(1 << 30))}
    expected_mode = {"narrow": 2, "zero_shift": 1, "deep_shift": 1, "left_shift": 0, "int32_min": 0}
    expected_mode["unit_left_shift"] = 0
    expected_mode["negative"] = 0  # not a real multiplier: the general form, exact for any value
    if n and case in odd:
        s[n - 1], mult = odd[case]
        if mult is not None:
            m[n - 1] = mult
    shim.shim_row.restype = ctypes.c_int32
    out = np.zeros(max(n, 1), np.int8)
    pointers = [P(a.ctypes.data) for a in (acc, m, s)]
    numbers = [ctypes.c_int32(v) for v in (n, 3, -100, 120)]
    picked = shim.shim_row(*pointers, *numbers, P(out.ctypes.data))
    assert picked == (expected_mode[case] if n else 2)
    expected = ref.requantize(acc[:n], None, m[:n], s[:n], 3, (-100, 120), np.int8)
    np.testing.assert_array_equal(out[:n], expected)
