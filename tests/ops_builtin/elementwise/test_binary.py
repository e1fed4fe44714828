"""Property tests of hk_binary against numpy models of the LiteRT reference binary kernels.

Shapes are random broadcasts up to rank 5 (folded by ``broadcast_geometry``, as the converter
does); rescale constants come from ``rescale`` for random scales and zero points, so the tests
cover the Prepare arithmetic the operators use together with the kernels. Integer results must
match exactly, float ones bit for bit.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from helia_aot_ops_builtin.common.quantization import activation_range
from helia_aot_ops_builtin.common.rescale import (
    add_sub_rescale,
    mul_rescale,
    squared_difference_rescale,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.support.cbuild import build_kernels
from ops_builtin.support.elementwise_ctypes import FLT_MAX, BinaryParams, binary_params, run_binary
from ops_builtin.support.elementwise_refmodels import binary_float, binary_quantized


@st.composite
def broadcast_shapes(draw, max_rank: int = 5):
    """Two shapes that broadcast, each possibly of lower rank and with 1s in any dimension."""
    rank = draw(st.integers(1, max_rank))
    out = draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank))
    shapes = []
    for _ in range(2):
        keep = draw(st.lists(st.booleans(), min_size=rank, max_size=rank))
        shape = [d if k else 1 for d, k in zip(out, keep)]
        shapes.append(tuple(shape[draw(st.integers(0, rank - 1)) :] if draw(st.booleans()) else shape))
    return shapes


def _ints(draw, shape, dtype):
    info = np.iinfo(dtype)
    seed = draw(st.integers(0, 2**32 - 1))
    return np.random.default_rng(seed).integers(info.min, info.max + 1, size=shape, dtype=dtype)


scales = st.floats(1e-4, 1.0).map(lambda s: float(np.float32(s)))
ACTIVATIONS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")


def _quant_case(draw, op: str, dtype):
    int16 = np.dtype(dtype) == np.int16
    zps = [0, 0, 0] if int16 else [draw(st.integers(-128, 127)) for _ in range(3)]
    s1, s2 = draw(scales), draw(scales)
    if op in ("ADD", "SUB"):
        so = float(np.float32(max(s1, s2) * draw(st.floats(0.6, 4.0))))
        r = add_sub_rescale(op, int16, s1, zps[0], s2, zps[1], so, zps[2], pot_scale_int16=False)
    elif op == "MUL":
        so = float(np.float32(s1 * s2 * draw(st.floats(0.05, 300.0))))
        r = mul_rescale(s1, zps[0], s2, zps[1], so, zps[2])
    else:
        so = float(np.float32(max(s1, s2) ** 2 * draw(st.floats(0.5, 400.0))))
        r = squared_difference_rescale(s1, zps[0], s2, zps[1], so, zps[2])
    act = "NONE" if op == "SQUARED_DIFFERENCE" else draw(st.sampled_from(ACTIVATIONS))
    lo, hi = activation_range(act, np.dtype(dtype), so, zps[2])
    q = {name: getattr(r, name) for name in r.__slots__ if name != "pot_scale"}
    q.update(activation_min=lo, activation_max=hi)
    return q


@pytest.mark.parametrize(
    "op,dtype",
    [
        ("ADD", np.int8),
        ("SUB", np.int8),
        ("MUL", np.int8),
        ("SQUARED_DIFFERENCE", np.int8),
        ("MAXIMUM", np.int8),
        ("MINIMUM", np.int8),
        ("ADD", np.int16),
        ("SUB", np.int16),
        ("MUL", np.int16),
        ("MAXIMUM", np.int16),
        ("MINIMUM", np.int16),
    ],
)
@settings(max_examples=60)
@given(data=st.data())
def test_quantized_matches_reference(op, dtype, data):
    shape1, shape2 = data.draw(broadcast_shapes())
    a, b = _ints(data.draw, shape1, dtype), _ints(data.draw, shape2, dtype)
    q = {} if op in ("MAXIMUM", "MINIMUM") else _quant_case(data.draw, op, dtype)
    got = run_binary(op, a, b, binary_params(shape1, shape2, q))
    np.testing.assert_array_equal(got, binary_quantized(op, a, b, q, dtype))


@pytest.mark.parametrize("op", ["ADD", "SUB"])
@settings(max_examples=60)
@given(data=st.data())
def test_int16_power_of_two_path(op, data):
    """pot_scale_int16 with power-of-two scales: one input shifted right onto the output scale."""
    shape = tuple(data.draw(st.lists(st.integers(1, 6), min_size=1, max_size=4)))
    e_out = data.draw(st.integers(-15, -5))
    shifted = data.draw(st.integers(0, 15))
    exps = [e_out, e_out - shifted]
    if data.draw(st.booleans()):
        exps.reverse()
    r = add_sub_rescale(op, True, 2.0 ** exps[0], 0, 2.0 ** exps[1], 0, 2.0**e_out, 0)
    assert r.pot_scale
    act = data.draw(st.sampled_from(ACTIVATIONS))
    lo, hi = activation_range(act, np.dtype(np.int16), 2.0**e_out, 0)
    q = dict(
        input1_shift=r.input1_shift,
        input2_shift=r.input2_shift,
        pot_scale=True,
        activation_min=lo,
        activation_max=hi,
    )
    a, b = _ints(data.draw, shape, np.int16), _ints(data.draw, shape, np.int16)
    got = run_binary(op, a, b, binary_params(shape, shape, q))
    np.testing.assert_array_equal(got, binary_quantized(op, a, b, q, np.int16))


@pytest.mark.parametrize("op", ["ADD", "SUB", "MUL", "SQUARED_DIFFERENCE", "MAXIMUM", "MINIMUM"])
@settings(max_examples=60)
@given(data=st.data())
def test_float_matches_reference(op, data):
    shape1, shape2 = data.draw(broadcast_shapes())
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    a = (rng.standard_normal(shape1) * 4).astype(np.float32)
    b = (rng.standard_normal(shape2) * 4).astype(np.float32)
    lo, hi = (-FLT_MAX, FLT_MAX)
    if op in ("ADD", "SUB", "MUL"):
        lo, hi = data.draw(st.sampled_from([(-FLT_MAX, FLT_MAX), (0.0, FLT_MAX), (0.0, 6.0), (-1.0, 1.0)]))
    got = run_binary(op, a, b, binary_params(shape1, shape2, lo=lo, hi=hi))
    np.testing.assert_array_equal(got.view(np.uint32), binary_float(op, a, b, lo, hi).view(np.uint32))


def test_float_special_values():
    """NaN passes through the clamp, infinities clamp to +-FLT_MAX, ties keep the second operand."""
    a = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0], np.float32)
    b = np.array([1.0, 1.0, 1.0, -0.0, 0.0, np.nan], np.float32)
    p = binary_params(a.shape, b.shape)
    for op in ("ADD", "MUL", "MAXIMUM", "MINIMUM"):
        want = binary_float(op, a, b, -FLT_MAX, FLT_MAX)
        np.testing.assert_array_equal(run_binary(op, a, b, p).view(np.uint32), want.view(np.uint32))
    assert run_binary("ADD", a, b, p)[1] == np.float32(FLT_MAX)


@pytest.mark.parametrize("dtype", [np.int8, np.float32])
def test_output_may_overwrite_a_same_shape_input(dtype):
    """Elementwise kernels read an element's inputs before writing it, so in-place is safe."""
    rng = np.random.default_rng(7)
    a = rng.integers(-100, 100, size=(3, 4, 5)).astype(dtype)
    b = rng.integers(-100, 100, size=(4, 1)).astype(dtype)
    q = dict(
        input1_offset=3,
        input2_offset=-2,
        output_offset=1,
        left_shift=20,
        input1_multiplier=1 << 30,
        input1_shift=0,
        input2_multiplier=1 << 30,
        input2_shift=0,
        output_multiplier=1 << 30,
        output_shift=-19,
        activation_min=-128,
        activation_max=127,
    )
    params = binary_params(a.shape, b.shape, q if dtype == np.int8 else None)
    want = run_binary("ADD", a, b, params)
    got = run_binary("ADD", a, b, params, out=a)
    np.testing.assert_array_equal(got, want)


def test_rejects_inconsistent_geometry():
    lib = build_kernels("binary")
    lib.hk_add_f32.argtypes = [ctypes.POINTER(BinaryParams)] + [ctypes.c_void_p] * 3
    a = np.zeros(6, np.float32)
    p = binary_params((2, 3), (1, 3))
    p.geometry.size = 7
    assert lib.hk_add_f32(ctypes.byref(p), a.ctypes.data, a.ctypes.data, a.ctypes.data) == 5
    assert lib.hk_add_f32(None, a.ctypes.data, a.ctypes.data, a.ctypes.data) == 5
