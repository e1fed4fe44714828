"""ONNX_SOFTMAX: its single-operator graph (onnx_single_ops.CASES), converted with requantization
'onnx', gives the numpy QDQ model's bytes in the module's self test."""

from __future__ import annotations


def test_softmax_matches_the_qdq_model(onnx_modules):
    # The fixture fails unless every output passes; this is the line of this operator's output.
    line = onnx_modules.output_line("ONNX_SOFTMAX")
    assert line.endswith(" 0 differ, max diff 0: bit-exact"), line
