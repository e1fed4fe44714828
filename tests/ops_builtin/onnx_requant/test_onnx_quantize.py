"""ONNX_QUANTIZE: its single-operator graphs (onnx_single_ops.CASES: a requantization from int8
and, after a DEQUANTIZE, a quantization of float32), converted with requantization 'onnx', give
the numpy QDQ model's bytes in the module's self test."""

from __future__ import annotations

import numpy as np

from ops_builtin.support import onnx_qdq_refmodels as ref


def test_quantize_matches_the_qdq_model(onnx_modules):
    # The fixture fails unless every output passes; these are the lines of this operator's outputs.
    for key in ("ONNX_QUANTIZE", "FLOAT_QUANTIZE"):
        line = onnx_modules.output_line(key)
        assert line.endswith(" 0 differ, max diff 0: bit-exact"), line


def test_the_cases_scales_put_values_on_ties():
    """(q - zp) * 0.05 / 0.1 and * 0.25 / 0.5 are halves for every other q: rounded half to even
    they differ from LiteRT's half away from zero, so a kernel rounding the LiteRT way fails."""
    q = np.arange(-128, 128)
    for sx, zx, sy, zy in ((0.05, 3, 0.1, -5), (0.25, -1, 0.5, 2)):
        real = (q - zx).astype(np.float32) * np.float32(sx) / np.float32(sy)
        away = np.clip(np.trunc(real + np.copysign(0.5, real)) + zy, -128, 127)
        assert (ref.requantize_linear(q, sx, zx, sy, zy) != away).sum() > 50
