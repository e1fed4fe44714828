"""The kernel families and paths the type work added pass their golden tests on the M55 (Helium)
and the M4 under QEMU, bit-exact: CAST (hk_cast) from float32 and int64 to every type, quantized
int8/int16 REDUCE_PROD and int64 reductions (hk_reduce), int32 ADD/SUB/MUL/MAXIMUM/MINIMUM
(hk_math's int32 walk), a dynamic-batch SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE chain left to
run as kernels (the transform disabled) and per-channel QUANTIZE (hk_quantize_channel). Builder
models with golden outputs from the reference interpreter, linked into one program per core (one
QEMU boot each).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.air import AirQuantization
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.registry import build_default_registry_context
from helia_aot.testing import CORES, cross_build_program, run_qemu
from ops_builtin.activation.test_activation_ops import golden
from ops_builtin.data_movement.test_shape_expressions import dynamic_batch_model
from ops_builtin.elementwise.test_cast_ops import TYPES, sample
from ops_builtin.elementwise.test_cast_ops import build as build_cast
from ops_builtin.elementwise.test_int32_arithmetic_ops import build as build_int32
from ops_builtin.reduce.test_reduce_minmax_prod import PROD
from ops_builtin.reduce.test_reduce_minmax_prod import _build as build_reduce

from .linked import Module, check_verdicts, write_main

pytestmark = [pytest.mark.cross]


def _models(root: Path) -> list[tuple[str, Path, list[list[np.ndarray]], list[dict]]]:
    """(name, model, input samples, transforms[]) for each family."""
    rng = np.random.default_rng(11)
    models = []
    for source in ("float32", "int64"):
        path = build_cast(root / f"cast_{source}.tflite", source, [t for t in TYPES if t != source])
        models.append((f"cast_from_{source}", path, [[sample(rng, source)] for _ in range(2)], []))
    for dtype, q, out_q in (("int8", (1 / 64, 3), (0.05, -4)), ("int16", (1 / 8192, 0), (0.002, 0))):
        path = build_reduce(root / f"prod_{dtype}.tflite", (2, 3, 4, 5), dtype, q, PROD, out_q=out_q)
        info = np.iinfo(dtype)
        samples = [[rng.integers(info.min, info.max + 1, (2, 3, 4, 5)).astype(dtype)] for _ in range(2)]
        models.append((f"reduce_prod_{dtype}", path, samples, []))
    cases = [
        ("REDUCE_MAX", [1], True),
        ("REDUCE_MIN", [0, 2], False),
        ("REDUCE_PROD", [2], False),
        ("SUM", [0, 1], False),
    ]
    path = build_reduce(root / "reduce_int64.tflite", (3, 4, 5), "int64", None, cases)
    samples = [
        [rng.integers(-(2**63), 2**63 - 1, (3, 4, 5), dtype=np.int64, endpoint=True)] for _ in range(2)
    ]
    models.append(("reduce_int64", path, samples, []))
    path = build_int32(root / "int32.tflite", "RELU", (2, 3, 4), (1, 3, 1), (2, 3, 4))
    samples = [
        [rng.integers(-(2**31), 2**31, s, dtype=np.int64).astype(np.int32) for s in ((2, 3, 4), (1, 3, 1))]
    ]
    models.append(("int32_arithmetic", path, samples, []))
    path = dynamic_batch_model(
        root / "shape.tflite", "int8", arithmetic=True, minus_one=False, shape_type="int32"
    )
    samples = [[rng.integers(-128, 128, (1, 6, 4)).astype(np.int8)]]
    models.append(
        ("shape_run_time", path, samples, [{"name": "FOLD_STATIC_SHAPE_EXPRESSIONS", "enabled": False}])
    )
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (3, 4, 5), "float32")
    y = b.add_tensor(
        "y",
        (3, 4, 5),
        "int8",
        quantization=AirQuantization(
            rng.uniform(0.005, 0.2, 4).astype(np.float32), rng.integers(-100, 100, 4), axis=1
        ),
    )
    b.add_operator("QUANTIZE", [x], [y])
    b.set_inputs([x])
    b.set_outputs([y])
    path = b.save(root / "quantize_per_channel.tflite")
    samples = [[(rng.standard_normal((3, 4, 5)) * 20).astype(np.float32)] for _ in range(2)]
    models.append(("quantize_per_channel_int8", path, samples, []))
    return models


def convert(root: Path) -> list[Module]:
    registry = build_default_registry_context()
    modules = []
    for i, (name, path, samples, transforms) in enumerate(_models(root)):
        work = root / name
        work.mkdir()
        config = ConvertArgs.model_validate(
            {
                "model": {"path": str(path)},
                "module": {"path": str(work), "name": "module", "prefix": f"m{i}"},
                "test": {
                    "enabled": True,
                    "golden_data": str(golden(path, samples, root / f"{name}.npz")),
                    "tolerance": 0.0,  # bit-exact, the float CAST included
                },
                "transforms": transforms,
            }
        )
        result = AotConverter(config, registry).convert()
        modules.append(Module(name, result.prefix, Path(result.output)))
    return modules


@pytest.mark.parametrize("core", sorted(CORES))
def test_type_families_pass_on_the_core(core, tmp_path):
    root = tmp_path / "modules"
    root.mkdir()
    modules = convert(root)
    main = write_main(modules, root / "main.c")
    sources = [main, *(s for m in modules for s in m.sources)]
    elf = cross_build_program(
        sources, tmp_path, CORES[core], include_dirs=[d for m in modules for d in m.include_dirs]
    )
    run = run_qemu(elf, CORES[core], timeout=300, count=False)
    assert run.returncode == 0, run.stdout
    check_verdicts(run.stdout, modules)
