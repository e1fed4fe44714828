"""Property tests of hk_reduce's PROD, MAX and MIN kernels against numpy models of LiteRT's reference.

``prod_quantized`` models LiteRT's QuantizedReduceProd (the first value minus the zero point, then
every product rescaled by the 64-bit MultiplyByQuantizedMultiplier, whose int32 cast keeps the low
bits, and one more rescale at the end); it is pinned to the reference interpreter on builder
models first. MAX and MIN compare stored values (the output keeps the input's quantization) and
float PROD multiplies from 1 in row-major order, so float results must match bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot_ops_builtin.common.rescale import prod_rescale
from helia_aot_ops_builtin.elementwise.broadcast_geometry import normalize_axes, reduced_shape
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.support.elementwise_ctypes import reduce_params, run_reduce
from ops_builtin.support.elementwise_refmodels import RANGES, _row_major_terms


def mbqm_64_wrap(x: int, multiplier: int, shift: int) -> int:
    """LiteRT MultiplyByQuantizedMultiplier(int64_t x, ...) with its static_cast<int32_t>."""
    reduced = (multiplier + (1 << 15)) >> 16 if multiplier < 0x7FFF0000 else 0x7FFF
    total_shift = 15 - shift
    result = (x * reduced + (1 << (total_shift - 1))) >> total_shift
    result &= 0xFFFFFFFF
    return result - (1 << 32) if result >= 1 << 31 else result


def prod_quantized(x, axes, multiplier, shift, zp_in, zp_out, dtype) -> np.ndarray:
    terms = _row_major_terms(np.asarray(x, np.int64), axes)
    flat = terms.reshape(-1, terms.shape[-1])
    lo, hi = RANGES[np.dtype(dtype)]
    out = []
    for row in flat:
        acc = int(row[0]) - zp_in
        for value in row[1:]:
            acc = mbqm_64_wrap(acc * (int(value) - zp_in), multiplier, shift)
        out.append(min(max(mbqm_64_wrap(acc, multiplier, shift) + zp_out, lo), hi))
    return np.asarray(out, dtype=dtype)


def reference_prod(tmp_path, x, axes, q_in, q_out) -> np.ndarray:
    b = LiteRTModelBuilder()
    t = b.add_tensor("x", x.shape, x.dtype.name, quantization=q_in)
    a = b.add_tensor("axes", (len(axes),), "int32", data=np.asarray(axes, np.int32))
    y = b.add_tensor("y", reduced_shape(x.shape, axes, False), x.dtype.name, quantization=q_out)
    b.add_operator("REDUCE_PROD", [t, a], [y], litert.ReducerOptionsT())
    b.set_inputs([t])
    b.set_outputs([y])
    path = b.save(tmp_path / "prod.tflite")
    interpreter = Interpreter(model_path=str(path), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    interpreter.allocate_tensors()
    interpreter.set_tensor(interpreter.get_input_details()[0]["index"], x)
    interpreter.invoke()
    return interpreter.get_tensor(interpreter.get_output_details()[0]["index"]).ravel()


PINS = [
    (np.int8, (3, 4, 5), [1], (1 / 64, 3), (0.05, -4)),
    (np.int8, (2, 7), [0, 1], (0.02, -7), (0.001, 10)),
    (np.int8, (6, 2, 3), [-1], (0.1, 0), (0.5, 0)),
    (np.int16, (4, 6), [1], (1 / 8192, 0), (0.002, 0)),
    (np.int16, (3, 2, 2), [0, 2], (0.001, 0), (1e-9, 0)),
]


@pytest.mark.parametrize("dtype, shape, axes, q_in, q_out", PINS)
def test_prod_model_is_pinned_to_the_reference(dtype, shape, axes, q_in, q_out, tmp_path):
    info = np.iinfo(dtype)
    x = np.random.default_rng(len(shape)).integers(info.min, info.max + 1, shape).astype(dtype)
    resolved = normalize_axes(axes, len(shape))
    count = int(np.prod([shape[a] for a in resolved]))
    multiplier, shift = prod_rescale(q_in[0], q_out[0], count)
    want = reference_prod(tmp_path, x, axes, q_in, q_out)
    np.testing.assert_array_equal(
        prod_quantized(x, resolved, multiplier, shift, q_in[1], q_out[1], dtype), want
    )
    params = reduce_params(
        shape, axes, input_zero_point=q_in[1], output_zero_point=q_out[1], multiplier=multiplier, shift=shift
    )
    suffix = "s8" if dtype == np.int8 else "s16"
    np.testing.assert_array_equal(run_reduce(f"hk_reduce_prod_{suffix}", params, x, want.size, dtype), want)


@st.composite
def reductions(draw):
    rank = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.integers(1, 6), min_size=rank, max_size=rank)))
    axes = draw(st.lists(st.integers(-rank, rank - 1), min_size=1, max_size=rank + 1))
    return shape, axes


@pytest.mark.parametrize("dtype", [np.int8, np.int16])
@settings(max_examples=80, deadline=None)
@given(
    case=reductions(),
    seed=st.integers(0, 2**32 - 1),
    s_in=st.floats(1e-4, 0.5),
    log_out=st.floats(-12.0, 2.0),
    zps=st.tuples(st.integers(-128, 127), st.integers(-128, 127)),
)
def test_quantized_prod(dtype, case, seed, s_in, log_out, zps):
    shape, axes = case
    resolved = normalize_axes(axes, len(shape))
    count = int(np.prod([shape[a] for a in resolved]))
    zp_in, zp_out = (0, 0) if dtype == np.int16 else zps
    multiplier, shift = prod_rescale(s_in, 10.0**log_out, count)
    if not -31 <= shift <= 7:
        shift = max(-31, min(shift, 7))  # the converter refuses these; the kernel's range still holds
    info = np.iinfo(dtype)
    x = np.random.default_rng(seed).integers(info.min, info.max + 1, size=shape).astype(dtype)
    want = prod_quantized(x, resolved, multiplier, shift, zp_in, zp_out, dtype)
    params = reduce_params(
        shape, axes, input_zero_point=zp_in, output_zero_point=zp_out, multiplier=multiplier, shift=shift
    )
    suffix = "s8" if dtype == np.int8 else "s16"
    np.testing.assert_array_equal(run_reduce(f"hk_reduce_prod_{suffix}", params, x, want.size, dtype), want)


@pytest.mark.parametrize("kind", ["max", "min"])
@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.float32])
@settings(max_examples=60, deadline=None)
@given(case=reductions(), seed=st.integers(0, 2**32 - 1))
def test_max_min(kind, dtype, case, seed):
    shape, axes = case
    resolved = normalize_axes(axes, len(shape))
    rng = np.random.default_rng(seed)
    if dtype == np.float32:
        x = (rng.standard_normal(shape) * 100).astype(np.float32)
    else:
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max + 1, size=shape).astype(dtype)
    terms = _row_major_terms(x, resolved)
    want = (terms.max(axis=-1) if kind == "max" else terms.min(axis=-1)).astype(dtype).ravel()
    suffix = {np.int8: "s8", np.int16: "s16", np.float32: "f32"}[dtype]
    got = run_reduce(f"hk_reduce_{kind}_{suffix}", reduce_params(shape, axes), x, want.size, dtype)
    np.testing.assert_array_equal(got, want)


@settings(max_examples=60, deadline=None)
@given(case=reductions(), seed=st.integers(0, 2**32 - 1))
def test_float_prod(case, seed):
    shape, axes = case
    resolved = normalize_axes(axes, len(shape))
    x = (np.random.default_rng(seed).standard_normal(shape) * 2).astype(np.float32)
    terms = _row_major_terms(x, resolved)
    acc = np.ones(terms.shape[:-1], np.float32)
    for j in range(terms.shape[-1]):
        acc = (terms[..., j] * acc).astype(np.float32)
    want = acc.ravel()
    got = run_reduce("hk_reduce_prod_f32", reduce_params(shape, axes), x, want.size, np.float32)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def integer_reduce(terms: np.ndarray, kind: str, dtype) -> np.ndarray:
    """ReduceGeneric over int32/int64: sums and products wrap (numpy's integer arithmetic wraps)."""
    with np.errstate(over="ignore"):
        if kind == "sum":
            return terms.sum(axis=-1, dtype=dtype)
        if kind == "prod":
            return terms.prod(axis=-1, dtype=dtype)
    return terms.max(axis=-1) if kind == "max" else terms.min(axis=-1)


@pytest.mark.parametrize("kind", ["sum", "prod", "max", "min"])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@settings(max_examples=60, deadline=None)
@given(case=reductions(), seed=st.integers(0, 2**32 - 1), narrow=st.booleans())
def test_integer_reductions(kind, dtype, case, seed, narrow):
    shape, axes = case
    resolved = normalize_axes(axes, len(shape))
    info = np.iinfo(dtype)
    low, high = (-3, 4) if narrow else (info.min, info.max)
    x = np.random.default_rng(seed).integers(low, high, size=shape, dtype=dtype, endpoint=not narrow)
    want = integer_reduce(_row_major_terms(x, resolved).astype(dtype), kind, dtype).astype(dtype).ravel()
    suffix = "s32" if dtype == np.int32 else "s64"
    got = run_reduce(f"hk_reduce_{kind}_{suffix}", reduce_params(shape, axes), x, want.size, dtype)
    np.testing.assert_array_equal(got, want)
