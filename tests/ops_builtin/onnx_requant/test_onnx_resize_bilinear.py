"""ONNX_RESIZE_BILINEAR: the operator's tables (onnx_resize.axis_table) and its kernels
(hk_onnx_resize.h) on the host against the numpy model of onnxruntime's linear Resize
(support/onnx_qdq_refmodels.py), on random shapes, every coordinate transformation, sizes and
scales, float32 and int8; bit-exact. The front end's single-operator models run against
onnxruntime itself (helia_aot_frontend_onnx/tests/test_onnx_single_ops.py)."""

from __future__ import annotations

import numpy as np
from helia_aot_ops_builtin.onnx_requant.onnx_resize import MODES, axis_table
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.onnx_requant.onnx_requant_ctypes import ResizeParams, call_resize
from ops_builtin.support import onnx_qdq_refmodels as ref

FEW = settings(max_examples=30, deadline=None)


def _tables(in_hw, out_hw, mode, scales):
    rows, drows = axis_table(out_hw[0], in_hw[0], mode, scales[0])
    cols, dcols = axis_table(out_hw[1], in_hw[1], mode, scales[1])
    return np.array(rows + cols, np.int32), np.array(drows + dcols, np.float32)


@FEW
@given(
    n=st.integers(1, 2),
    in_hw=st.tuples(st.integers(1, 7), st.integers(1, 7)),
    factors=st.tuples(
        st.sampled_from([0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0]), st.sampled_from([0.5, 1.0, 1.25, 2.0])
    ),
    by_scales=st.booleans(),
    channels=st.integers(1, 5),
    mode=st.sampled_from(MODES),
    integer=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_resize_matches_onnxruntimes_arithmetic(n, in_hw, factors, by_scales, channels, mode, integer, seed):
    rng = np.random.default_rng(seed)
    out_hw = tuple(max(1, int(np.float32(f) * d)) for f, d in zip(factors, in_hw, strict=True))
    scales = tuple(float(np.float32(f)) for f in factors) if by_scales else (0.0, 0.0)
    index, distance = _tables(in_hw, out_hw, mode, scales)
    shape = (n, *in_hw, channels)
    out_shape = (n, *out_hw, channels)
    if integer:
        x = rng.integers(-128, 128, shape).astype(np.int8)
        sx, zx = float(np.float32(rng.uniform(0.01, 0.1))), int(rng.integers(-20, 20))
        sy, zy = float(np.float32(sx * rng.uniform(0.6, 1.4))), int(rng.integers(-20, 20))
        out = np.zeros(out_shape, np.int8)
        params = ResizeParams(
            n, *in_hw, *out_hw, channels, sx, zx, sy, zy, index.ctypes.data, distance.ctypes.data
        )
        call_resize("onnx_resize_bilinear_s8", params, x, out)
        want = ref.resize_bilinear_s8(x, sx, zx, out_hw, mode, sy, zy, scales)
    else:
        x = rng.standard_normal(shape).astype(np.float32)
        out = np.zeros(out_shape, np.float32)
        params = ResizeParams(
            n, *in_hw, *out_hw, channels, 1.0, 0, 1.0, 0, index.ctypes.data, distance.ctypes.data
        )
        call_resize("onnx_resize_bilinear_f32", params, x, out)
        want = ref.resize_bilinear(x, out_hw, mode, scales)
    np.testing.assert_array_equal(out, want)


def test_a_scale_is_used_as_given():
    """Scale 2.5 on 3 rows gives 7 rows: output row 3 reads at 3.5 / 2.5 - 0.5 = 0.9 (rows 0 and
    1), not at 3.5 / (7 / 3) - 0.5 = 1 (row 1 alone), as output size over input size would."""
    rows, distances = axis_table(7, 3, "half_pixel", 2.5)
    assert rows[6:8] == [0, 1] and abs(distances[6] - 0.9) < 1e-6
    rows, distances = axis_table(7, 3, "half_pixel")
    assert rows[6:8] == [1, 2] and distances[6] == 0.0
