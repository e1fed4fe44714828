"""IF and WHILE modules built for the Cortex-M55 and Cortex-M4 and run under QEMU.

The corpus IF model and three builder-made models (an int8 loop with an input-dependent trip
count, an int8 IF, nested float32 loops with an IF inside) are linked into one program per core;
each module's golden self test compares with the reference interpreter's outputs (integers
exactly, floats within the core's ULP bound).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.registry import build_default_registry_context
from helia_aot.testing import CORES, cross_build_program, run_qemu
from ops_builtin.support import control_flow_models as cfm

from .corpus import CORE_FLOAT_ULP
from .linked import Module, check_verdicts, convert_models, write_main

pytestmark = [pytest.mark.cross]

BUILT = ("while_int8", "if_int8", "nested_while_float32")


def _convert_built(root: Path, core: str, first_prefix: int) -> list[Module]:
    registry = build_default_registry_context()
    modules = []
    for i, name in enumerate(BUILT, start=first_prefix):
        work = root / name
        work.mkdir()
        path = cfm.MODELS[name](work / f"{name}.tflite")
        golden, _ = cfm.write_golden(path, seed=len(name), samples=6)
        config = ConvertArgs.model_validate(
            {
                "model": {"path": str(path)},
                "module": {"path": str(work / "module"), "name": "module", "prefix": f"m{i}"},
                "test": {
                    "enabled": True,
                    "golden_data": str(golden),
                    "tolerance": 0.0,
                    "tolerance_ulp": CORE_FLOAT_ULP.get(core, 0) if "float" in name else None,
                },
            }
        )
        result = AotConverter(config, registry).convert()
        modules.append(Module(name, result.prefix, Path(result.output)))
    return modules


@pytest.mark.parametrize("core", sorted(CORES))
def test_control_flow_runs_on_the_core(core, tmp_path):
    root = tmp_path / "modules"
    root.mkdir()
    modules = convert_models(["if_cond_float32"], root, core=core)
    modules += _convert_built(root, core, first_prefix=len(modules))
    main = write_main(modules, root / "main.c")
    sources = [main, *(s for m in modules for s in m.sources)]
    elf = cross_build_program(
        sources, tmp_path, CORES[core], include_dirs=[d for m in modules for d in m.include_dirs]
    )
    run = run_qemu(elf, CORES[core], timeout=300, count=False)
    assert run.returncode == 0, run.stdout
    check_verdicts(run.stdout, modules)
