"""Quantized DIV (int8, int16) against LiteRT's reference kernels, bit for bit on the host.

The generated models cover broadcasting, fused activations, quotients far outside the output's
range, and int16, where the reference's rounding shift passes 31 bits for small dividends; they
run in one host program built with ASan and UBSan (linked_host.py).
"""

from __future__ import annotations

from ops_builtin.support.linked_host import run_linked
from ops_builtin.support.reference_dtypes import DIV_CASES, div_golden, div_quantized_model


def test_div_quantized_is_bit_exact(tmp_path):
    cases = {}
    for name, (dtype, shapes, quant, activation) in sorted(DIV_CASES.items()):
        model = div_quantized_model(tmp_path / f"{name}.tflite", dtype, shapes, quant, activation)
        cases[name] = (model, div_golden(model, 4, 3, tmp_path / f"{name}.npz"), None)
    for name, section in run_linked(cases, tmp_path / "linked").items():
        assert "bit-exact" in section, f"{name}: {section}"
