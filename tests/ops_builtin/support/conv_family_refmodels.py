"""Numpy models of the LiteRT reference kernels behind the convolution-family C kernels.

Integer models use int64 numpy arithmetic, which is exact, and reproduce LiteRT's fixed-point
steps (gemmlowp double rounding, the 16x8 reduced multiplier, the fully-connected double
requantization). Float models add the terms of every sum in the order the reference adds them,
in float32 (numpy never fuses a multiply and an add), so float outputs match bit for bit too.
Geometry is explicit: ``pad`` is (top, left) and out-of-image taps are skipped, not zero-filled.
"""

from __future__ import annotations

import numpy as np

I64 = np.int64
F32 = np.float32
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


def wrap32(x: np.ndarray) -> np.ndarray:
    """Two's-complement wrap to int32 (what int32 overflow does on the targets)."""
    return ((np.asarray(x, dtype=I64) + (1 << 31)) % (1 << 32)) - (1 << 31)


def srdhm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """gemmlowp SaturatingRoundingDoublingHighMul on int32 values held in int64."""
    a, b = np.broadcast_arrays(np.asarray(a, I64), np.asarray(b, I64))
    ab = a * b
    v = ab + np.where(ab >= 0, I64(1 << 30), I64(1 - (1 << 30)))
    q = np.where(v >= 0, v >> 31, -((-v) >> 31))  # C division truncates toward zero
    return np.where((a == INT32_MIN) & (b == INT32_MIN), I64(INT32_MAX), q)


def rdbpot(x: np.ndarray, exponent: np.ndarray) -> np.ndarray:
    """gemmlowp RoundingDivideByPOT: x / 2^exponent, halves away from zero."""
    x, e = np.broadcast_arrays(np.asarray(x, I64), np.asarray(exponent, I64))
    mask = (I64(1) << e) - 1
    threshold = (mask >> 1) + (x < 0)
    return (x >> e) + ((x & mask) > threshold)


def mbqm(x: np.ndarray, multiplier: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """MultiplyByQuantizedMultiplier(int32 x): double rounding, the left shift wrapping."""
    shift = np.asarray(shift, I64)
    left, right = np.maximum(shift, 0), np.maximum(-shift, 0)
    return rdbpot(srdhm(wrap32(np.asarray(x, I64) << left), multiplier), right)


def mbqm_64(x: np.ndarray, multiplier: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """MultiplyByQuantizedMultiplier(int64 x): 16-bit reduced multiplier, one rounding."""
    m = np.asarray(multiplier, I64)
    reduced = np.where(m < 0x7FFF0000, (m + (1 << 15)) >> 16, I64(0x7FFF))
    total_shift = 15 - np.asarray(shift, I64)
    v = np.asarray(x, I64) * reduced + (I64(1) << (total_shift - 1))
    return wrap32(v >> total_shift)


def round_half_away(v: np.ndarray) -> np.ndarray:
    """std::round on float64 values (exact: v - trunc(v) is representable)."""
    v = np.asarray(v, np.float64)
    whole = np.trunc(v)
    frac = v - whole
    return (whole + (frac >= 0.5) - (frac <= -0.5)).astype(I64)


def clamp(x: np.ndarray, lo, hi) -> np.ndarray:
    """std::min(std::max(x, lo), hi), including its NaN behaviour for floats."""
    x = np.where(x < lo, lo, x)
    return np.where(hi < x, hi, x)


def litert_out_pad(mode: str, size: int, filt: int, stride: int, dilation: int) -> tuple[int, int]:
    """LiteRT ComputePaddingHeightWidth on one axis: (output size, leading padding)."""
    eff = (filt - 1) * dilation + 1
    out = (size + stride - 1) // stride if mode == "SAME" else (size + stride - eff) // stride
    return out, max((out - 1) * stride + eff - size, 0) // 2


def _taps(out_size: int, stride: int, pad: int, dilation: int, tap: int, size: int):
    coords = np.arange(out_size) * stride - pad + tap * dilation
    valid = (coords >= 0) & (coords < size)
    return np.clip(coords, 0, size - 1), valid


def _window(x, out_hw, stride, pad, dilation, fy, fx):
    """Input pixels under tap (fy, fx) for every output pixel, and where they are in-image."""
    iy, vy = _taps(out_hw[0], stride[0], pad[0], dilation[0], fy, x.shape[1])
    ix, vx = _taps(out_hw[1], stride[1], pad[1], dilation[1], fx, x.shape[2])
    return x[:, iy][:, :, ix], (vy[:, None] & vx[None, :])[None, :, :, None]


def conv_accumulate(x, w, out_hw, stride, pad, dilation, input_offset=0) -> np.ndarray:
    """int64 ConvPerChannel accumulators (before bias), grouped when C is a multiple of w's."""
    groups = x.shape[3] // w.shape[3]
    per_group = w.shape[0] // groups
    fic = w.shape[3]
    acc = np.zeros((x.shape[0], *out_hw, w.shape[0]), I64)
    for fy in range(w.shape[1]):
        for fx in range(w.shape[2]):
            win, valid = _window(x.astype(I64) + input_offset, out_hw, stride, pad, dilation, fy, fx)
            win = np.where(valid, win, 0)
            for g in range(groups):
                wg = w[g * per_group : (g + 1) * per_group, fy, fx, :].astype(I64)
                acc[..., g * per_group : (g + 1) * per_group] += win[..., g * fic : (g + 1) * fic] @ wg.T
    return acc


def conv_float(x, w, bias, out_hw, stride, pad, dilation, act) -> np.ndarray:
    """reference_ops::Conv: per output, taps in (fy, fx, ic) order, then + bias (or 0)."""
    groups = x.shape[3] // w.shape[3]
    per_group = w.shape[0] // groups
    fic = w.shape[3]
    total = np.zeros((x.shape[0], *out_hw, w.shape[0]), F32)
    channel0 = (np.arange(w.shape[0]) // per_group) * fic
    for fy in range(w.shape[1]):
        for fx in range(w.shape[2]):
            win, valid = _window(x, out_hw, stride, pad, dilation, fy, fx)
            for ic in range(fic):
                total = np.where(valid, total + win[..., channel0 + ic] * w[:, fy, fx, ic], total)
    b = bias if bias is not None else np.zeros(w.shape[0], F32)
    return clamp(total + b, F32(act[0]), F32(act[1])).astype(F32)


def depthwise_accumulate(x, w, dm, out_hw, stride, pad, dilation, input_offset=0) -> np.ndarray:
    """int64 DepthwiseConvPerChannel accumulators; output channel oc reads input oc // dm."""
    out_c = w.shape[3]
    src = np.arange(out_c) // dm
    acc = np.zeros((x.shape[0], *out_hw, out_c), I64)
    for fy in range(w.shape[1]):
        for fx in range(w.shape[2]):
            win, valid = _window(x.astype(I64) + input_offset, out_hw, stride, pad, dilation, fy, fx)
            acc += np.where(valid, win[..., src] * w[0, fy, fx, :].astype(I64), 0)
    return acc


def depthwise_float(x, w, bias, dm, out_hw, stride, pad, dilation, act) -> np.ndarray:
    """reference_ops::DepthwiseConv: per output, taps in (fy, fx) order, then + bias (or 0)."""
    out_c = w.shape[3]
    src = np.arange(out_c) // dm
    total = np.zeros((x.shape[0], *out_hw, out_c), F32)
    for fy in range(w.shape[1]):
        for fx in range(w.shape[2]):
            win, valid = _window(x, out_hw, stride, pad, dilation, fy, fx)
            total = np.where(valid, total + win[..., src] * w[0, fy, fx, :], total)
    b = bias if bias is not None else np.zeros(out_c, F32)
    return clamp(total + b, F32(act[0]), F32(act[1])).astype(F32)


def transpose_conv_scatter(x, w, out_hw, stride, pad, input_offset=0, dtype=I64) -> np.ndarray:
    """reference TransposeConv's scatter loop (without bias): in (iy, ix, ic) order."""
    b, h, wd, c = x.shape
    out = np.zeros((b, *out_hw, w.shape[0]), dtype)
    xv = x.astype(dtype) + (input_offset if dtype == I64 else 0)
    for iy in range(h):
        for ix in range(wd):
            for ic in range(c):
                for fy in range(w.shape[1]):
                    oy = iy * stride[0] - pad[0] + fy
                    if not 0 <= oy < out_hw[0]:
                        continue
                    for fx in range(w.shape[2]):
                        ox = ix * stride[1] - pad[1] + fx
                        if 0 <= ox < out_hw[1]:
                            taps = w[None, :, fy, fx, ic].astype(dtype)
                            out[:, oy, ox, :] += xv[:, iy, ix, ic, None] * taps
    return out


def requantize(acc, bias, multiplier, shift, output_offset, act, dtype, wide=False) -> np.ndarray:
    """acc (+ bias) -> fixed-point rescale -> + output offset -> activation clamp -> dtype."""
    acc = np.asarray(acc, I64)
    if bias is not None:
        acc = acc + np.asarray(bias, I64)
    if not wide:
        acc = wrap32(acc)
    scaled = mbqm_64(acc, multiplier, shift) if wide else mbqm(acc, multiplier, shift)
    info = np.iinfo(dtype)
    lo, hi = max(act[0], info.min), min(act[1], info.max)
    return np.clip(wrap32(scaled + output_offset), lo, hi).astype(dtype)


def fully_connected_int(x, w, bias, input_offset, filter_offset, output_offset, scales, act, dtype):
    """reference_integer_ops::FullyConnected(PerChannel) with double-precision requantization; a
    value that rounds beyond int32 is INT32_MIN, as the reference's conversion gives on x86-64."""
    acc = (x.astype(I64) + input_offset) @ (w.astype(I64) + filter_offset).T
    if bias is not None:
        acc = acc + bias.astype(I64)
    value = round_half_away(acc.astype(np.float64) * np.asarray(scales, np.float64))
    value = np.where((value >= INT32_MIN) & (value <= INT32_MAX), value, INT32_MIN)
    info = np.iinfo(dtype)
    lo, hi = max(act[0], info.min), min(act[1], info.max)
    return np.clip(wrap32(value + output_offset), lo, hi).astype(dtype)


def fully_connected_float(x, w, bias, act) -> np.ndarray:
    """reference_ops::FullyConnected (float): products summed in input order, then + bias."""
    total = np.zeros((x.shape[0], w.shape[0]), F32)
    for d in range(x.shape[1]):
        total = total + x[:, d, None] * w[None, :, d]
    b = bias if bias is not None else np.zeros(w.shape[0], F32)
    return clamp(total + b, F32(act[0]), F32(act[1])).astype(F32)


def pool_windows(x, out_hw, filt, stride, pad):
    """For each output pixel: the in-image slice of its window (python loops; tiny tensors)."""
    for oy in range(out_hw[0]):
        y0 = oy * stride[0] - pad[0]
        ys = slice(max(y0, 0), min(y0 + filt[0], x.shape[1]))
        for ox in range(out_hw[1]):
            x0 = ox * stride[1] - pad[1]
            xs = slice(max(x0, 0), min(x0 + filt[1], x.shape[2]))
            yield oy, ox, x[:, ys, xs, :]
