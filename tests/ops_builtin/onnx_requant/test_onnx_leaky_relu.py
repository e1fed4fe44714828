"""ONNX_LEAKY_RELU: onnxruntime's QLinearLeakyRelu table (onnx_lookup.lookup_table of the float
LeakyRelu) looked up by hk_table_s8 on the host, against the numpy model
(support/onnx_qdq_refmodels.py) over every int8 input, on random quantizations and slopes. The
front end's single-operator model runs against onnxruntime itself
(helia_aot_frontend_onnx/tests/test_onnx_single_ops.py)."""

from __future__ import annotations

import numpy as np
from helia_aot_ops_builtin.onnx_requant.onnx_lookup import leaky_relu, lookup_table
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.onnx_requant.onnx_requant_ctypes import call_table_s8
from ops_builtin.support import onnx_qdq_refmodels as ref

FEW = settings(max_examples=30, deadline=None)
ALL = np.arange(-128, 128).astype(np.int8)


@FEW
@given(
    sx=st.floats(0.002, 0.2),
    zx=st.integers(-40, 40),
    ratio=st.floats(0.5, 2.0),
    zy=st.integers(-40, 40),
    alpha=st.sampled_from([0.01, 0.1, 0.2, 0.3333]),
)
def test_the_table_is_qlinear_leaky_relus(sx, zx, ratio, zy, alpha):
    sx = float(np.float32(sx))
    sy = float(np.float32(sx * ratio))
    table = lookup_table(leaky_relu(alpha), sx, zx, sy, zy)
    out = np.zeros_like(ALL)
    call_table_s8(table, ALL, out)
    np.testing.assert_array_equal(out, ref.qlinear_lookup(ALL, ref.leaky_relu(alpha), sx, zx, sy, zy))
    if ratio == 1.0:  # the same quantization: the non-negative inputs pass unchanged
        keep = ALL >= zx
        np.testing.assert_array_equal(out[keep], ALL[keep])
