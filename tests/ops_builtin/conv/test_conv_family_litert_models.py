"""The k1 numpy models and the operators' Prepare arithmetic agree with LiteRT itself.

The kernel tests compare the C kernels with ``conv_family_refmodels``; here single-operator models
run through the BUILTIN_REF interpreter with random geometry, scales and zero points, and the same
numpy models, fed by ``weighted_prepare`` and ``quantization`` (padding, multipliers, clamps, FC
double scales), must reproduce LiteRT exactly: integer outputs and, since the models sum in
reference order, float too.
"""

from __future__ import annotations

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from helia_aot.air import AirQuantization, AirTensor, AirTensorKind, AirTensorType
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot_ops_builtin.common import weighted_prepare as wp
from helia_aot_ops_builtin.common.quantization import float_clamp, quantize_multiplier, quantized_clamp
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.support import conv_family_refmodels as ref

F32 = np.float32
ACTS = {"NONE": 0, "RELU": 1, "RELU_N1_TO_1": 2, "RELU6": 3}
fast = settings(max_examples=25)
activations = st.sampled_from(sorted(ACTS))


def air(shape, dtype, scale=None, zp=0, axis=0):
    """An AirTensor carrying what weighted_prepare reads (shape, type, quantization)."""
    q = None if scale is None else AirQuantization(np.atleast_1d(scale), np.atleast_1d(zp), axis)
    return AirTensor(
        id="t",
        name="t",
        shape=tuple(shape),
        dtype=AirTensorType.from_numpy(np.dtype(dtype)),
        kind=AirTensorKind.SCRATCH,
        quantization=q,
    )


def run(op, options, x, consts, out_shape, out_dtype, x_q=None, out_q=None):
    """One operator: input 0 is ``x``; ``consts`` are (position, array, quantization) or None."""
    b = LiteRTModelBuilder()
    src = b.add_tensor("x", x.shape, x.dtype, quantization=x_q)
    inputs = []
    for i, const in enumerate(consts):
        if const == "x":
            inputs.append(src)
        elif const is None:
            inputs.append(-1)
        else:
            data, q = const
            inputs.append(b.add_tensor(f"c{i}", data.shape, data.dtype, data=data, quantization=q))
    dst = b.add_tensor("y", out_shape, out_dtype, quantization=out_q)
    b.add_operator(op, inputs, [dst], options)
    b.set_inputs([src])
    b.set_outputs([dst])
    it = Interpreter(model_content=b.to_bytes(), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"])


def scales(rng, n, lo=1e-3, hi=5e-2):
    return rng.uniform(lo, hi, n).astype(F32)


@st.composite
def conv_cases(draw, depthwise=False):
    c = draw(st.integers(1, 4))
    return dict(
        n=draw(st.integers(1, 2)),
        h=draw(st.integers(2, 7)),
        w=draw(st.integers(2, 7)),
        c=c,
        oc=c * draw(st.integers(1, 3)) if depthwise else draw(st.integers(1, 5)),
        kh=draw(st.integers(1, 3)),
        kw=draw(st.integers(1, 3)),
        sh=draw(st.integers(1, 2)),
        sw=draw(st.integers(1, 2)),
        dh=draw(st.integers(1, 2)),
        dw=draw(st.integers(1, 2)),
        padding=draw(st.sampled_from(["SAME", "VALID"])),
        act=draw(activations),
        seed=draw(st.integers(0, 2**32 - 1)),
    )


def _conv_geometry(g):
    (oh, pt), (ow, pl) = (
        wp.window_geometry(g["padding"], g["h"], g["kh"], g["sh"], g["dh"]),
        wp.window_geometry(g["padding"], g["w"], g["kw"], g["sw"], g["dw"]),
    )
    return dict(
        out_hw=(max(oh, 1), max(ow, 1)), stride=(g["sh"], g["sw"]), pad=(pt, pl), dilation=(g["dh"], g["dw"])
    )


def _window_options(cls, g):
    o = cls()
    o.padding = getattr(litert.Padding, g["padding"])
    o.strideH, o.strideW = g["sh"], g["sw"]
    o.fusedActivationFunction = ACTS[g["act"]]
    if hasattr(o, "dilationHFactor"):
        o.dilationHFactor, o.dilationWFactor = g["dh"], g["dw"]
    return o


@fast
@given(conv_cases(), st.sampled_from(["s8", "s16", "s16_b32", "f32"]))
def test_conv_2d(g, kind):
    if g["padding"] == "VALID":
        g["kh"], g["kw"] = min(g["kh"], g["h"]), min(g["kw"], g["w"])
        g["dh"], g["dw"] = 1, 1
    rng = np.random.default_rng(g["seed"])
    geo = _conv_geometry(g)
    x_shape, w_shape = (g["n"], g["h"], g["w"], g["c"]), (g["oc"], g["kh"], g["kw"], g["c"])
    out_shape = (g["n"], *geo["out_hw"], g["oc"])
    options = _window_options(litert.Conv2DOptionsT, g)
    if kind == "f32":
        x, w, bias = (rng.standard_normal(s).astype(F32) for s in (x_shape, w_shape, g["oc"]))
        got = run("CONV_2D", options, x, ["x", (w, None), (bias, None)], out_shape, F32)
        want = ref.conv_float(x, w, bias, act=float_clamp(g["act"]), **geo)
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
        return
    dt = np.int8 if kind == "s8" else np.int16
    info = np.iinfo(dt)
    x = rng.integers(info.min, info.max, x_shape, endpoint=True).astype(dt)
    w = rng.integers(-127, 127, w_shape, endpoint=True).astype(np.int8)
    s_in, s_out, s_w = F32(rng.uniform(1e-3, 5e-2)), F32(rng.uniform(1e-2, 2e-1)), scales(rng, g["oc"])
    zi, zo = (int(v) for v in rng.integers(-128, 127, 2, endpoint=True)) if kind == "s8" else (0, 0)
    bias_dt = {"s8": np.int32, "s16": np.int64, "s16_b32": np.int32}[kind]
    bias = rng.integers(-5000, 5000, g["oc"]).astype(bias_dt)
    if kind == "s16_b32":
        options.quantizedBiasType = litert.TensorType.INT32
    src, dst = air(x_shape, dt, s_in, zi), air(out_shape, dt, s_out, zo)
    wt = air(w_shape, np.int8, s_w, 0, 0)
    got = run(
        "CONV_2D",
        options,
        x,
        [
            "x",
            (w, (s_w, np.zeros(g["oc"], np.int64), 0)),
            (bias, (s_in * s_w, np.zeros(g["oc"], np.int64), 0)),
        ],
        out_shape,
        dt,
        (s_in, zi),
        (s_out, zo),
    )
    mult, shift = wp.conv_multipliers(src, wt, dst, g["oc"])
    acc = ref.conv_accumulate(x, w, input_offset=-zi, **geo)
    want = ref.requantize(acc, bias, mult, shift, zo, quantized_clamp(g["act"], dst), dt, wide=kind == "s16")
    np.testing.assert_array_equal(got, want)


@fast
@given(conv_cases(depthwise=True), st.sampled_from(["s8", "s16", "f32"]))
def test_depthwise_conv_2d(g, kind):
    if g["padding"] == "VALID":
        g["kh"], g["kw"] = min(g["kh"], g["h"]), min(g["kw"], g["w"])
        g["dh"], g["dw"] = 1, 1
    rng = np.random.default_rng(g["seed"])
    geo = _conv_geometry(g)
    dm = g["oc"] // g["c"]
    x_shape, w_shape = (g["n"], g["h"], g["w"], g["c"]), (1, g["kh"], g["kw"], g["oc"])
    out_shape = (g["n"], *geo["out_hw"], g["oc"])
    options = _window_options(litert.DepthwiseConv2DOptionsT, g)
    options.depthMultiplier = dm
    if kind == "f32":
        x, w, bias = (rng.standard_normal(s).astype(F32) for s in (x_shape, w_shape, g["oc"]))
        got = run("DEPTHWISE_CONV_2D", options, x, ["x", (w, None), (bias, None)], out_shape, F32)
        want = ref.depthwise_float(x, w, bias, dm=dm, act=float_clamp(g["act"]), **geo)
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
        return
    dt = np.int8 if kind == "s8" else np.int16
    info = np.iinfo(dt)
    x = rng.integers(info.min, info.max, x_shape, endpoint=True).astype(dt)
    w = rng.integers(-127, 127, w_shape, endpoint=True).astype(np.int8)
    s_in, s_out, s_w = F32(rng.uniform(1e-3, 5e-2)), F32(rng.uniform(1e-2, 2e-1)), scales(rng, g["oc"])
    zi, zo = (int(v) for v in rng.integers(-128, 127, 2, endpoint=True)) if kind == "s8" else (0, 0)
    bias = rng.integers(-5000, 5000, g["oc"]).astype(np.int32 if kind == "s8" else np.int64)
    src, dst = air(x_shape, dt, s_in, zi), air(out_shape, dt, s_out, zo)
    zeros = np.zeros(g["oc"], np.int64)
    got = run(
        "DEPTHWISE_CONV_2D",
        options,
        x,
        ["x", (w, (s_w, zeros, 3)), (bias, (s_in * s_w, zeros, 0))],
        out_shape,
        dt,
        (s_in, zi),
        (s_out, zo),
    )
    mult, shift = wp.conv_multipliers(src, air(w_shape, np.int8, s_w, 0, 3), dst, g["oc"])
    acc = ref.depthwise_accumulate(x, w, dm=dm, input_offset=-zi, **geo)
    want = ref.requantize(acc, bias, mult, shift, zo, quantized_clamp(g["act"], dst), dt, wide=kind == "s16")
    np.testing.assert_array_equal(got, want)


@fast
@given(
    st.integers(1, 4),
    st.integers(1, 4),
    st.integers(1, 3),
    st.integers(1, 3),
    st.integers(1, 3),
    st.sampled_from(["SAME", "VALID"]),
    st.sampled_from(["s8", "f32"]),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_transpose_conv(h, w_in, k, stride, c, padding, kind, with_bias, seed):
    rng = np.random.default_rng(seed)
    oc = int(rng.integers(1, 4))
    oh = h * stride if padding == "SAME" else (h - 1) * stride + k
    ow = w_in * stride if padding == "SAME" else (w_in - 1) * stride + k
    (ih, pt) = wp.window_geometry(padding, oh, k, stride)
    (iw, pl) = wp.window_geometry(padding, ow, k, stride)
    assert (ih, iw) == (h, w_in)
    x_shape, w_shape, out_shape = (1, h, w_in, c), (oc, k, k, c), (1, oh, ow, oc)
    o = litert.TransposeConvOptionsT()
    o.padding, o.strideH, o.strideW = getattr(litert.Padding, padding), stride, stride
    shape_const = (np.array(out_shape, np.int32), None)
    geo = dict(out_hw=(oh, ow), stride=(stride, stride), pad=(pt, pl))
    if kind == "f32":
        x, w, bias = (rng.standard_normal(s).astype(F32) for s in (x_shape, w_shape, oc))
        consts = [shape_const, (w, None), "x", (bias, None) if with_bias else None]
        got = run("TRANSPOSE_CONV", o, x, consts, out_shape, F32)
        want = ref.transpose_conv_scatter(x, w, dtype=F32, **geo)
        if with_bias:  # the reference adds nothing at all when there is no bias
            want = want + bias
        np.testing.assert_array_equal(got.view(np.uint32), want.astype(F32).view(np.uint32))
        return
    x = rng.integers(-128, 127, x_shape, endpoint=True).astype(np.int8)
    w = rng.integers(-127, 127, w_shape, endpoint=True).astype(np.int8)
    s_in, s_out, s_w = F32(rng.uniform(1e-3, 5e-2)), F32(rng.uniform(1e-2, 2e-1)), scales(rng, oc)
    zi, zo = (int(v) for v in rng.integers(-128, 127, 2, endpoint=True))
    bias = rng.integers(-5000, 5000, oc).astype(np.int32)
    zeros = np.zeros(oc, np.int64)
    consts = [shape_const, (w, (s_w, zeros, 0)), "x", (bias, (s_in * s_w, zeros, 0)) if with_bias else None]
    got = run("TRANSPOSE_CONV", o, x, consts, out_shape, np.int8, (s_in, zi), (s_out, zo))
    src, dst = air(x_shape, np.int8, s_in, zi), air(out_shape, np.int8, s_out, zo)
    mult, shift = wp.conv_multipliers(src, air(w_shape, np.int8, s_w), dst, oc)
    acc = ref.transpose_conv_scatter(x, w, input_offset=-zi, **geo)
    want = ref.requantize(acc, bias if with_bias else None, mult, shift, zo, (-128, 127), np.int8)
    np.testing.assert_array_equal(got, want)


@fast
@given(
    st.integers(1, 3),
    st.integers(1, 30),
    st.integers(1, 10),
    st.sampled_from(["s8", "s16", "f32"]),
    st.booleans(),
    activations,
    st.integers(0, 2**32 - 1),
)
def test_fully_connected(rows, depth, units, kind, per_channel, act, seed):
    rng = np.random.default_rng(seed)
    o = litert.FullyConnectedOptionsT()
    o.fusedActivationFunction = ACTS[act]
    if kind == "f32":
        x, w, bias = (rng.standard_normal(s).astype(F32) for s in ((rows, depth), (units, depth), units))
        got = run("FULLY_CONNECTED", o, x, ["x", (w, None), (bias, None)], (rows, units), F32)
        want = ref.fully_connected_float(x, w, bias, float_clamp(act))
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
        return
    dt = np.int8 if kind == "s8" else np.int16
    info = np.iinfo(dt)
    x = rng.integers(info.min, info.max, (rows, depth), endpoint=True).astype(dt)
    w = rng.integers(-127, 127, (units, depth), endpoint=True).astype(np.int8)
    s_in, s_out = F32(rng.uniform(1e-3, 5e-2)), F32(rng.uniform(1e-2, 2e-1))
    s_w = scales(rng, units if per_channel else 1)
    zi, zo = (int(v) for v in rng.integers(-128, 127, 2, endpoint=True)) if kind == "s8" else (0, 0)
    zw = 0 if per_channel or kind != "s8" else int(rng.integers(-20, 20))
    bias = rng.integers(-5000, 5000, units).astype(np.int32 if kind == "s8" else np.int64)
    wq = (s_w, np.full(s_w.size, zw, np.int64), 0)
    got = run(
        "FULLY_CONNECTED",
        o,
        x,
        ["x", (w, wq), (bias, (s_in * s_w, np.zeros(s_w.size, np.int64), 0))],
        (rows, units),
        dt,
        (s_in, zi),
        (s_out, zo),
    )
    dst = air((rows, units), dt, s_out, zo)
    scales64 = float(s_in) * s_w.astype(np.float64) / float(s_out)
    want = ref.fully_connected_int(x, w, bias, -zi, -zw, zo, scales64, quantized_clamp(act, dst), dt)
    np.testing.assert_array_equal(got, want)


@fast
@given(
    st.sampled_from(
        [((2, 3, 4), (2, 4, 5)), ((1, 3, 4), (2, 4, 5)), ((2, 2, 3, 4), (2, 1, 4, 2)), ((3, 4), (4, 2))]
    ),
    st.booleans(),
    st.booleans(),
    st.sampled_from(["s8", "f32"]),
    st.integers(0, 2**32 - 1),
)
def test_batch_matmul(shapes, adj_x, adj_y, kind, seed):
    rng = np.random.default_rng(seed)
    a_shape, b_shape = shapes
    lhs_shape = (*a_shape[:-2], a_shape[-1], a_shape[-2]) if adj_x else a_shape
    rhs_shape = (*b_shape[:-2], b_shape[-1], b_shape[-2]) if adj_y else b_shape
    out_shape = np.broadcast_shapes(a_shape[:-2], b_shape[:-2]) + (a_shape[-2], b_shape[-1])
    o = litert.BatchMatMulOptionsT()
    o.adjX, o.adjY = adj_x, adj_y
    if kind == "f32":
        lhs, rhs = rng.standard_normal(lhs_shape).astype(F32), rng.standard_normal(rhs_shape).astype(F32)
        got = run("BATCH_MATMUL", o, lhs, ["x", (rhs, None)], out_shape, F32)
        a = np.swapaxes(lhs, -1, -2) if adj_x else lhs
        bm = np.swapaxes(rhs, -1, -2) if adj_y else rhs
        want = np.zeros(out_shape, F32)
        for k in range(a.shape[-1]):
            want = want + bm[..., k, None, :] * a[..., :, k, None]
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
        return
    lhs = rng.integers(-128, 127, lhs_shape, endpoint=True).astype(np.int8)
    rhs = rng.integers(-128, 127, rhs_shape, endpoint=True).astype(np.int8)
    (sl, sr, so), (zl, zr, zo) = scales(rng, 3, 1e-2, 1e-1), rng.integers(-128, 127, 3, endpoint=True)
    got = run("BATCH_MATMUL", o, lhs, ["x", (rhs, (sr, zr))], out_shape, np.int8, (sl, zl), (so, zo))
    mult, shift = wp.product_multiplier(
        air(lhs_shape, np.int8, sl, zl), air(rhs_shape, np.int8, sr, zr), air(out_shape, np.int8, so, zo)
    )
    a = np.swapaxes(lhs, -1, -2) if adj_x else lhs
    bm = np.swapaxes(rhs, -1, -2) if adj_y else rhs
    acc = (a.astype(np.int64) - zl) @ (bm.astype(np.int64) - zr)
    np.testing.assert_array_equal(got, ref.requantize(acc, None, mult, shift, int(zo), (-128, 127), np.int8))


@fast
@given(
    st.sampled_from(["AVERAGE_POOL_2D", "MAX_POOL_2D"]),
    st.sampled_from([np.int8, np.int16, F32]),
    st.integers(1, 4),
    st.integers(1, 3),
    st.sampled_from(["SAME", "VALID"]),
    activations,
    st.integers(0, 2**32 - 1),
)
def test_pools(op, dt, k, stride, padding, act, seed):
    rng = np.random.default_rng(seed)
    h, w, c = int(rng.integers(k, 8)), int(rng.integers(k, 8)), int(rng.integers(1, 4))
    (oh, pt), (ow, pl) = wp.window_geometry(padding, h, k, stride), wp.window_geometry(padding, w, k, stride)
    o = litert.Pool2DOptionsT()
    o.padding, o.strideH, o.strideW = getattr(litert.Padding, padding), stride, stride
    o.filterHeight = o.filterWidth = k
    o.fusedActivationFunction = ACTS[act]
    shape = (2, h, w, c)
    if dt is F32:
        x = (rng.standard_normal(shape) * 3).astype(F32)
        q = None
    else:
        info = np.iinfo(dt)
        x = rng.integers(info.min, info.max, shape, endpoint=True).astype(dt)
        q = (F32(rng.uniform(1e-3, 5e-2)), 0 if dt is np.int16 else int(rng.integers(-128, 127)))
    got = run(op, o, x, ["x"], (2, oh, ow, c), dt, q, q)
    want = np.zeros((2, oh, ow, c), np.float64 if dt is F32 else np.int64)
    for oy, ox, win in ref.pool_windows(x, (oh, ow), (k, k), (stride, stride), (pt, pl)):
        if op == "MAX_POOL_2D":
            want[:, oy, ox, :] = win.max(axis=(1, 2))
        elif dt is F32:
            total = np.zeros((2, c), F32)
            for iy in range(win.shape[1]):
                for ix in range(win.shape[2]):
                    total = total + win[:, iy, ix, :]
            want[:, oy, ox, :] = total / F32(win.shape[1] * win.shape[2])
        else:
            s, n = win.astype(np.int64).sum(axis=(1, 2)), win.shape[1] * win.shape[2]
            num = np.where(s > 0, s + n // 2, s - n // 2)
            want[:, oy, ox, :] = np.sign(num) * (np.abs(num) // n)
    if dt is F32:
        lo, hi = float_clamp(act)
        want = ref.clamp(want.astype(F32), F32(lo), F32(hi)).astype(F32)
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    else:
        lo, hi = quantized_clamp(act, air(shape, dt, q[0], q[1]))
        np.testing.assert_array_equal(got, np.clip(want, lo, hi).astype(dt))


def test_fully_connected_requantizes_in_double_not_fixed_point():
    # With these scales, acc = 11 * 127 = 1397 requantizes to 98 in double precision but to 99
    # through the Q31 multiplier; LiteRT's reference kernel gives 98 (and -98 for -1397).
    s_in, s_w, s_out = F32(0.09491629898548126), F32(0.03187131509184837), F32(0.04290931671857834)
    x = np.arange(-128, 128, dtype=np.int8).reshape(256, 1)
    w = np.full((1, 1), 127, np.int8)
    got = run(
        "FULLY_CONNECTED",
        litert.FullyConnectedOptionsT(),
        x,
        ["x", (w, (s_w, 0)), None],
        (256, 1),
        np.int8,
        (s_in, 0),
        (s_out, 0),
    )
    effective = float(s_in) * float(s_w) / float(s_out)
    want = ref.fully_connected_int(x, w, None, 0, 0, 0, [effective], (-128, 127), np.int8)
    np.testing.assert_array_equal(got, want)
    fixed = ref.requantize(
        x.astype(np.int64) * 127, None, *quantize_multiplier(effective), 0, (-128, 127), np.int8
    )
    assert got[128 + 11, 0] == 98 and fixed[128 + 11, 0] == 99
