"""The elementwise kernels, fed by the operators' Prepare arithmetic, agree with LiteRT itself.

Single-operator models run through the BUILTIN_REF interpreter; the C kernel runs on the same
data with its constants from ``rescale`` and its loops from ``broadcast_geometry``, and integer
outputs must match exactly, float outputs bit for bit.

Quantized SUM is not compared: LiteRT's reference SUM kernel reads int8/int16 data as uint8
(google-ai-edge/LiteRT issue #4079), so the kernel follows the arithmetic that kernel intends,
which TensorFlow Lite Micro implements; ``test_reduce`` checks it against the numpy model.
"""

from __future__ import annotations

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot_ops_builtin.common.quantization import activation_range, activation_range_float
from helia_aot_ops_builtin.common.rescale import (
    add_sub_rescale,
    mul_rescale,
    reduce_rescale,
    requantize_rescale,
    squared_difference_rescale,
)
from helia_aot_ops_builtin.elementwise.broadcast_geometry import (
    broadcast_shape,
    normalize_axes,
    reduced_shape,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.support.elementwise_ctypes import (
    QuantizeParams,
    RequantizeParams,
    binary_params,
    reduce_params,
    run_binary,
    run_reduce,
    run_unary,
)

ACTS = {"NONE": 0, "RELU": 1, "RELU_N1_TO_1": 2, "RELU6": 3}
OPTIONS = {
    "ADD": litert.AddOptionsT,
    "SUB": litert.SubOptionsT,
    "MUL": litert.MulOptionsT,
    "SQUARED_DIFFERENCE": litert.SquaredDifferenceOptionsT,
    "MAXIMUM": litert.MaximumMinimumOptionsT,
    "MINIMUM": litert.MaximumMinimumOptionsT,
}
SUFFIX = {np.dtype(np.int8): "s8", np.dtype(np.int16): "s16", np.dtype(np.float32): "f32"}
fast = settings(max_examples=25)


def litert_run(
    op: str,
    options,
    feeds: list[tuple[np.ndarray, tuple | None]],
    out_shape,
    out_dtype,
    out_q=None,
    consts: tuple = (),
) -> np.ndarray:
    """Run one operator: ``feeds`` are runtime inputs (array, quantization), ``consts`` follow."""
    b = LiteRTModelBuilder()
    ins = [b.add_tensor(f"x{i}", x.shape, x.dtype, quantization=q) for i, (x, q) in enumerate(feeds)]
    cs = [b.add_tensor(f"c{i}", c.shape, c.dtype, data=c) for i, c in enumerate(consts)]
    out = b.add_tensor("y", out_shape, out_dtype, quantization=out_q)
    b.add_operator(op, ins + cs, [out], options)
    b.set_inputs(ins)
    b.set_outputs([out])
    it = Interpreter(model_content=b.to_bytes(), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    it.allocate_tensors()
    for detail, (x, _) in zip(it.get_input_details(), feeds):
        it.set_tensor(detail["index"], x)
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"])


@st.composite
def two_shapes(draw):
    rank = draw(st.integers(1, 4))
    out = draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank))
    return [tuple(d if draw(st.booleans()) else 1 for d in out) for _ in range(2)]


f32_scales = st.floats(1e-4, 1.0).map(lambda s: float(np.float32(s)))


@pytest.mark.parametrize(
    "op,dtype",
    [
        (op, dt)
        for op in OPTIONS
        for dt in (np.int8, np.int16)
        if not (op == "SQUARED_DIFFERENCE" and dt == np.int16)
    ],
)
@fast
@given(
    shapes=two_shapes(),
    seed=st.integers(0, 2**32 - 1),
    s=st.tuples(f32_scales, f32_scales),
    ratio=st.floats(0.6, 4.0),
    zps=st.lists(st.integers(-128, 127), min_size=3, max_size=3),
    act=st.sampled_from(sorted(ACTS)),
)
def test_quantized_binary(op, dtype, shapes, seed, s, ratio, zps, act):
    int16 = dtype == np.int16
    zps = [0, 0, 0] if int16 else zps
    s1, s2 = s
    if op in ("MAXIMUM", "MINIMUM"):
        s2, so, zps = s1, s1, [zps[0]] * 3
    elif op == "MUL":
        so = float(np.float32(s1 * s2 * ratio * 20))
    elif op == "SQUARED_DIFFERENCE":
        so = float(np.float32(max(s1, s2) ** 2 * ratio * 50))
    else:
        so = float(np.float32(max(s1, s2) * ratio))
    options = OPTIONS[op]()
    if op in ("ADD", "SUB", "MUL"):
        options.fusedActivationFunction = ACTS[act]
    else:
        act = "NONE"
    if op in ("ADD", "SUB"):
        options.potScaleInt16 = False
    rng = np.random.default_rng(seed)
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max + 1, size=shapes[0]).astype(dtype)
    b = rng.integers(info.min, info.max + 1, size=shapes[1]).astype(dtype)
    want = litert_run(
        op,
        options,
        [(a, (s1, zps[0])), (b, (s2, zps[1]))],
        broadcast_shape(a.shape, b.shape),
        dtype,
        (so, zps[2]),
    )
    quant = {}
    if op not in ("MAXIMUM", "MINIMUM"):
        if op in ("ADD", "SUB"):
            r = add_sub_rescale(op, int16, s1, zps[0], s2, zps[1], so, zps[2], pot_scale_int16=False)
        elif op == "MUL":
            r = mul_rescale(s1, zps[0], s2, zps[1], so, zps[2])
        else:
            r = squared_difference_rescale(s1, zps[0], s2, zps[1], so, zps[2])
        quant = {name: getattr(r, name) for name in r.__slots__}
        lo, hi = activation_range(act, np.dtype(dtype), so, zps[2])
        quant.update(activation_min=lo, activation_max=hi)
    got = run_binary(op, a, b, binary_params(a.shape, b.shape, quant))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("op", ["ADD", "SUB"])
@fast
@given(
    shape=st.lists(st.integers(1, 6), min_size=1, max_size=3),
    e_out=st.integers(-15, -6),
    shift=st.integers(0, 9),
    first=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_int16_power_of_two(op, shape, e_out, shift, first, seed):
    exps = [e_out, e_out - shift] if first else [e_out - shift, e_out]
    options = OPTIONS[op]()
    options.potScaleInt16 = True
    rng = np.random.default_rng(seed)
    a = rng.integers(-32768, 32768, size=shape).astype(np.int16)
    b = rng.integers(-32768, 32768, size=shape).astype(np.int16)
    want = litert_run(
        op, options, [(a, (2.0 ** exps[0], 0)), (b, (2.0 ** exps[1], 0))], a.shape, np.int16, (2.0**e_out, 0)
    )
    r = add_sub_rescale(op, True, 2.0 ** exps[0], 0, 2.0 ** exps[1], 0, 2.0**e_out, 0)
    quant = dict(
        input1_shift=r.input1_shift,
        input2_shift=r.input2_shift,
        pot_scale=r.pot_scale,
        activation_min=-32768,
        activation_max=32767,
    )
    np.testing.assert_array_equal(run_binary(op, a, b, binary_params(a.shape, b.shape, quant)), want)


@pytest.mark.parametrize("op", sorted(OPTIONS))
@fast
@given(shapes=two_shapes(), seed=st.integers(0, 2**32 - 1), act=st.sampled_from(sorted(ACTS)))
def test_float_binary(op, shapes, seed, act):
    options = OPTIONS[op]()
    if op in ("ADD", "SUB", "MUL"):
        options.fusedActivationFunction = ACTS[act]
    else:
        act = "NONE"
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(shapes[0]) * 3).astype(np.float32)
    b = (rng.standard_normal(shapes[1]) * 3).astype(np.float32)
    want = litert_run(op, options, [(a, None), (b, None)], broadcast_shape(a.shape, b.shape), np.float32)
    lo, hi = activation_range_float(act)
    got = run_binary(op, a, b, binary_params(a.shape, b.shape, lo=lo, hi=hi))
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


@fast
@given(
    size=st.integers(1, 200),
    scale=f32_scales,
    zp=st.integers(-128, 127),
    int16=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_quantize_float(size, scale, zp, int16, seed):
    dtype, zp = (np.int16, 0) if int16 else (np.int8, zp)
    x = (np.random.default_rng(seed).standard_normal(size) * scale * 200).astype(np.float32)
    x[:3] = np.array([np.nan, np.inf, 1e30], np.float32)[: min(size, 3)]
    want = litert_run("QUANTIZE", None, [(x, None)], x.shape, dtype, (scale, zp))
    got = run_unary(
        "quantize",
        f"hk_quantize_f32_{SUFFIX[np.dtype(dtype)]}",
        QuantizeParams(size, scale, zp),
        x,
        np.zeros(size, dtype),
    )
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    "src,dst", [(np.int8, np.int8), (np.int8, np.int16), (np.int16, np.int8), (np.int16, np.int16)]
)
@fast
@given(
    size=st.integers(1, 200),
    s=st.tuples(f32_scales, f32_scales),
    zps=st.tuples(st.integers(-128, 127), st.integers(-128, 127)),
    seed=st.integers(0, 2**32 - 1),
)
def test_requantize(src, dst, size, s, zps, seed):
    zp_in = 0 if src == np.int16 else zps[0]
    zp_out = 0 if dst == np.int16 else zps[1]
    info = np.iinfo(src)
    x = np.random.default_rng(seed).integers(info.min, info.max + 1, size=size).astype(src)
    want = litert_run("QUANTIZE", None, [(x, (s[0], zp_in))], x.shape, dst, (s[1], zp_out))
    multiplier, shift = requantize_rescale(*s)
    name = f"hk_requantize_{SUFFIX[np.dtype(src)]}_{SUFFIX[np.dtype(dst)]}"
    got = run_unary(
        "quantize", name, RequantizeParams(size, zp_in, zp_out, multiplier, shift), x, np.zeros(size, dst)
    )
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.int8, np.int16])
@fast
@given(
    size=st.integers(1, 200),
    scale=st.floats(1e-6, 10.0).map(lambda v: float(np.float32(v))),
    zp=st.integers(-128, 127),
    seed=st.integers(0, 2**32 - 1),
)
def test_dequantize(dtype, size, scale, zp, seed):
    zp = 0 if dtype == np.int16 else zp
    info = np.iinfo(dtype)
    x = np.random.default_rng(seed).integers(info.min, info.max + 1, size=size).astype(dtype)
    want = litert_run("DEQUANTIZE", None, [(x, (scale, zp))], x.shape, np.float32)
    got = run_unary(
        "quantize",
        f"hk_dequantize_{SUFFIX[np.dtype(dtype)]}_f32",
        QuantizeParams(size, scale, zp),
        x,
        np.zeros(size, np.float32),
    )
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


@st.composite
def reductions(draw):
    rank = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.integers(1, 6), min_size=rank, max_size=rank)))
    axes = draw(st.lists(st.integers(-rank, rank - 1), min_size=1, max_size=rank))
    return shape, axes, draw(st.booleans())


@pytest.mark.parametrize(
    "op,dtype", [("MEAN", np.int8), ("MEAN", np.int16), ("MEAN", np.float32), ("SUM", np.float32)]
)
@fast
@given(
    case=reductions(),
    seed=st.integers(0, 2**32 - 1),
    s_in=f32_scales,
    ratio=st.floats(0.2, 4.0),
    zps=st.tuples(st.integers(-128, 127), st.integers(-128, 127)),
)
def test_reduce(op, dtype, case, seed, s_in, ratio, zps):
    shape, axes, keep = case
    options = litert.ReducerOptionsT()
    options.keepDims = keep
    out_shape = reduced_shape(shape, axes, keep)
    rng = np.random.default_rng(seed)
    axis_tensor = np.asarray(axes, np.int32)
    name = f"hk_reduce_{op.lower()}_f32"
    if dtype == np.float32:
        x = (rng.standard_normal(shape) * 3).astype(np.float32)
        want = litert_run(op, options, [(x, None)], out_shape, dtype, consts=(axis_tensor,))
        got = run_reduce(name, reduce_params(shape, axes), x, want.size, dtype)
        np.testing.assert_array_equal(got.view(np.uint32), want.ravel().view(np.uint32))
        return
    zp_in, zp_out = (0, 0) if dtype == np.int16 else zps
    s_out = float(np.float32(s_in * ratio))
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max + 1, size=shape).astype(dtype)
    want = litert_run(
        op, options, [(x, (s_in, zp_in))], out_shape, dtype, (s_out, zp_out), consts=(axis_tensor,)
    )
    count = int(np.prod([shape[a] for a in normalize_axes(axes, len(shape))]))
    multiplier, shift = reduce_rescale(s_in, s_out, count, mean=True)
    params = reduce_params(
        shape, axes, input_zero_point=zp_in, output_zero_point=zp_out, multiplier=multiplier, shift=shift
    )
    got = run_reduce(f"hk_reduce_sum_mean_{SUFFIX[np.dtype(dtype)]}", params, x, want.size, dtype)
    np.testing.assert_array_equal(got, want.ravel())
