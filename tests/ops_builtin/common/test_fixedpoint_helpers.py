"""Every helper of hk_common.h and hk_fixedpoint.h equals LiteRT's fixed-point arithmetic, alone.

The kernels reach these helpers only through whole operators, whose random inputs rarely land on
the values where a rounding rule or a saturation shows: a product of exactly -2^30 (a tie of the
doubling high multiply), x exactly at SaturatingRoundingMultiplyByPOT's threshold, INT32_MIN
squared, exp() exactly at -32. So a small shim exports each helper for ctypes, and each is
compared with the numpy models of gemmlowp and LiteRT (activation_refmodels, written from the
reference semantics, not from the C) on every pair of "edge" values (0, +-1, the int32 limits,
+-2^k, +-(2^k - 1), +-(2^k + 1), +-3 * 2^k) and on Hypothesis draws that mix edges with
arbitrary int32 values. bench/mutation.py measures how many deliberate bugs in these helpers
this file and the kernel tests catch (docs/testing-strength.md).
"""

from __future__ import annotations

import ctypes
import subprocess

import numpy as np
import pytest
from helia_aot_ops_builtin.families import include_flags
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.support import activation_refmodels as ref
from ops_builtin.support.cbuild import CFLAGS

I32_MIN, I32_MAX = -(2**31), 2**31 - 1

SHIM = r"""
#include "hk_fixedpoint.h"

#define UNARY(name, expr) \
    void name(const int32_t *a, int32_t n, int32_t *out) \
    { for (int32_t i = 0; i < n; ++i) { const int32_t x = a[i]; out[i] = (expr); } }
#define BINARY(name, expr) \
    void name(const int32_t *a, const int32_t *b, int32_t n, int32_t *out) \
    { for (int32_t i = 0; i < n; ++i) { const int32_t x = a[i], y = b[i]; out[i] = (expr); } }
#define TERNARY(name, expr) \
    void name(const int32_t *a, const int32_t *b, const int32_t *c, int32_t n, int32_t *out) \
    { for (int32_t i = 0; i < n; ++i) { const int32_t x = a[i], y = b[i], z = c[i]; out[i] = (expr); } }

BINARY(t_min, hk_min_i32(x, y))
BINARY(t_max, hk_max_i32(x, y))
TERNARY(t_clamp, hk_clamp_i32(x, y, z))
BINARY(t_sat_rdhm, hk_sat_rdhm(x, y))
BINARY(t_rdbpot, hk_rdbpot(x, y))
TERNARY(t_mbqm, hk_mbqm(x, y, z))
TERNARY(t_mbqm_smaller, hk_mbqm_smaller_than_one(x, y, z))
TERNARY(t_mbqm_greater, hk_mbqm_greater_than_one(x, y, z))
UNARY(t_sat_s8, hk_sat_s8(x))
UNARY(t_sat_s16, hk_sat_s16(x))
UNARY(t_clz, hk_clz_u32((uint32_t)x))
BINARY(t_fp_add, hk_fp_add(x, y))
BINARY(t_fp_sub, hk_fp_sub(x, y))
BINARY(t_half_sum, hk_fp_rounding_half_sum(x, y))
BINARY(t_mul_pot, hk_fp_mul_pot(x, y))
UNARY(t_exp_interval, hk_fp_exp_on_interval(x))
BINARY(t_exp_negative, hk_fp_exp_on_negative_values(x, y))
UNARY(t_one_over, hk_fp_one_over_one_plus_x(x))

void t_mbqm_64(const int64_t *a, const int32_t *b, const int32_t *c, int32_t n, int32_t *out)
{
    for (int32_t i = 0; i < n; ++i) out[i] = hk_mbqm_64(a[i], b[i], c[i]);
}

void t_clamp_f32(const float *a, const float *b, const float *c, int32_t n, float *out)
{
    for (int32_t i = 0; i < n; ++i) out[i] = hk_clamp_f32(a[i], b[i], c[i]);
}

void t_reciprocal(const int32_t *a, const int32_t *b, int32_t n, int32_t *out, int32_t *bits)
{
    for (int32_t i = 0; i < n; ++i) out[i] = hk_fp_reciprocal(a[i], b[i], &bits[i]);
}
"""


def _edges() -> np.ndarray:
    values = {0, 1, -1, 2, -2, I32_MIN, I32_MIN + 1, I32_MAX, I32_MAX - 1}
    for k in range(31):
        for v in (1 << k, (1 << k) - 1, (1 << k) + 1, 3 << k if k < 30 else 0):
            values |= {v, -v}
    return np.array(sorted(v for v in values if I32_MIN <= v <= I32_MAX), np.int64)


EDGES = _edges()
INT32 = st.integers(I32_MIN, I32_MAX)
EDGE_OR_ANY = st.one_of(st.sampled_from([int(v) for v in EDGES]), INT32)


def _pairs(xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.meshgrid(xs, ys, indexing="ij")
    return a.ravel(), b.ravel()


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fixedpoint")
    (folder / "shim.c").write_text(SHIM)
    path = folder / "shim.so"
    subprocess.run(
        ["gcc", *CFLAGS, *include_flags(), str(folder / "shim.c"), "-o", str(path)],
        check=True,
        capture_output=True,
        text=True,
    )
    return ctypes.CDLL(str(path))


def call(lib, name: str, *args) -> np.ndarray:
    """Run shim function ``name`` elementwise over int32 arrays (broadcast to one length)."""
    arrays = [np.ascontiguousarray(a, np.int32) for a in np.broadcast_arrays(*args)]
    out = np.zeros(arrays[0].size, np.int32)
    pointers = [ctypes.c_void_p(a.ctypes.data) for a in arrays]
    getattr(lib, name)(*pointers, ctypes.c_int32(out.size), ctypes.c_void_p(out.ctypes.data))
    return out.astype(np.int64)


# ---- hk_common.h -------------------------------------------------------------------------------


def test_min_max_and_clamp_on_edge_values(lib):
    a, b = _pairs(EDGES, EDGES)
    np.testing.assert_array_equal(call(lib, "t_min", a, b), np.minimum(a, b))
    np.testing.assert_array_equal(call(lib, "t_max", a, b), np.maximum(a, b))
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    for x in (EDGES[::7], np.array([0, 5, -5, I32_MIN, I32_MAX])):
        xs, los = _pairs(x, lo)
        _, his = _pairs(x, hi)
        np.testing.assert_array_equal(call(lib, "t_clamp", xs, los, his), np.clip(xs, los, his))


def test_clamp_f32_on_ordered_bounds(lib):
    values = np.array([-np.inf, -3.5, -1.0, 0.0, 0.25, 1.0, 6.0, np.inf], np.float32)
    grid = np.array(np.meshgrid(values, values, values, indexing="ij")).reshape(3, -1)
    x, lo, hi = (np.ascontiguousarray(row) for row in grid[:, grid[1] <= grid[2]])
    out = np.zeros(x.size, np.float32)
    args = [ctypes.c_void_p(v.ctypes.data) for v in (x, lo, hi)]
    lib.t_clamp_f32(*args, ctypes.c_int32(x.size), ctypes.c_void_p(out.ctypes.data))
    np.testing.assert_array_equal(out, np.minimum(np.maximum(x, lo), hi))


def test_saturating_rounding_doubling_high_mul_on_every_edge_pair(lib):
    # The pairs include INT32_MIN * INT32_MIN (the one saturating product) and the ties: a*b an
    # odd multiple of 2^30, positive (rounds up) or negative (rounds towards zero, gemmlowp's nudge).
    a, b = _pairs(EDGES, EDGES)
    np.testing.assert_array_equal(call(lib, "t_sat_rdhm", a, b), ref.sat_rdhm(a, b))


@given(st.lists(st.tuples(EDGE_OR_ANY, EDGE_OR_ANY), min_size=1, max_size=64))
@settings(max_examples=60)
def test_saturating_rounding_doubling_high_mul_on_draws(lib, pairs):
    a, b = np.array(pairs, np.int64).T
    np.testing.assert_array_equal(call(lib, "t_sat_rdhm", a, b), ref.sat_rdhm(a, b))


def test_rounding_divide_by_pot_for_every_exponent(lib):
    # Exponent 0 returns x; the edges put x on every tie (+-2^(e-1), +-3 * 2^(e-1)) for each e.
    x, e = _pairs(EDGES, np.arange(0, 32))
    np.testing.assert_array_equal(call(lib, "t_rdbpot", x, e), ref.rdbpot(x, e))


@given(st.lists(st.tuples(EDGE_OR_ANY, EDGE_OR_ANY, st.integers(-31, 31)), min_size=1, max_size=64))
@settings(max_examples=60)
def test_multiply_by_quantized_multiplier_on_draws(lib, rows):
    x, m, s = np.array(rows, np.int64).T
    np.testing.assert_array_equal(call(lib, "t_mbqm", x, m, s), ref.mbqm(x, m, s))


def test_multiply_by_quantized_multiplier_forms_on_edges(lib):
    # Multipliers as QuantizeMultiplier gives them ([2^30, 2^31)) and the odd ones (0, negative,
    # INT32_MIN); shifts over the whole range, split by sign for the one-sided forms.
    mults = np.array([0, 1, 1 << 30, (1 << 30) + 1, 1518500250, I32_MAX, -(1 << 30), I32_MIN], np.int64)
    x, m = _pairs(EDGES, mults)
    for shifts, name in ((range(-31, 32), "t_mbqm"), (range(-31, 1), "t_mbqm_smaller")):
        xs, s = _pairs(x, np.array(shifts))
        ms = np.repeat(m, len(shifts))
        np.testing.assert_array_equal(call(lib, name, xs, ms, s), ref.mbqm(xs, ms, s))
    xs, s = _pairs(x, np.arange(0, 32))
    ms = np.repeat(m, 32)
    expected = ref.sat_rdhm(ref.wrap32(xs << s), ms)
    np.testing.assert_array_equal(call(lib, "t_mbqm_greater", xs, ms, s), expected)


def mbqm_64_exact(x: int, multiplier: int, shift: int) -> int:
    """LiteRT MultiplyByQuantizedMultiplier(int64_t): a 16-bit rounded multiplier, one rounding
    shift; in Python integers, so a result past int32 shows instead of wrapping."""
    reduced = (multiplier + (1 << 15)) >> 16 if multiplier < 0x7FFF0000 else 0x7FFF
    total_shift = 15 - shift
    return (x * reduced + (1 << (total_shift - 1))) >> total_shift


def _mbqm_64_cases(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LiteRT's domain: multiplier >= 0, shift in [-31, 7], |x| < 2^47; with the multipliers
    around 0x7FFF0000, where the reduction stops rounding, and the int32 limits."""
    x = rng.integers(-(1 << 47) + 1, 1 << 47, n)
    x[: n // 4] = rng.integers(-(1 << 20), 1 << 20, n // 4)
    m = rng.integers(0, 1 << 31, n)
    m[: n // 8] = 0x7FFF0000 + rng.integers(-(1 << 17), 1 << 16, n // 8)
    m[n // 8 : n // 8 + 4] = (0x7FFF0000, 0x7FFEFFFF, 0x7FFE8000, 0x7FFE7FFF)
    s = rng.integers(-31, 7, n, endpoint=True)
    return x, m, s


def test_multiply_by_quantized_multiplier_64_matches_litert_and_keeps_the_low_bits(lib):
    # Within int32 the result is LiteRT's; past it (LiteRT only DCHECKs that it fits) the helper
    # keeps the low 32 bits as the reference's static_cast<int32_t> does, so a 16x8 kernel whose
    # effective scale takes the shift to 8..14 wraps like the reference (graph fuzzer 3:947).
    x, m, s = _mbqm_64_cases(np.random.default_rng(64), 20000)
    s[-2000:] = np.random.default_rng(65).integers(8, 14, 2000, endpoint=True)
    exact = np.array([mbqm_64_exact(int(a), int(b), int(c)) for a, b, c in zip(x, m, s)], object)
    out = np.zeros(x.size, np.int32)
    arrays = [np.ascontiguousarray(x, np.int64), np.ascontiguousarray(m, np.int32), s.astype(np.int32)]
    lib.t_mbqm_64(
        *[ctypes.c_void_p(a.ctypes.data) for a in arrays],
        ctypes.c_int32(x.size),
        ctypes.c_void_p(out.ctypes.data),
    )
    expected = np.array([(v + (1 << 31)) % (1 << 32) - (1 << 31) for v in exact], np.int64)
    assert (exact > I32_MAX).sum() > 100 and (exact < I32_MIN).sum() > 100
    np.testing.assert_array_equal(out, expected)


def test_saturating_casts(lib):
    x = np.concatenate([EDGES, np.arange(-40000, 40000, 7)])
    np.testing.assert_array_equal(call(lib, "t_sat_s8", x), np.clip(x, -128, 127))
    np.testing.assert_array_equal(call(lib, "t_sat_s16", x), np.clip(x, -32768, 32767))


# ---- hk_fixedpoint.h ---------------------------------------------------------------------------


def test_count_leading_zeros_including_zero(lib):
    expected = [ref.clz32(int(v)) for v in EDGES]
    np.testing.assert_array_equal(call(lib, "t_clz", EDGES), expected)
    assert ref.clz32(0) == 32 and call(lib, "t_clz", [0])[0] == 32


def test_wrapping_add_sub_and_rounding_half_sum(lib):
    a, b = _pairs(EDGES, EDGES)
    np.testing.assert_array_equal(call(lib, "t_fp_add", a, b), ref.wrap32(a + b))
    np.testing.assert_array_equal(call(lib, "t_fp_sub", a, b), ref.wrap32(a - b))
    s = a + b
    expected = ref.trunc_div(s + np.where(s >= 0, 1, -1), 2)  # gemmlowp RoundingHalfSum
    np.testing.assert_array_equal(call(lib, "t_half_sum", a, b), expected)


def test_saturating_rounding_multiply_by_pot_for_every_exponent(lib):
    # The edges include 2^(31-e) - 1 and its negation, the last values that shift without
    # saturating, for every e, and the ties of every right shift.
    for e in range(-31, 32):
        np.testing.assert_array_equal(call(lib, "t_mul_pot", EDGES, e), ref.mul_pot(EDGES, e))


def test_exp_on_interval_between_minus_a_quarter_and_zero(lib):
    rng = np.random.default_rng(5)
    a = np.concatenate(
        [EDGES[(EDGES >= -(1 << 29)) & (EDGES < 0)], rng.integers(-(1 << 29), 0, 20000), [-(1 << 29)]]
    )
    np.testing.assert_array_equal(call(lib, "t_exp_interval", a), ref.exp_on_interval(a))


@pytest.mark.parametrize("integer_bits", [0, 1, 2, 4, 5, 6, 8, 12, 20])
def test_exp_on_negative_values(lib, integer_bits):
    # Every barrel factor applies (a down to INT32_MIN), the clamp at -32 for more than five
    # integer bits is crossed at and around its threshold, and a == 0 gives one.
    rng = np.random.default_rng(integer_bits)
    unit = 1 << (31 - integer_bits)
    special = [0, -1, -unit, -unit // 4, -unit // 4 - 1, I32_MIN]
    if integer_bits > 5:
        special += [-32 * unit + d for d in (-1, 0, 1)] + [-16 * unit + d for d in (-1, 0, 1)]
    a = np.concatenate([EDGES[EDGES <= 0], rng.integers(I32_MIN, 1, 20000), special])
    got = call(lib, "t_exp_negative", a, integer_bits)
    np.testing.assert_array_equal(got, ref.exp_on_negative_values(a, integer_bits))


def test_one_over_one_plus_x_on_zero_to_one(lib):
    rng = np.random.default_rng(6)
    a = np.concatenate([EDGES[EDGES >= 0], rng.integers(0, I32_MAX, 20000, endpoint=True)])
    np.testing.assert_array_equal(call(lib, "t_one_over", a), ref.one_over_one_plus_x(a))


@pytest.mark.parametrize("integer_digits", [0, 5, 12, 31])
def test_reciprocal_scale_and_bit_count(lib, integer_digits):
    rng = np.random.default_rng(integer_digits)
    x = np.concatenate([EDGES[EDGES > 0], rng.integers(1, I32_MAX, 5000, endpoint=True)]).astype(np.int32)
    digits = np.full(x.size, integer_digits, np.int32)
    out, bits = np.zeros(x.size, np.int32), np.zeros(x.size, np.int32)
    pointers = [ctypes.c_void_p(v.ctypes.data) for v in (x, digits)]
    lib.t_reciprocal(
        *pointers, ctypes.c_int32(x.size), ctypes.c_void_p(out.ctypes.data), ctypes.c_void_p(bits.ctypes.data)
    )
    headroom = np.array([ref.clz32(int(v)) for v in x], np.int64)
    shifted = ((x.astype(np.int64) << headroom) & 0xFFFFFFFF) - (1 << 31)  # LiteRT GetReciprocal
    np.testing.assert_array_equal(bits, integer_digits - headroom)
    np.testing.assert_array_equal(out, ref.one_over_one_plus_x(shifted))
