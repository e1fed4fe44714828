"""Property tests of hk_gather against a numpy model of LiteRT reference_ops::Gather.

The model applies ``np.take`` per batch (LiteRT's batch_dims semantics); elements are a trailing
axis of ``elem_size`` bytes so one test covers every element type. Out-of-range indices must make
the kernel fail without writing the output, where LiteRT fails the invoke.
"""

from __future__ import annotations

import ctypes

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from ops_builtin.support.cbuild import build_kernels
from ops_builtin.support.single_op import SingleOp, T, check_against_reference, options

STATUS_OK = 0
STATUS_BAD_PARAM = 5
STATUS_GATHER_INDEX = 6
INDEX_DTYPES = {2: np.int16, 4: np.int32, 8: np.int64}


class GatherParams(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_int32)
        for name in (
            "batch_size",
            "outer_size",
            "axis_size",
            "inner_size",
            "coord_size",
            "elem_size",
            "index_size",
        )
    ]


def _lib() -> ctypes.CDLL:
    lib = build_kernels("gather")
    lib.hk_gather.argtypes = [ctypes.POINTER(GatherParams), ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    return lib


def _reference(table: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """table [B, O, A, I, E], indices [B, C] -> [B, O, C, I, E]."""
    return np.stack([np.take(table[b], indices[b], axis=1) for b in range(table.shape[0])])


def _run(lib, table, indices, index_size, out):
    b, o, a, i, e = table.shape
    params = GatherParams(b, o, a, i, indices.shape[1], e, index_size)
    return lib.hk_gather(ctypes.byref(params), table.ctypes.data, indices.ctypes.data, out.ctypes.data)


@st.composite
def _case(draw):
    dims = [
        draw(st.integers(1, 3)),
        draw(st.integers(1, 3)),
        draw(st.integers(1, 6)),
        draw(st.integers(1, 4)),
        draw(st.sampled_from([1, 2, 4, 8])),
    ]
    coords = draw(st.integers(0, 5))
    index_size = draw(st.sampled_from(sorted(INDEX_DTYPES)))
    seed = draw(st.integers(0, 2**32 - 1))
    return dims, coords, index_size, seed


@given(case=_case())
def test_gather_matches_reference(case):
    lib = _lib()
    dims, coords, index_size, seed = case
    rng = np.random.default_rng(seed)
    table = rng.integers(0, 256, size=dims, dtype=np.uint8)
    indices = rng.integers(0, dims[2], size=(dims[0], coords)).astype(INDEX_DTYPES[index_size])
    expected = _reference(table, indices)
    out = np.zeros(expected.shape, dtype=expected.dtype)
    assert _run(lib, table, indices, index_size, out) == STATUS_OK
    np.testing.assert_array_equal(out, expected)


@given(case=_case(), bad=st.sampled_from(["negative", "too_large", "huge"]))
def test_gather_rejects_out_of_range_index_without_writing(case, bad):
    lib = _lib()
    dims, coords, index_size, seed = case
    coords = max(coords, 1)
    rng = np.random.default_rng(seed)
    table = rng.integers(0, 256, size=dims, dtype=np.uint8)
    indices = rng.integers(0, dims[2], size=(dims[0], coords)).astype(INDEX_DTYPES[index_size])
    limit = np.iinfo(INDEX_DTYPES[index_size])
    value = {"negative": -1, "too_large": dims[2], "huge": limit.max}[bad]
    indices.flat[rng.integers(0, indices.size)] = value
    out = np.full((dims[0], dims[1], coords, dims[3], dims[4]), 0x33, dtype=np.uint8)
    assert _run(lib, table, indices, index_size, out) == STATUS_GATHER_INDEX
    assert (out == 0x33).all()


def test_gather_int64_index_beyond_int32_is_rejected():
    lib = _lib()
    table = np.arange(8, dtype=np.uint8).reshape(1, 1, 8, 1, 1)
    indices = np.array([[2**32 + 1]], dtype=np.int64)
    out = np.zeros((1, 1, 1, 1, 1), dtype=np.uint8)
    assert _run(lib, table, indices, 8, out) == STATUS_GATHER_INDEX


def test_gather_rejects_bad_params():
    lib = _lib()
    buf = np.zeros(8, dtype=np.uint8)
    for index_size in (0, 1, 3, 16):
        params = GatherParams(1, 1, 2, 1, 1, 1, index_size)
        assert (
            lib.hk_gather(ctypes.byref(params), buf.ctypes.data, buf.ctypes.data, buf.ctypes.data)
            == STATUS_BAD_PARAM
        )
    params = GatherParams(1, 1, 2, 1, 1, 0, 4)
    assert (
        lib.hk_gather(ctypes.byref(params), buf.ctypes.data, buf.ctypes.data, buf.ctypes.data)
        == STATUS_BAD_PARAM
    )


# GATHER alone in a model, per element type, against LiteRT's reference kernels
# (tests/ops_builtin/support/single_op.py).

REFERENCE_CASES = {
    "float32": SingleOp(
        "GATHER",
        [T((5, 4), "float32"), T((3,), "int32", low=0, high=4)],
        [T((3, 4), "float32")],
        options("GatherOptionsT", axis=0),
    ),
    "int8": SingleOp(
        "GATHER",
        [T((2, 6, 3), "int8", (0.05, 3)), T((2, 4), "int64", low=0, high=5)],
        [T((2, 2, 4, 3), "int8", (0.05, 3))],
        options("GatherOptionsT", axis=1),
    ),
}
"""Case name -> its one-operator model."""


def test_gather_matches_the_reference(tmp_path):
    check_against_reference(REFERENCE_CASES, tmp_path)
