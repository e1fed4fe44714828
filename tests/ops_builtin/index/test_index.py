"""The hk_index and hk_cumsum kernels refuse bad parameters; their property tests against numpy
models of LiteRT's reference are in each operator's own file (test_gather_nd.py, ...), with the
kernels' loader in support/index_kernels.py.

Each model states the reference behaviour: GATHER_ND picks slices (``params[tuple(vectors)]``),
SCATTER_ND adds updates into zeros in index order (``np.add.at``, integers wrapping),
DYNAMIC_UPDATE_SLICE clamps each start into [0, operand - update], REVERSE_SEQUENCE reverses the
first ``seq_lengths[b]`` entries, ONE_HOT compares the index's low 32 bits with each position,
CUMSUM is an in-order accumulation (``np.add.accumulate``, exclusive = shifted, reverse = flipped).
Out-of-range run-time indices must fail with HK_STATUS_INDEX_RANGE and leave the output as it was.
"""

from __future__ import annotations

import ctypes

import numpy as np

from ops_builtin.support.index_kernels import (
    BAD_PARAM,
    CumsumParams,
    NdParams,
    ReverseSequenceParams,
    UpdateSliceParams,
    dims_of,
    index_lib,
    ptr,
)


def test_bad_parameters_are_refused():
    lib = index_lib()
    buf = np.zeros(64, dtype=np.int8)
    assert (
        lib.hk_gather_nd(ctypes.byref(NdParams(1, 1, 1, 1, 3, 0, dims_of([2]))), ptr(buf), ptr(buf), ptr(buf))
        == BAD_PARAM
    )
    assert (
        lib.hk_scatter_nd(
            ctypes.byref(NdParams(1, 1, 1, 2, 4, 1, dims_of([2]))), ptr(buf), ptr(buf), ptr(buf)
        )
        == BAD_PARAM
    )
    dus = UpdateSliceParams(2, 1, 4, dims_of([2, 2]), dims_of([3, 1]))
    assert lib.hk_dynamic_update_slice(ctypes.byref(dus), ptr(buf), ptr(buf), ptr(buf), ptr(buf)) == BAD_PARAM
    rs = ReverseSequenceParams(2, 1, 4, 1, 1, dims_of([2, 2]))
    assert lib.hk_reverse_sequence(ctypes.byref(rs), ptr(buf), ptr(buf), ptr(buf)) == BAD_PARAM
    assert (
        lib.hk_cumsum(ctypes.byref(CumsumParams(1, 2, 1, 3, False, False)), ptr(buf), ptr(buf)) == BAD_PARAM
    )
