"""Property tests of hk_cast against a numpy model of LiteRT's reference CAST.

The model (``cast_model``) is pinned to the reference interpreter first, on values that matter
for each rule: wrap-around of narrowing integers, saturation of out-of-range floats, NaN (which
the reference turns into the type's largest value), negative zero and bool conversion. Then
hypothesis draws arrays of every source type and checks the kernel against the model for every
target type, bit for bit.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from helia_aot.air import AirTensorType
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot_ops_builtin.elementwise.cast import CAST_CODES
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ops_builtin.support.cbuild import build_kernels
from ops_builtin.support.single_op import SingleOp, T, check_against_reference

TYPES = ("bool", "int8", "uint8", "int16", "int32", "int64", "float32")


class CastParams(ctypes.Structure):
    _fields_ = [("size", ctypes.c_int32), ("from_", ctypes.c_int32), ("to", ctypes.c_int32)]


def cast_model(x: np.ndarray, target: str) -> np.ndarray:
    """What LiteRT's reference CAST computes."""
    if target == "bool":
        return x != 0
    if x.dtype == np.float32 and target != "float32":
        info = np.iinfo(target)
        wide = np.trunc(x.astype(np.float64))
        out = np.where(np.isnan(wide), float(info.max), wide)
        # Compare in float64 against the limits, then convert the in-range values exactly.
        low = out <= float(info.min)
        high = out >= float(info.max)
        safe = np.where(low | high, 0.0, out).astype(np.int64)
        result = np.where(low, info.min, np.where(high, info.max, safe))
        return result.astype(target)
    with np.errstate(over="ignore", invalid="ignore"):
        return x.astype(np.int64).astype(target) if target != "float32" else x.astype(np.float32)


def run_cast(x: np.ndarray, target: str) -> np.ndarray:
    lib = build_kernels("cast")
    out = np.zeros(x.shape, dtype=target)
    params = CastParams(x.size, CAST_CODES[AirTensorType(x.dtype.name)], CAST_CODES[AirTensorType(target)])
    status = lib.hk_cast(
        ctypes.byref(params),
        x.ctypes.data_as(ctypes.c_void_p),
        out.ctypes.data_as(ctypes.c_void_p),
    )
    assert status == 0
    return out


def reference_cast(x: np.ndarray, target: str, tmp_path) -> np.ndarray:
    b = LiteRTModelBuilder()
    i = b.add_tensor("x", x.shape, x.dtype.name)
    o = b.add_tensor("y", x.shape, target)
    b.add_operator("CAST", [i], [o])
    b.set_inputs([i])
    b.set_outputs([o])
    path = b.save(tmp_path / f"cast_{x.dtype.name}_{target}.tflite")
    interpreter = Interpreter(model_path=str(path), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    interpreter.allocate_tensors()
    interpreter.set_tensor(interpreter.get_input_details()[0]["index"], x)
    interpreter.invoke()
    return interpreter.get_tensor(interpreter.get_output_details()[0]["index"]).copy()


EDGES = {
    "float32": np.array(
        [
            np.nan,
            np.inf,
            -np.inf,
            -0.0,
            0.0,
            0.99,
            -0.99,
            127.5,
            -128.9,
            255.9,
            256.0,
            32767.9,
            -32769.0,
            2.2e9,
            -2.2e9,
            9.3e18,
            -9.3e18,
            1e30,
        ],
        np.float32,
    ),
    "int64": np.array([0, 1, -1, 255, 256, -129, 2**31, -(2**31) - 1, 2**62, -(2**63), 2**63 - 1], np.int64),
    "int32": np.array([0, 1, -1, 255, 256, -129, 65535, -32769, 2**31 - 1, -(2**31)], np.int32),
    "bool": np.array([True, False, True], bool),
}


@pytest.mark.parametrize("source", sorted(EDGES))
def test_model_is_pinned_to_the_reference(source, tmp_path):
    for target in TYPES:
        if target == source:
            continue
        x = EDGES[source]
        want = reference_cast(x, target, tmp_path)
        np.testing.assert_array_equal(cast_model(x, target), want, err_msg=f"{source}->{target}")
        np.testing.assert_array_equal(run_cast(x, target), want, err_msg=f"{source}->{target}")


def arrays_of(dtype: str):
    if dtype == "float32":
        elements = st.floats(width=32, allow_nan=True, allow_infinity=True)
    elif dtype == "bool":
        elements = st.booleans()
    else:
        elements = None
    return hnp.arrays(np.dtype(dtype), st.integers(0, 64), elements=elements)


@pytest.mark.parametrize("source", TYPES)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_kernel_matches_model(source, data):
    x = data.draw(arrays_of(source))
    for target in TYPES:
        got = run_cast(x, target)
        want = cast_model(x, target)
        if target == "float32":
            np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
        else:
            np.testing.assert_array_equal(got, want, err_msg=f"{source}->{target}")


# CAST alone in a model, per element type, against LiteRT's reference kernels
# (tests/ops_builtin/support/single_op.py).

REFERENCE_CASES = {
    "float32_to_int32": SingleOp(
        "CAST", [T((2, 7), "float32", low=-100.0, high=100.0)], [T((2, 7), "int32")]
    ),
    "int32_to_float32": SingleOp("CAST", [T((2, 7), "int32")], [T((2, 7), "float32")]),
    "int8_to_int16": SingleOp("CAST", [T((2, 7), "int8")], [T((2, 7), "int16")]),
    "bool_to_float32": SingleOp("CAST", [T((2, 7), "bool")], [T((2, 7), "float32")]),
}
"""Case name -> its one-operator model."""


def test_cast_matches_the_reference(tmp_path):
    check_against_reference(REFERENCE_CASES, tmp_path)
