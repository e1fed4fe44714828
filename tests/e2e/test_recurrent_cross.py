"""SVDF (int8, int16 and int8 state; float32), UNIDIRECTIONAL_SEQUENCE_RNN and GRU run on both
cores under QEMU, several runs in a row on one context (the state carried), against the
reference: integer outputs bit-exact, float32 within FLOAT_TOLERANCE.

The models are builder-made (tests/ops_builtin/support/recurrent_models.py) plus the TensorFlow-made
WHILE-loop GRU that the ``fuse_rolled_gru`` hook fuses; all are linked into one program per core.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.testing import CORES, cross_build_program, run_qemu

from .linked import Module, check_verdicts, write_main

pytestmark = [pytest.mark.cross]


def _builders():
    """tests/ops_builtin/support/recurrent_models.py (the e2e and ops_builtin folders are separate
    packages)."""
    path = Path(__file__).resolve().parents[1] / "ops_builtin" / "support" / "recurrent_models.py"
    spec = importlib.util.spec_from_file_location("recurrent_models_for_cross", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


B = _builders()
random_inputs, rnn_model, streamed_golden, svdf_model = (
    B.random_inputs,
    B.rnn_model,
    B.streamed_golden,
    B.svdf_model,
)

FLOAT_TOLERANCE = 1e-5
"""Bound on float32 outputs, relative to each output's range (the self-test's float bound:
FLOAT_TOLERANCE x the largest expected magnitude of the output). A ULP bound (CORE_FLOAT_ULP)
does not fit here: the reference's matrix-vector products sum in another order than LiteRT's
portable code the kernels follow, which already differs by ~1e-7 on the host, and a recurrent
value near zero turns that into hundreds of ULP; newlib's tanhf/expf add their rounding on the
cores."""

GRU = Path(__file__).resolve().parents[1] / "data" / "recurrent" / "gru_while_seq_float32"


def models(root: Path) -> list[tuple[str, Path, Path, bool]]:
    """(name, model, golden, integer) of every family, goldens streamed through the reference."""
    made = {
        "svdf_int8_state16": svdf_model(
            root / "s16.tflite", batch=2, inputs=6, units=3, rank=2, memory=4, dtype="int8", activation="RELU"
        ),
        "svdf_float32": svdf_model(
            root / "f32.tflite",
            batch=1,
            inputs=5,
            units=4,
            rank=1,
            memory=3,
            dtype="float32",
            activation="TANH",
        ),
        "rnn_float32": rnn_model(root / "rnn.tflite", batch=2, steps=3, inputs=4, units=5, time_major=False),
    }
    found = []
    for name, model in made.items():
        golden = streamed_golden(model, random_inputs(model, 5, seed=7), root / f"{name}.npz")
        found.append((name, model, golden, name.startswith("svdf_int8")))
    found.append(("gru_fused_float32", GRU.with_suffix(".tflite"), GRU.with_suffix(".npz"), False))
    return found


@pytest.mark.parametrize("core", sorted(CORES))
def test_recurrent_families_pass_on_the_core(core, tmp_path):
    modules = []
    for i, (name, model, golden, integer) in enumerate(models(tmp_path)):
        config = ConvertArgs.model_validate(
            {
                "model": {"path": str(model)},
                "module": {"path": str(tmp_path / name), "name": "module", "prefix": f"r{i}"},
                "test": {
                    "enabled": True,
                    "golden_data": str(golden),
                    # Integer outputs exact; float32 within FLOAT_TOLERANCE of the output's range.
                    "tolerance": 0.0 if integer else FLOAT_TOLERANCE,
                },
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
    assert np.all([f"{m.name}: PASS" in run.stdout for m in modules])
