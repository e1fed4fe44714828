"""ONNX_LOGISTIC: onnxruntime's QLinearSigmoid table (onnx_lookup.lookup_table of MLAS's
logistic) looked up by hk_table_s8 on the host, against the numpy model
(support/onnx_qdq_refmodels.py) over every int8 input, on random quantizations; and the
approximation within one step of the exact sigmoid. The front end's single-operator model runs
against onnxruntime itself (helia_aot_frontend_onnx/tests/test_onnx_single_ops.py)."""

from __future__ import annotations

import numpy as np
from helia_aot_ops_builtin.onnx_requant.onnx_lookup import lookup_table, mlas_logistic
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.onnx_requant.onnx_requant_ctypes import call_table_s8
from ops_builtin.support import onnx_qdq_refmodels as ref

FEW = settings(max_examples=30, deadline=None)
ALL = np.arange(-128, 128).astype(np.int8)


@FEW
@given(
    sx=st.floats(0.001, 0.3),
    zx=st.integers(-60, 60),
    sy=st.sampled_from([1 / 256, 0.002, 0.005]),
    zy=st.integers(-128, -60),
)
def test_the_table_is_qlinear_sigmoids(sx, zx, sy, zy):
    sx, sy = float(np.float32(sx)), float(np.float32(sy))
    table = lookup_table(mlas_logistic, sx, zx, sy, zy)
    out = np.zeros_like(ALL)
    call_table_s8(table, ALL, out)
    np.testing.assert_array_equal(out, ref.qlinear_lookup(ALL, ref.mlas_logistic, sx, zx, sy, zy))
    assert np.all(np.diff(out.astype(int)) >= 0)  # a sigmoid of a rising input never falls


def test_the_approximation_is_within_one_step_of_the_sigmoid():
    x = np.linspace(-20, 20, 40001, dtype=np.float32)
    exact = 1.0 / (1.0 + np.exp(-x.astype(np.float64)))
    assert np.max(np.abs(mlas_logistic(x) - exact)) < 1 / 256 / 2
