"""numpy models of the ONNX QDQ semantics the onnx requantization kernels must match bit for bit.

Written from the ONNX operator definitions and onnxruntime's integer kernels, never from our C:
- convolution, depthwise convolution and matrix products accumulate sum((x - zx) * (w - zw)) + bias
  exactly (int64 here), then requantize as onnxruntime's integer kernels do: the float32
  multiplier ``x_scale * w_scale / y_scale`` (two float32 roundings, left to right), the
  accumulator converted to float32 and multiplied in float32, rounded half to even, plus the
  output zero point, saturated (and clamped to a fused activation's range);
- averages (pooling, MEAN) sum the taps exactly and multiply by ``x_scale / (y_scale * count)``
  in float32, as QLinearGlobalAveragePool does;
- ADD, SUB and MUL dequantize each operand in float32 (``scale * (q - zero_point)``), add, subtract
  or multiply in float32 and quantize as QuantizeLinear does (divide by the output scale, round half to even);
- QUANTIZE is QuantizeLinear (float32 divided by the scale, half to even; NaN to -128), from int8
  after a float32 DequantizeLinear;
- int8 SOFTMAX is onnxruntime's QLinearSoftmax, the fusion its default session makes of a QDQ
  Softmax (see ``qlinear_softmax``);
- a BatchNormalization between a DequantizeLinear and a QuantizeLinear runs in float32 step by step
  (``batch_norm``), as onnxruntime's float kernel between them;
- a linear Resize is onnxruntime's bilinear Resize in float32 (``resize_bilinear``), of int8
  values dequantized first and quantized after;
- Sigmoid and LeakyRelu between a DequantizeLinear and a QuantizeLinear are onnxruntime's
  QLinearSigmoid and QLinearLeakyRelu lookups (``qlinear_lookup``), the sigmoid MLAS's
  logistic (``mlas_logistic``).
"""

from __future__ import annotations

import numpy as np

F32 = np.float32


def quantize_rne(v: np.ndarray, zero_point: int, lo: int = -128, hi: int = 127) -> np.ndarray:
    """QuantizeLinear's rounding and saturation of already-scaled values: half to even."""
    return np.clip(np.rint(v.astype(np.float64)) + zero_point, lo, hi).astype(np.int8)


def conv_multipliers(x_scale: float, w_scales: np.ndarray, y_scale: float) -> np.ndarray:
    """onnxruntime's per-channel requantization multipliers, in float32 left to right."""
    return (F32(x_scale) * np.asarray(w_scales, F32)) / F32(y_scale)


def requantize(acc: np.ndarray, multiplier: np.ndarray, zero_point: int, lo: int, hi: int) -> np.ndarray:
    """float32(acc) * multiplier in float32, rounded half to even, offset and clamped."""
    v = acc.astype(np.int64).astype(F32) * np.asarray(multiplier, F32)
    return quantize_rne(v, zero_point, lo, hi)


def _windows(
    x: np.ndarray,
    fh: int,
    fw: int,
    stride: tuple[int, int],
    dilation: tuple[int, int],
    pads: tuple[int, int],
    out_hw: tuple[int, int],
    fill: int,
) -> np.ndarray:
    """[n, oh, ow, fh, fw, c] of the padded input (``fill`` outside the image)."""
    n, h, w, c = x.shape
    oh, ow = out_hw
    (sh, sw), (dh, dw), (pt, pl) = stride, dilation, pads
    big = np.full(
        (n, h + 2 * pt + (fh - 1) * dh + sh * oh, w + 2 * pl + (fw - 1) * dw + sw * ow, c), fill, np.int64
    )
    big[:, pt : pt + h, pl : pl + w, :] = x
    out = np.empty((n, oh, ow, fh, fw, c), np.int64)
    for ky in range(fh):
        for kx in range(fw):
            ys, xs = ky * dh, kx * dw
            out[:, :, :, ky, kx, :] = big[:, ys : ys + sh * oh : sh, xs : xs + sw * ow : sw, :][:, :oh, :ow]
    return out


def conv(x, zx, w, bias, stride, dilation, pads, out_hw, mult, zy, lo, hi):
    """CONV_2D over NHWC x and OHWI w (zero weight zero point)."""
    win = _windows(x, w.shape[1], w.shape[2], stride, dilation, pads, out_hw, zx) - zx
    acc = np.einsum("nyxabc,oabc->nyxo", win, w.astype(np.int64))
    if bias is not None:
        acc = acc + bias.astype(np.int64)
    return requantize(acc, mult, zy, lo, hi)


def depthwise(x, zx, w, bias, multiplier_depth, stride, dilation, pads, out_hw, mult, zy, lo, hi):
    """DEPTHWISE_CONV_2D: w is [1, fh, fw, c * multiplier_depth]."""
    win = _windows(x, w.shape[1], w.shape[2], stride, dilation, pads, out_hw, zx) - zx
    win = np.repeat(win, multiplier_depth, axis=-1)
    acc = np.einsum("nyxabc,abc->nyxc", win, w[0].astype(np.int64))
    if bias is not None:
        acc = acc + bias.astype(np.int64)
    return requantize(acc, mult, zy, lo, hi)


def matmul(a, za, b, zb, bias, mult, zy, lo, hi):
    """[batch, m, k] x [batch, k, n] (batches broadcast by numpy's rules)."""
    acc = np.matmul(a.astype(np.int64) - za, b.astype(np.int64) - zb)
    if bias is not None:
        acc = acc + bias.astype(np.int64)
    return requantize(acc, mult, zy, lo, hi)


def binary(kind: str, a, sa, za, b, sb, zb, sy, zy, lo=-128, hi=127):
    """ADD, SUB or MUL in float32 after dequantization, then QuantizeLinear (divide, half to even)."""
    va = F32(sa) * (a.astype(np.int32) - za).astype(F32)
    vb = F32(sb) * (b.astype(np.int32) - zb).astype(F32)
    v = {"add": va + vb, "sub": va - vb, "mul": va * vb}[kind]
    return quantize_rne(v.astype(F32) / F32(sy), zy, lo, hi)


def average_multiplier(sx: float, sy: float, count: int) -> np.float32:
    return F32(sx) / (F32(sy) * F32(count))


def avg_pool(x, zx, sx, fh, fw, stride, pads, out_hw, sy, zy, lo, hi):
    """AVERAGE_POOL_2D over the in-image taps (padding not counted)."""
    n, h, w, c = x.shape
    oh, ow = out_hw
    out = np.empty((n, oh, ow, c), np.int8)
    for oy in range(oh):
        y0 = oy * stride[0] - pads[0]
        ys = slice(max(y0, 0), min(y0 + fh, h))
        for ox in range(ow):
            x0 = ox * stride[1] - pads[1]
            xs = slice(max(x0, 0), min(x0 + fw, w))
            taps = x[:, ys, xs, :].astype(np.int64)
            count = taps.shape[1] * taps.shape[2]
            if count == 0:
                out[:, oy, ox, :] = np.clip(zy, lo, hi)
                continue
            acc = taps.sum(axis=(1, 2)) - zx * count
            out[:, oy, ox, :] = requantize(acc, average_multiplier(sx, sy, count), zy, lo, hi)
    return out


def mean(x3, zx, sx, sy, zy):
    """MEAN of [outer, reduce, inner] over its middle axis."""
    count = x3.shape[1]
    acc = x3.astype(np.int64).sum(axis=1) - zx * count
    return requantize(acc, average_multiplier(sx, sy, count), zy, -128, 127)


def quantize_linear(v: np.ndarray, scale: float, zero_point: int) -> np.ndarray:
    """QuantizeLinear to int8: float32 ``v / scale`` rounded half to even, saturated; NaN -128."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        q = (np.asarray(v, F32) / F32(scale)).astype(F32)
    q = np.where(np.isnan(q), -np.inf, q)
    return np.clip(np.rint(np.clip(q, -1e9, 1e9)) + zero_point, -128, 127).astype(np.int8)


def requantize_linear(q: np.ndarray, sx: float, zx: int, sy: float, zy: int) -> np.ndarray:
    """DequantizeLinear (``(q - zx) * sx`` in float32) then QuantizeLinear."""
    return quantize_linear((q.astype(np.int64) - zx).astype(F32) * F32(sx), sy, zy)


def qlinear_softmax(x: np.ndarray, sx: float, sy: float, zy: int) -> np.ndarray:
    """onnxruntime's QLinearSoftmax over the last axis of int8 ``x``: a float32 exp table
    ``exp((d + shift) * sx)`` for d = x - max(row) in -255..0 (computed in double), with
    shift = max(0, ln(FLT_MAX / depth in float32) - 5) / sx; the row's entries summed in order in
    float32; each output rne(entry / sum * floor(1 / sy)) + zy in float32, saturated."""
    depth = x.shape[-1]
    shift = max(0.0, float(np.log(np.float64(F32(np.finfo(F32).max) / F32(depth)))) - 5.0) / float(F32(sx))
    entries = np.exp((np.arange(-255, 1, dtype=np.float64) + shift) * float(F32(sx))).astype(F32)
    e = entries[x.astype(np.int64) - x.max(axis=-1, keepdims=True) + 255]
    total = np.zeros(x.shape[:-1], F32)
    for j in range(depth):
        total = (total + e[..., j]).astype(F32)
    ratio = ((e / total[..., None]).astype(F32) * F32(np.floor(F32(1.0) / F32(sy)))).astype(F32)
    return np.clip(np.rint(ratio).astype(np.int64) + zy, -128, 127).astype(np.int8)


def batch_norm(x, axis, sx, zx, mean, multiplier, offset, sy, zy) -> np.ndarray:
    """A BatchNormalization between a DequantizeLinear and a QuantizeLinear, in float32 step by
    step: ``((x - zx) * sx - mean) * multiplier + offset``, then QuantizeLinear."""
    shape = [1] * x.ndim
    shape[axis] = -1
    v = ((x.astype(np.int64) - zx).astype(F32) * F32(sx)).astype(F32)
    v = (
        (v - np.asarray(mean, F32).reshape(shape)).astype(F32) * np.asarray(multiplier, F32).reshape(shape)
    ).astype(F32)
    v = (v + np.asarray(offset, F32).reshape(shape)).astype(F32)
    return quantize_linear(v, sy, zy)


def _coordinate(out: int, out_len: int, in_len: int, mode: str, scale: float) -> np.float32:
    """onnxruntime's source coordinate of output index ``out``, float32 at every step (clamped
    into the axis), for a scale of ``scale`` (0: float(out_len) / float(in_len))."""
    s = F32(scale) if scale else F32(out_len) / F32(in_len)
    o = F32(out)
    if mode == "half_pixel" or (mode == "pytorch_half_pixel" and out_len > 1):
        c = (o + F32(0.5)) / s - F32(0.5)
    elif mode == "pytorch_half_pixel":
        c = F32(0.0)
    elif mode == "asymmetric":
        c = o / s
    else:  # align_corners
        c = F32(0.0) if out_len == 1 else o * F32(in_len - 1) / F32(out_len - 1)
    return F32(min(max(F32(c), F32(0.0)), F32(in_len - 1)))


def resize_bilinear(x: np.ndarray, out_hw: tuple[int, int], mode: str, scales=(0.0, 0.0)) -> np.ndarray:
    """onnxruntime's linear Resize of NHWC float32 ``x`` (float32 at every step): per output, the
    weights dx2 * dy2, dx1 * dy2, dx2 * dy1, dx1 * dy1 times the four neighbours, summed in that
    order; dx1 / dx2 the distances to the two source columns (one half each where they are one)."""
    n, h, w, c = x.shape
    out = np.zeros((n, *out_hw, c), F32)
    for oy in range(out_hw[0]):
        cy = _coordinate(oy, out_hw[0], h, mode, scales[0])
        y1 = min(int(cy), h - 1)
        y2 = min(y1 + 1, h - 1)
        dy1, dy2 = (F32(0.5), F32(0.5)) if y1 == y2 else (F32(abs(cy - F32(y1))), F32(abs(cy - F32(y2))))
        for ox in range(out_hw[1]):
            cx = _coordinate(ox, out_hw[1], w, mode, scales[1])
            x1 = min(int(cx), w - 1)
            x2 = min(x1 + 1, w - 1)
            dx1, dx2 = (F32(0.5), F32(0.5)) if x1 == x2 else (F32(abs(cx - F32(x1))), F32(abs(cx - F32(x2))))
            terms = (
                (F32(dx2 * dy2), x[:, y1, x1]),
                (F32(dx1 * dy2), x[:, y1, x2]),
                (F32(dx2 * dy1), x[:, y2, x1]),
                (F32(dx1 * dy1), x[:, y2, x2]),
            )
            total = (terms[0][0] * terms[0][1]).astype(F32)
            for weight, value in terms[1:]:
                total = (total + (weight * value).astype(F32)).astype(F32)
            out[:, oy, ox] = total
    return out


def resize_bilinear_s8(x, sx, zx, out_hw, mode, sy, zy, scales=(0.0, 0.0)) -> np.ndarray:
    """DequantizeLinear -> linear Resize -> QuantizeLinear of NHWC int8 ``x``."""
    real = ((x.astype(np.int64) - zx).astype(F32) * F32(sx)).astype(F32)
    return quantize_linear(resize_bilinear(real, out_hw, mode, scales), sy, zy)


def mlas_logistic(v: np.ndarray) -> np.ndarray:
    """MLAS's logistic (Eigen's rational approximation) in float32: x clamped to [-18, 18],
    x * P(x^2) / Q(x^2) + 0.5 by Horner's rule (multiply, then add), clamped to [0, 1]."""
    p_coefficients = (4.37031012579801e-11, 1.15627324459942e-07, 6.08574864600143e-05)
    p_coefficients += (8.51377133304701e-03, 2.48287947061529e-01)
    q_coefficients = (6.10247389755681e-13, 5.76102136993427e-09, 6.29106785017040e-06)
    q_coefficients += (1.70198817374094e-03, 1.16817656904453e-01, 9.93151921023180e-01)
    x = np.clip(np.asarray(v, F32), F32(-18.0), F32(18.0))
    x2 = (x * x).astype(F32)
    p = np.full(x.shape, F32(p_coefficients[0]))
    for k in p_coefficients[1:]:
        p = ((p * x2).astype(F32) + F32(k)).astype(F32)
    q = np.full(x.shape, F32(q_coefficients[0]))
    for k in q_coefficients[1:]:
        q = ((q * x2).astype(F32) + F32(k)).astype(F32)
    y = ((((p * x).astype(F32)) / q).astype(F32) + F32(0.5)).astype(F32)
    return np.clip(y, F32(0.0), F32(1.0))


def qlinear_lookup(x: np.ndarray, function, sx: float, zx: int, sy: float, zy: int) -> np.ndarray:
    """onnxruntime's QLinearLookupBase: each int8 ``x`` dequantized in float32, the float
    ``function`` applied, QuantizeLinear."""
    real = ((x.astype(np.int64) - zx).astype(F32) * F32(sx)).astype(F32)
    return quantize_linear(function(real), sy, zy)


def leaky_relu(alpha: float):
    """onnxruntime's float LeakyRelu: x, or alpha * x in float32 below zero."""
    return lambda v: np.where(v >= 0, v, (v * F32(alpha)).astype(F32)).astype(F32)
