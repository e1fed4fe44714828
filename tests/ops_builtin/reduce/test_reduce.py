"""Property tests of hk_reduce against numpy models of LiteRT's reference MEAN and SUM.

Shapes up to rank 4 with random axes (negative and repeated ones included) go through
``reduce_geometry`` as the converter does; quantized constants come from ``reduce_rescale``.
Float sums are accumulated in the reference's order, so float results must match bit for bit.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from helia_aot_ops_builtin.common.rescale import reduce_rescale
from helia_aot_ops_builtin.elementwise.broadcast_geometry import normalize_axes, reduce_geometry
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.support.cbuild import build_kernels
from ops_builtin.support.elementwise_ctypes import ReduceParams, reduce_params, run_reduce
from ops_builtin.support.elementwise_refmodels import reduce_float, reduce_quantized


@st.composite
def reductions(draw):
    rank = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.integers(1, 7), min_size=rank, max_size=rank)))
    axes = draw(st.lists(st.integers(-rank, rank - 1), min_size=1, max_size=rank + 1))
    return shape, axes


@pytest.mark.parametrize("mean", [False, True], ids=["sum", "mean"])
@settings(max_examples=100)
@given(case=reductions(), seed=st.integers(0, 2**32 - 1))
def test_float(mean, case, seed):
    shape, axes = case
    x = (np.random.default_rng(seed).standard_normal(shape) * 5).astype(np.float32)
    resolved = normalize_axes(axes, len(shape))
    want = reduce_float(x, resolved, mean).ravel()
    name = "hk_reduce_mean_f32" if mean else "hk_reduce_sum_f32"
    got = run_reduce(name, reduce_params(shape, axes), x, want.size, np.float32)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("dtype", [np.int8, np.int16])
@pytest.mark.parametrize("mean", [False, True], ids=["sum", "mean"])
@settings(max_examples=100)
@given(
    case=reductions(),
    seed=st.integers(0, 2**32 - 1),
    s_in=st.floats(1e-4, 1.0).map(lambda s: float(np.float32(s))),
    ratio=st.floats(0.02, 8.0),
    zps=st.tuples(st.integers(-128, 127), st.integers(-128, 127)),
    same_params=st.booleans(),
)
def test_quantized(dtype, mean, case, seed, s_in, ratio, zps, same_params):
    shape, axes = case
    resolved = normalize_axes(axes, len(shape))
    count = int(np.prod([shape[a] for a in resolved]))
    zp_in, zp_out = (0, 0) if dtype == np.int16 else zps
    s_out = float(np.float32(s_in * ratio * (1 if mean else count)))
    if same_params:
        s_out, zp_out = s_in, zp_in
    multiplier, shift = reduce_rescale(s_in, s_out, count, mean)
    info = np.iinfo(dtype)
    x = np.random.default_rng(seed).integers(info.min, info.max + 1, size=shape).astype(dtype)
    want = reduce_quantized(x, resolved, multiplier, shift, zp_in, zp_out, dtype).ravel()
    params = reduce_params(
        shape, axes, input_zero_point=zp_in, output_zero_point=zp_out, multiplier=multiplier, shift=shift
    )
    name = f"hk_reduce_sum_mean_{'s8' if dtype == np.int8 else 's16'}"
    np.testing.assert_array_equal(run_reduce(name, params, x, want.size, dtype), want)


def test_geometry_folds_neighbours():
    """[2,3,4,5] over axes (1, 2) is one kept, one reduced (12 elements), one kept loop."""
    g = reduce_geometry((2, 3, 4, 5), (1, -2))
    assert g.count == 12 and g.outputs == 10
    assert g.reduced_extents == (1, 1, 1, 12) and g.reduced_strides == (0, 0, 0, 5)
    assert g.kept_extents == (1, 1, 2, 5) and g.kept_strides == (0, 0, 60, 1)


def test_rejects_count_mismatch():
    p = reduce_params((2, 3), (1,))
    p.count = 4
    lib = build_kernels("reduce")
    lib.hk_reduce_sum_f32.argtypes = [ctypes.POINTER(ReduceParams), ctypes.c_void_p, ctypes.c_void_p]
    x = np.zeros(6, np.float32)
    assert lib.hk_reduce_sum_f32(ctypes.byref(p), x.ctypes.data, x.ctypes.data) == 5
