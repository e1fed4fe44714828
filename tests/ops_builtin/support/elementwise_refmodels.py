"""Numpy models of the LiteRT reference kernels behind hk_binary, hk_quantize and hk_reduce.

Integer models run in int64 numpy arithmetic (exact) and repeat LiteRT's fixed-point steps one by
one; float models compute in float32 in LiteRT's order of operations. Broadcasting uses numpy's
own rules, independent of the folded loop geometry the kernels receive.
"""

from __future__ import annotations

import numpy as np

I64 = np.int64
F32 = np.float32
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
RANGES = {np.dtype(np.int8): (-128, 127), np.dtype(np.int16): (-32768, 32767)}


def wrap32(x) -> np.ndarray:
    return ((np.asarray(x, I64) + (1 << 31)) % (1 << 32)) - (1 << 31)


def srdhm(a, b) -> np.ndarray:
    """gemmlowp SaturatingRoundingDoublingHighMul."""
    a, b = np.broadcast_arrays(np.asarray(a, I64), np.asarray(b, I64))
    ab = a * b
    v = ab + np.where(ab >= 0, I64(1 << 30), I64(1 - (1 << 30)))
    q = np.where(v >= 0, v >> 31, -((-v) >> 31))
    return np.where((a == INT32_MIN) & (b == INT32_MIN), I64(INT32_MAX), q)


def rdbpot(x, exponent: int) -> np.ndarray:
    """gemmlowp RoundingDivideByPOT (exponent 0..31)."""
    x = np.asarray(x, I64)
    mask = (1 << exponent) - 1
    return (x >> exponent) + ((x & mask) > ((mask >> 1) + (x < 0)))


def mbqm(x, multiplier: int, shift: int) -> np.ndarray:
    """LiteRT MultiplyByQuantizedMultiplier(int32), double rounding."""
    left, right = max(shift, 0), max(-shift, 0)
    return rdbpot(srdhm(wrap32(np.asarray(x, I64) << left), multiplier), right)


def mbqm_smaller_than_one(x, multiplier: int, shift: int) -> np.ndarray:
    return rdbpot(srdhm(x, multiplier), -shift)


# -- binary -------------------------------------------------------------------------------------


def binary_quantized(op: str, a: np.ndarray, b: np.ndarray, q: dict, dtype) -> np.ndarray:
    """ADD/SUB/MUL/SQUARED_DIFFERENCE/MAXIMUM/MINIMUM on int8/int16 with the fields of
    ``hk_binary_quant_t`` in ``q``; broadcasting by numpy."""
    a, b = np.broadcast_arrays(np.asarray(a, I64), np.asarray(b, I64))
    if op == "MAXIMUM":
        return np.where(a > b, a, b).astype(dtype)
    if op == "MINIMUM":
        return np.where(a < b, a, b).astype(dtype)
    lo, hi = q["activation_min"], q["activation_max"]
    if op in ("ADD", "SUB") and q.get("pot_scale"):
        sa = a if q["input1_shift"] == 0 else rdbpot(a, -q["input1_shift"])
        sb = rdbpot(b, -q["input2_shift"]) if q["input1_shift"] == 0 else b
        raw = np.clip(sa + sb if op == "ADD" else sa - sb, -32768, 32767)
        return np.clip(raw, lo, hi).astype(dtype)
    if op == "MUL":
        prod = (a + q["input1_offset"]) * (b + q["input2_offset"])
        out = mbqm(prod, q["output_multiplier"], q["output_shift"]) + q["output_offset"]
        return np.clip(out, lo, hi).astype(dtype)
    ls = 1 << q["left_shift"]
    sa = mbqm_smaller_than_one((a + q["input1_offset"]) * ls, q["input1_multiplier"], q["input1_shift"])
    sb = mbqm_smaller_than_one((b + q["input2_offset"]) * ls, q["input2_multiplier"], q["input2_shift"])
    if op == "ADD":
        raw = sa + sb
    elif op == "SUB":
        raw = sa - sb
    elif op == "SQUARED_DIFFERENCE":
        raw = (sa - sb) * (sa - sb)
    else:
        raise ValueError(op)
    out = mbqm_smaller_than_one(raw, q["output_multiplier"], q["output_shift"]) + q["output_offset"]
    return np.clip(out, lo, hi).astype(dtype)


def binary_float(op: str, a: np.ndarray, b: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """The float32 operators; ADD/SUB/MUL clamp to the fused activation as min(max(x, lo), hi)."""
    a, b = np.broadcast_arrays(np.asarray(a, F32), np.asarray(b, F32))
    with np.errstate(all="ignore"):
        if op == "SQUARED_DIFFERENCE":
            d = a - b
            return d * d
        if op == "MAXIMUM":
            return np.where(a > b, a, b)
        if op == "MINIMUM":
            return np.where(a < b, a, b)
        raw = {"ADD": a + b, "SUB": a - b, "MUL": a * b}[op]
    raw = np.where(raw < F32(lo), F32(lo), raw)
    return np.where(raw > F32(hi), F32(hi), raw).astype(F32)


# -- quantize -----------------------------------------------------------------------------------


def affine_quantize(x: np.ndarray, scale: float, zero_point: int, dtype) -> np.ndarray:
    """AffineQuantize: round(x / float(scale)) half away from zero, as x86 converts it to int32."""
    with np.errstate(all="ignore"):
        r = np.asarray(x, F32) / F32(scale)
    r64 = r.astype(np.float64)
    rounded = np.where(r64 >= 0, np.floor(r64 + 0.5), -np.floor(-r64 + 0.5))  # exact for float32
    in_range = (rounded >= -(2.0**31)) & (rounded < 2.0**31)
    q = np.where(in_range, np.nan_to_num(rounded), INT32_MIN).astype(I64)
    lo, hi = RANGES[np.dtype(dtype)]
    return np.clip(wrap32(q + zero_point), lo, hi).astype(dtype)


def requantize(x: np.ndarray, multiplier: int, shift: int, zp_in: int, zp_out: int, dtype) -> np.ndarray:
    out = mbqm(np.asarray(x, I64) - zp_in, multiplier, shift) + zp_out
    lo, hi = RANGES[np.dtype(dtype)]
    return np.clip(out, lo, hi).astype(dtype)


def dequantize(q: np.ndarray, scale: float, zero_point: int) -> np.ndarray:
    """double(scale) * (q - zero_point), rounded once to float32."""
    return (np.float64(F32(scale)) * (np.asarray(q, np.float64) - zero_point)).astype(F32)


# -- reduce -------------------------------------------------------------------------------------


def _row_major_terms(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """x rearranged to [outputs..., reduced elements in row-major order]."""
    kept = [i for i in range(x.ndim) if i not in axes]
    moved = np.transpose(x, kept + sorted(axes))
    return moved.reshape([x.shape[i] for i in kept] + [-1])


def reduce_float(x: np.ndarray, axes: tuple[int, ...], mean: bool) -> np.ndarray:
    """float32 sum from 0 in row-major order (sequentially, as the reference), then / count."""
    terms = _row_major_terms(np.asarray(x, F32), axes)
    acc = np.zeros(terms.shape[:-1], F32)
    for j in range(terms.shape[-1]):
        acc = (acc + terms[..., j]).astype(F32)
    if mean:
        acc = (acc / F32(terms.shape[-1])).astype(F32)
    return acc


def reduce_quantized(
    x: np.ndarray, axes: tuple[int, ...], multiplier: int, shift: int, zp_in: int, zp_out: int, dtype
) -> np.ndarray:
    """QuantizedMeanOrSum with the (already MEAN-adjusted) multiplier and shift."""
    terms = _row_major_terms(np.asarray(x, I64), axes)
    count = terms.shape[-1]
    total = wrap32(terms.sum(axis=-1))
    shifted = wrap32(total - zp_in * count)
    out = wrap32(mbqm(shifted, multiplier, shift) + zp_out)
    lo, hi = RANGES[np.dtype(dtype)]
    return np.clip(out, lo, hi).astype(dtype)
