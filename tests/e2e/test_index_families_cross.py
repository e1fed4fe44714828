"""The index, scatter, generator and scan kernels and the data-movement operators on the cores.

Builder-made models (the corpus has none of GATHER_ND, SCATTER_ND, DYNAMIC_UPDATE_SLICE,
REVERSE_SEQUENCE, FILL, DILATE, WHERE, ZEROS_LIKE) cover every ``hk_index`` and ``hk_cumsum``
entry point, and one model holds all eight data-movement operators (SPACE_TO_DEPTH,
DEPTH_TO_SPACE, SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND, MIRROR_PAD in both modes, REVERSE_V2, TILE,
BROADCAST_TO). Their golden data come from LiteRT's reference interpreter on the host; all are
linked into one program per core and run under QEMU on the Cortex-M55 (Helium) and the
Cortex-M4: integer outputs bit-exact, float outputs within CORE_FLOAT_ULP.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter
from helia_aot import AotConverter, ConvertArgs
from helia_aot.registry import build_default_registry_context
from helia_aot.testing import CORES, cross_build_program, run_qemu
from ops_builtin.data_movement.test_block_movers import VARIANTS
from ops_builtin.data_movement.test_block_movers import movers_model as block_movers_model
from ops_builtin.support.index_model import mover_samples, movers_model, scatter_cumsum_model, scatter_samples
from ops_builtin.support.strided_copy_model import run_litert

from .corpus import CORE_FLOAT_ULP
from .linked import Module, check_verdicts, write_main

pytestmark = [pytest.mark.cross]


def _random_samples(model: bytes, seed: int) -> list[list[np.ndarray]]:
    """One sample over each input's whole range (the block movers read no indices)."""
    rng = np.random.default_rng(seed)
    interpreter = Interpreter(model_content=model)
    sample = []
    for detail in interpreter.get_input_details():
        shape, dtype = tuple(detail["shape"]), np.dtype(detail["dtype"])
        if dtype == np.float32:
            sample.append(rng.standard_normal(shape).astype(np.float32))
        else:
            info = np.iinfo(dtype)
            sample.append(rng.integers(info.min, int(info.max) + 1, size=shape).astype(dtype))
    return [sample]


def _models():
    """(name, builder, samples, float outputs) of every model the program links."""
    made = []
    for dtype, index_dtype in (("int8", "int64"), ("float32", "int32")):
        builder, count = movers_model(dtype, index_dtype)
        made.append((f"index_movers_{dtype}", builder, mover_samples(dtype, index_dtype, count), dtype))
    for dtype in ("int32", "float32"):
        made.append((f"scatter_cumsum_{dtype}", scatter_cumsum_model(dtype), scatter_samples(dtype), dtype))
    for dtype, variant in (("int8", "a"), ("float32", "b")):
        builder = block_movers_model(dtype, VARIANTS[variant])
        made.append((f"block_movers_{dtype}", builder, None, dtype))
    return made


def _convert(root: Path, core: str) -> list[Module]:
    registry = build_default_registry_context()
    modules = []
    for i, (name, builder, samples, dtype) in enumerate(_models()):
        work = root / name
        work.mkdir(parents=True)
        model = builder.save(work / "model.tflite")
        samples = samples or _random_samples(model.read_bytes(), 11)
        outputs = [run_litert(model.read_bytes(), list(s)) for s in samples]
        golden = {f"input_{k}": np.stack([s[k] for s in samples]) for k in range(len(samples[0]))}
        golden.update({f"output_{j}": np.stack([o[j] for o in outputs]) for j in range(len(outputs[0]))})
        np.savez(work / "golden.npz", **golden)
        config = ConvertArgs.model_validate(
            {
                "model": {"path": str(model)},
                "module": {"path": str(work / "module"), "name": "module", "prefix": f"m{i}"},
                "test": {
                    "enabled": True,
                    "golden_data": str(work / "golden.npz"),
                    "tolerance": 0.0,
                    "tolerance_ulp": CORE_FLOAT_ULP[core] if dtype == "float32" else None,
                },
            }
        )
        result = AotConverter(config, registry).convert()
        modules.append(Module(name, result.prefix, Path(result.output)))
    return modules


@pytest.mark.parametrize("core", sorted(CORES))
def test_index_and_movers_families_pass_on_the_core(core, tmp_path):
    modules = _convert(tmp_path / "modules", core)
    main = write_main(modules, tmp_path / "main.c")
    sources = [main, *(s for m in modules for s in m.sources)]
    elf = cross_build_program(
        sources, tmp_path, CORES[core], include_dirs=[d for m in modules for d in m.include_dirs]
    )
    run = run_qemu(elf, CORES[core], timeout=300, count=False)
    assert run.returncode == 0, run.stdout
    check_verdicts(run.stdout, modules)
