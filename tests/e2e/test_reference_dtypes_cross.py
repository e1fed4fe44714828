"""The (operator, element type) pairs added for issue 31 on both cores under QEMU, bit for bit.

Quantized DIV (int8, int16; hk_div_quant) and the integer forms computed on the stored values
(hk_math_narrow: NEG, FLOOR_DIV, FLOOR_MOD, SQUARED_DIFFERENCE): the generated models of
tests/ops_builtin/support/reference_dtypes.py with golden outputs from LiteRT's reference kernels, linked
into one program per core; integer outputs must match exactly.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.testing import CORES, cross_build_program, run_qemu

from .linked import Module, check_verdicts, write_main

pytestmark = [pytest.mark.cross]


def _builders():
    """tests/ops_builtin/support/reference_dtypes.py (the e2e and ops_builtin folders are separate
    packages)."""
    path = Path(__file__).resolve().parents[1] / "ops_builtin" / "support" / "reference_dtypes.py"
    spec = importlib.util.spec_from_file_location("reference_dtypes_for_cross", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


R = _builders()


@pytest.mark.parametrize("core", sorted(CORES))
def test_new_element_types_pass_on_the_core(core, tmp_path):
    modules = []
    for i, (name, (dtype, shapes, quant, activation)) in enumerate(sorted(R.DIV_CASES.items())):
        model = R.div_quantized_model(tmp_path / f"{name}.tflite", dtype, shapes, quant, activation)
        golden = R.div_golden(model, 3, i, tmp_path / f"{name}.npz")
        config = ConvertArgs.model_validate(
            {
                "model": {"path": str(model)},
                "module": {"path": str(tmp_path / name), "name": "module", "prefix": f"d{i}"},
                "test": {"enabled": True, "golden_data": str(golden), "tolerance": 0.0},
            }
        )
        result = AotConverter(config).convert()
        modules.append(Module(name, result.prefix, Path(result.output)))
    for i, (op, dtype) in enumerate(R.NARROW_INTEGER_CASES):
        name = f"{op.lower()}_{dtype}"
        model = R.single_op_model(tmp_path / f"{name}.tflite", op, dtype)
        golden = R.integer_golden(model, 2, i, tmp_path / f"{name}.npz")
        config = ConvertArgs.model_validate(
            {
                "model": {"path": str(model)},
                "module": {"path": str(tmp_path / name), "name": "module", "prefix": f"n{i}"},
                "test": {"enabled": True, "golden_data": str(golden), "tolerance": 0.0},
            }
        )
        result = AotConverter(config).convert()
        modules.append(Module(name, result.prefix, Path(result.output)))
    main = write_main(modules, tmp_path / "main.c")
    sources = [main, *(s for m in modules for s in m.sources)]
    elf = cross_build_program(
        sources, tmp_path, CORES[core], include_dirs=[d for m in modules for d in m.include_dirs]
    )
    run = run_qemu(elf, CORES[core], timeout=300, count=False)
    assert run.returncode == 0, run.stdout
    check_verdicts(run.stdout, modules)
