"""The hk_index and hk_cumsum kernels loaded through ctypes, their parameter structs and the
drawing helpers their property tests share (the tests: each operator's own file, GATHER_ND,
SCATTER_ND, DYNAMIC_UPDATE_SLICE, REVERSE_SEQUENCE, ONE_HOT, CUMSUM; the refusals of bad
parameters in tests/ops_builtin/index/test_index.py).
"""

from __future__ import annotations

import ctypes

import numpy as np
from hypothesis import strategies as st

from ops_builtin.support.cbuild import build_kernels

OK, BAD_PARAM, INDEX_RANGE = 0, 5, 20
MAX_RANK = 6
INDEX_DTYPES = {2: np.int16, 4: np.int32, 8: np.int64}
SCATTER_KINDS = {np.float32: 0, np.int8: 1, np.uint8: 2, np.int32: 3, np.int64: 4}
CUMSUM_KINDS = {np.float32: 0, np.int32: 1, np.int64: 2}


def _ints(*names):
    return [(n, ctypes.c_int32) for n in names]


class NdParams(ctypes.Structure):
    _fields_ = [
        *_ints("count", "depth", "slice_size", "elem_size", "index_size", "kind"),
        ("dims", ctypes.c_int32 * MAX_RANK),
    ]


class UpdateSliceParams(ctypes.Structure):
    _fields_ = [
        *_ints("rank", "elem_size", "index_size"),
        ("operand_dims", ctypes.c_int32 * MAX_RANK),
        ("update_dims", ctypes.c_int32 * MAX_RANK),
    ]


class ReverseSequenceParams(ctypes.Structure):
    _fields_ = [
        *_ints("rank", "elem_size", "index_size", "seq_dim", "batch_dim"),
        ("dims", ctypes.c_int32 * MAX_RANK),
    ]


class OneHotParams(ctypes.Structure):
    _fields_ = _ints("prefix", "depth", "suffix", "elem_size", "index_size")


class CumsumParams(ctypes.Structure):
    _fields_ = [
        *_ints("outer", "axis_size", "inner", "kind"),
        ("exclusive", ctypes.c_bool),
        ("reverse", ctypes.c_bool),
    ]


def index_lib():
    lib = build_kernels("index", "cumsum")
    arity = {
        "hk_gather_nd": 3,
        "hk_scatter_nd": 3,
        "hk_dynamic_update_slice": 4,
        "hk_reverse_sequence": 3,
        "hk_one_hot": 4,
        "hk_cumsum": 2,
    }
    for name, pointers in arity.items():
        getattr(lib, name).argtypes = [ctypes.c_void_p] * (pointers + 1)
        getattr(lib, name).restype = ctypes.c_int32
    return lib


def dims_of(values):
    return (ctypes.c_int32 * MAX_RANK)(*list(values), *([0] * (MAX_RANK - len(values))))


def ptr(array):
    return array.ctypes.data


def random_values(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype == np.float32:
        return rng.standard_normal(shape).astype(np.float32)
    info = np.iinfo(dtype)
    return rng.integers(info.min, int(info.max) + 1, size=shape, dtype=dtype)


@st.composite
def nd_case(draw):
    rank = draw(st.integers(1, 4))
    shape = tuple(draw(st.integers(1, 4)) for _ in range(rank))
    depth = draw(st.integers(0, rank))
    count = draw(st.integers(1, 6))
    index_size = draw(st.sampled_from(sorted(INDEX_DTYPES)))
    return shape, depth, count, index_size, draw(st.integers(0, 2**32 - 1))


def nd_params(shape, depth, count, elem_size, index_size, kind=0):
    slice_size = int(np.prod(shape[depth:], dtype=np.int64))
    return NdParams(count, depth, slice_size, elem_size, index_size, kind, dims_of(shape[:depth]))


def index_vectors(rng, shape, depth, count, index_size):
    columns = [rng.integers(0, shape[j], size=count) for j in range(depth)]
    vectors = np.stack(columns, axis=-1) if columns else np.zeros((count, 0), dtype=np.int64)
    return vectors.astype(INDEX_DTYPES[index_size])
