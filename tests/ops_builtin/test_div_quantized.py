"""Quantized DIV (int8, int16) against LiteRT's reference kernels, bit for bit on the host.

The generated models cover broadcasting, fused activations, quotients far outside the output's
range, and int16, where the reference's rounding shift passes 31 bits for small dividends; the
host build runs under ASan and UBSan.
"""

from __future__ import annotations

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.testing import run_module_test_case

from .reference_dtypes import DIV_CASES, div_golden, div_quantized_model


@pytest.mark.parametrize("case", sorted(DIV_CASES))
def test_div_quantized_is_bit_exact(case, tmp_path):
    dtype, shapes, quant, activation = DIV_CASES[case]
    model = div_quantized_model(tmp_path / "div.tflite", dtype, shapes, quant, activation)
    golden = div_golden(model, 4, 3, tmp_path / "golden.npz")
    config = {
        "model": {"path": str(model)},
        "module": {"path": str(tmp_path / "out"), "name": "module"},
        "test": {"enabled": True, "golden_data": str(golden), "tolerance": 0.0},
    }
    result = AotConverter(ConvertArgs.model_validate(config)).convert()
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed and "bit-exact" in run.stdout, f"{run.stdout}\n{run.stderr[-4000:]}"
