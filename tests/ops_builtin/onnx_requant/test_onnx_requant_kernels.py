"""The onnx requantization kernels on the host (portable path) against the numpy model of the
ONNX QDQ semantics (support/onnx_qdq_refmodels.py), on random shapes, scales and zero points.

Scales are drawn so that many products land near rounding ties, where round half to even and
LiteRT's round half away from zero differ; each test also checks that it met some such case, so
a kernel that rounded the LiteRT way would fail rather than pass by luck.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.onnx_requant.onnx_requant_ctypes import (
    BinaryParams,
    ConvParams,
    MatmulParams,
    MeanParams,
    PoolParams,
    call,
)
from ops_builtin.support import onnx_qdq_refmodels as ref

FEW = settings(max_examples=25, deadline=None)


def _scale(rng: np.random.Generator) -> float:
    """A power of two times a small odd number: products often fall on exact halves."""
    return float(rng.integers(1, 8) * 2.0 ** rng.integers(-9, -3))


def _geometry(n, h, w, fh, fw, sh, sw, dh, dw, same):
    def one(size, f, s, d):
        eff = (f - 1) * d + 1
        if same:
            out = -(-size // s)
            pad = max((out - 1) * s + eff - size, 0) // 2
        else:
            out = max((size - eff) // s + 1, 0)
            pad = 0
        return out, pad

    (oh, pt), (ow, pl) = one(h, fh, sh, dh), one(w, fw, sw, dw)
    return oh, ow, pt, pl


conv_shapes = st.tuples(
    st.integers(1, 2),
    st.integers(1, 7),
    st.integers(1, 7),
    st.integers(1, 70),
    st.integers(1, 70),
    st.integers(1, 3),
    st.integers(1, 3),
    st.integers(1, 2),
    st.integers(1, 2),
    st.integers(1, 2),
    st.integers(1, 2),
    st.booleans(),
)


@FEW
@given(shape=conv_shapes, seed=st.integers(0, 2**32 - 1))
def test_depthwise(shape, seed):
    """The convolutions the converter emits run the packed kernel, tested on these geometries in
    test_onnx_requant_fast_paths.py."""
    n, h, w, ic, oc, fh, fw, sh, sw, dh, dw, same = shape
    rng = np.random.default_rng(seed)
    oh, ow, pt, pl = _geometry(n, h, w, fh, fw, sh, sw, dh, dw, same)
    mdepth = 1 + (oc % 2)
    oc = ic * mdepth
    x = rng.integers(-128, 128, (n, h, w, ic)).astype(np.int8)
    wt = rng.integers(-127, 128, (1, fh, fw, oc)).astype(np.int8)
    bias = rng.integers(-3000, 3000, oc).astype(np.int32)
    zx, zy = int(rng.integers(-128, 128)), int(rng.integers(-20, 20))
    mult = ref.conv_multipliers(_scale(rng), [_scale(rng) for _ in range(oc)], _scale(rng) * 64)
    lo, hi = (zy, 127) if rng.integers(0, 2) else (-128, 127)
    want = ref.depthwise(x, zx, wt, bias, mdepth, (sh, sw), (dh, dw), (pt, pl), (oh, ow), mult, zy, lo, hi)
    out = np.zeros((n, oh, ow, oc), np.int8)
    params = ConvParams(n, h, w, ic, oh, ow, oc, fh, fw, sh, sw, dh, dw, pt, pl, mdepth, -zx, zy, lo, hi)
    mult32 = np.ascontiguousarray(mult, np.float32)
    params.multiplier, params.bias = mult32.ctypes.data, bias.ctypes.data
    call("onnx_depthwise_s8", params, x, wt, out)
    np.testing.assert_array_equal(out, want)


@FEW
@given(
    dims=st.tuples(st.integers(1, 3), st.integers(1, 5), st.integers(1, 70), st.integers(1, 40)),
    layout=st.sampled_from(["fc", "bmm", "bmm_t", "bmm_bcast"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_matmul(dims, layout, seed):
    batches, m, n, k = dims
    rng = np.random.default_rng(seed)
    a = rng.integers(-128, 128, (batches, m, k)).astype(np.int8)
    za, zy = int(rng.integers(-128, 128)), int(rng.integers(-10, 10))
    fc = layout == "fc"
    zb = 0 if fc else int(rng.integers(-128, 128))
    b_batches = 1 if layout in ("fc", "bmm_bcast") else batches
    b_kn = rng.integers(-127, 128, (b_batches, k, n)).astype(np.int8)
    # The kernel reads b through strides: [n, k] rows for fc and bmm_t, [k, n] otherwise.
    stored = np.ascontiguousarray(b_kn.transpose(0, 2, 1)) if layout in ("fc", "bmm_t") else b_kn
    if layout in ("fc", "bmm_t"):
        b_depth_stride, b_col_stride = 1, k
    else:
        b_depth_stride, b_col_stride = n, 1
    bias = rng.integers(-5000, 5000, n).astype(np.int32) if fc else None
    scales = [_scale(rng) for _ in range(n if fc else 1)]
    sx = _scale(rng)
    mult = ref.conv_multipliers(sx, scales, sx * max(scales) * 48 * np.sqrt(k))
    want = ref.matmul(a, za, b_kn, zb, bias, mult, zy, -128, 127)
    out = np.zeros((batches, m, n), np.int8)
    params = MatmulParams(
        batches,
        m,
        n,
        k,
        m * k,
        k,
        1,
        0 if b_batches == 1 else k * n,
        b_depth_stride,
        b_col_stride,
        -za,
        -zb,
        zy,
        -128,
        127,
        1 if fc else 0,
    )
    mult32 = np.ascontiguousarray(mult, np.float32)
    params.multiplier = mult32.ctypes.data
    params.bias = None if bias is None else bias.ctypes.data
    call("onnx_matmul_s8", params, a, stored, out)
    np.testing.assert_array_equal(out, want)


def _broadcast_strides(shape, out_shape):
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    strides = strides[::-1]
    return [0 if size == 1 and o != 1 else s for size, s, o in zip(shape, strides, out_shape, strict=True)]


@FEW
@given(
    out_shape=st.lists(st.integers(1, 5), min_size=1, max_size=4),
    mask=st.lists(st.booleans(), min_size=4, max_size=4),
    kind=st.sampled_from(["add", "sub", "mul"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_binary(out_shape, mask, kind, seed):
    rng = np.random.default_rng(seed)
    b_shape = [1 if m else s for s, m in zip(out_shape, mask, strict=False)]
    a = rng.integers(-128, 128, out_shape).astype(np.int8)
    b = rng.integers(-128, 128, b_shape).astype(np.int8)
    sa, sb = _scale(rng), _scale(rng)
    sy = sa * sb * 256 if kind == "mul" else (sa + sb) * 1.5  # outputs spread over the int8 range
    za, zb, zy = (int(v) for v in rng.integers(-128, 128, 3))
    want = ref.binary(kind, a, sa, za, b, sb, zb, sy, zy)
    dims = len(out_shape)
    params = BinaryParams()
    params.dims = dims
    for i, (size, s_a, s_b) in enumerate(
        zip(
            out_shape,
            _broadcast_strides(out_shape, out_shape),
            _broadcast_strides(b_shape, out_shape),
            strict=True,
        )
    ):
        params.shape[i], params.a_strides[i], params.b_strides[i] = size, s_a, s_b
    params.a_zero_point, params.b_zero_point, params.output_zero_point = za, zb, zy
    params.a_scale, params.b_scale, params.output_scale = sa, sb, sy
    params.act_min, params.act_max = -128, 127
    out = np.zeros(out_shape, np.int8)
    call(f"onnx_{kind}_s8", params, a, b, out)
    np.testing.assert_array_equal(out, want)


@FEW
@given(
    shape=st.tuples(st.integers(1, 2), st.integers(1, 9), st.integers(1, 9), st.integers(1, 20)),
    window=st.tuples(
        st.integers(1, 4), st.integers(1, 4), st.integers(1, 3), st.integers(1, 3), st.booleans()
    ),
    seed=st.integers(0, 2**32 - 1),
)
def test_average_pool_and_mean(shape, window, seed):
    n, h, w, c = shape
    fh, fw, sh, sw, same = window
    rng = np.random.default_rng(seed)
    oh, ow, pt, pl = _geometry(n, h, w, fh, fw, sh, sw, 1, 1, same)
    x = rng.integers(-128, 128, shape).astype(np.int8)
    sx = _scale(rng)
    sy = sx * float(rng.choice([0.375, 0.75, 1.0, 1.5]))  # outputs spread over the int8 range
    zx, zy = (int(v) for v in rng.integers(-30, 30, 2))
    want = ref.avg_pool(x, zx, sx, fh, fw, (sh, sw), (pt, pl), (oh, ow), sy, zy, -128, 127)
    out = np.zeros((n, oh, ow, c), np.int8)
    call(
        "onnx_avg_pool_s8",
        PoolParams(n, h, w, c, oh, ow, fh, fw, sh, sw, pt, pl, zx, zy, sx, sy, -128, 127),
        x,
        out,
    )
    np.testing.assert_array_equal(out, want)
    # MEAN over the spatial axes (a global average pool), as [n, h * w, c].
    mean_out = np.zeros((n, c), np.int8)
    call("onnx_mean_s8", MeanParams(n, h * w, c, zx, zy, sx, sy), x, mean_out)
    np.testing.assert_array_equal(mean_out, ref.mean(x.reshape(n, h * w, c), zx, sx, sy, zy))


def test_ties_round_to_even():
    """Accumulators whose scaled value is exactly k + 1/2: the kernel rounds them to even (LiteRT
    would round them away from zero), so this pins the mode itself, not only the agreement."""
    acc = np.arange(-41, 42, 2, dtype=np.int32)  # odd: acc * 0.5 is a tie
    k = acc.size
    a = np.ones((1, 1, k), np.int8)
    # A [1, k] x [k, n]-by-columns product that picks one accumulator per column: b = identity * acc.
    b = np.zeros((1, k, k), np.int8)
    out = np.zeros((1, 1, k), np.int8)
    mult = np.array([0.5], np.float32)
    bias = np.zeros(k, np.int32)
    params = MatmulParams(1, 1, k, k, k, k, 1, 0, k, 1, 0, 0, 0, -128, 127, 0)
    params.multiplier, params.bias = mult.ctypes.data, bias.ctypes.data
    bias[:] = acc  # all of b is zero, so each accumulator is its bias
    call("onnx_matmul_s8", params, a, b, out)
    want = np.rint(acc * 0.5).astype(np.int8)
    np.testing.assert_array_equal(out[0, 0], want)
    away = np.trunc(acc * 0.5 + np.sign(acc) * 0.5).astype(np.int8)
    assert (want != away).sum() > 10
