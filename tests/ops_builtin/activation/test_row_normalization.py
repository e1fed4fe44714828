"""Hypothesis tests of the int8 L2 normalization and the lookup-table kernels against numpy models.

The models are written from LiteRT's reference arithmetic (GetInvSqrtQuantizedMultiplierExp and
reference_integer_ops::L2Normalization, LUTLookup), reusing the gemmlowp helpers of
activation_refmodels, not from the C kernels; the C kernels run under UBSan (cbuild.py).
"""

from __future__ import annotations

import ctypes

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.support.activation_refmodels import I32_MAX, clz32, mbqm, mul_pot, rdbpot, sat_rdhm
from ops_builtin.support.cbuild import build_kernels

I32 = ctypes.c_int32


class L2C(ctypes.Structure):
    _fields_ = [("outer_size", I32), ("depth", I32), ("input_zero_point", I32)]


def inv_sqrt(x: int) -> tuple[int, int]:
    """LiteRT GetInvSqrtQuantizedMultiplierExp(x, reverse_shift=-1)."""
    if x <= 1:
        return I32_MAX, 0
    shift = 11
    while x >= 1 << 29:
        x //= 4
        shift += 1
    pairs = (clz32(x) - 1) // 2 - 1
    shift -= pairs
    x <<= 2 * pairs
    half_input = int(rdbpot(x >> 1, 1))
    y = 1 << 28
    for _ in range(5):
        y3 = int(mul_pot(sat_rdhm(sat_rdhm(y, y), y), 6))
        diff = int(sat_rdhm((1 << 28) + (1 << 27), y)) - int(sat_rdhm(half_input, y3))
        y = int(mul_pot(diff, 3))
    y = int(sat_rdhm(y, 1518500250))
    if shift < 0:
        y <<= -shift
        shift = 0
    return y, -shift


def l2_norm_s8(x2d: np.ndarray, zero_point: int) -> np.ndarray:
    out = np.zeros_like(x2d)
    for r, row in enumerate(x2d.astype(np.int64) - zero_point):
        mult, shift = inv_sqrt(int((row * row).sum()))
        out[r] = np.clip(mbqm(row, mult, shift + 7), -128, 127)
    return out


@settings(deadline=None, max_examples=60)
@given(st.integers(1, 5), st.integers(1, 300), st.integers(-128, 127), st.integers(0, 2**32 - 1))
def test_l2_norm_s8(outer, depth, zero_point, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(-128, 128, (outer, depth)).astype(np.int8)
    if seed % 5 == 0:
        x[0] = zero_point  # a zero row: the reference's input <= 1 case
    out = np.zeros_like(x)
    fn = build_kernels("normalization").hk_l2_norm_s8
    params = L2C(outer, depth, zero_point)
    ptr8 = ctypes.POINTER(ctypes.c_int8)
    assert fn(ctypes.byref(params), x.ctypes.data_as(ptr8), out.ctypes.data_as(ptr8)) == 0
    np.testing.assert_array_equal(out, l2_norm_s8(x, zero_point))


def lut_lookup16(v: np.ndarray, lut: np.ndarray) -> np.ndarray:
    """LiteRT LUTLookup (int16): segment from the top 9 bits, interpolation over the low 7."""
    v = v.astype(np.int64)
    lut = lut.astype(np.int64)
    index = 256 + (v >> 7)
    base = lut[index]
    return (base + (((lut[index + 1] - base) * (v & 0x7F) + 64) >> 7)).astype(np.int16)


@settings(deadline=None, max_examples=60)
@given(st.integers(0, 2**32 - 1), st.integers(1, 700))
def test_table_s16_and_s8(seed, size):
    rng = np.random.default_rng(seed)
    lib = build_kernels("table")
    lut16 = rng.integers(-32768, 32768, 513).astype(np.int16)
    x16 = rng.integers(-32768, 32768, size).astype(np.int16)
    out16 = np.zeros_like(x16)
    p16 = ctypes.POINTER(ctypes.c_int16)
    assert (
        lib.hk_table_s16(
            lut16.ctypes.data_as(p16),
            x16.ctypes.data_as(p16),
            out16.ctypes.data_as(p16),
            ctypes.c_size_t(size),
        )
        == 0
    )
    np.testing.assert_array_equal(out16, lut_lookup16(x16, lut16))
    lut8 = rng.integers(-128, 128, 256).astype(np.int8)
    x8 = rng.integers(-128, 128, size).astype(np.int8)
    out8 = np.zeros_like(x8)
    p8 = ctypes.POINTER(ctypes.c_int8)
    assert (
        lib.hk_table_s8(
            lut8.ctypes.data_as(p8), x8.ctypes.data_as(p8), out8.ctypes.data_as(p8), ctypes.c_size_t(size)
        )
        == 0
    )
    np.testing.assert_array_equal(out8, lut8[x8.view(np.uint8)])
