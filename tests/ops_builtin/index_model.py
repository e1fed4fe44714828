"""Build-convert-run helper for the index, scatter and generator operator tests.

Index inputs must hold valid positions, which the converter's random golden inputs (the whole
integer range) would not, so each test passes its own inputs: this runs them through LiteRT's
reference interpreter, saves inputs and outputs as the module's golden data, converts the model
and runs the module's self-test (compiled under ASan/UBSan), which compares bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from helia_aot import AotConverter, ConvertArgs
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.testing import run_module_test_case

from .strided_copy_model import run_litert


def const(b: LiteRTModelBuilder, name: str, values, dtype: str = "int32") -> int:
    values = np.asarray(values, dtype=np.dtype(dtype))
    return b.add_tensor(name, values.shape, dtype, data=values)


def options(cls, **fields):
    made = cls()
    for key, value in fields.items():
        setattr(made, key, value)
    return made


def run_against_reference(
    builder: LiteRTModelBuilder, samples: Sequence[Sequence[np.ndarray]], tmp_path: Path
):
    """Convert ``builder``'s model with golden data from the reference on ``samples`` and run it.

    Returns the reference outputs (per sample) and the module's host run."""
    model = builder.save(tmp_path / "model.tflite")
    content = model.read_bytes()
    outputs = [run_litert(content, list(sample)) for sample in samples]
    golden = {f"input_{i}": np.stack([s[i] for s in samples]) for i in range(len(samples[0]))}
    golden.update({f"output_{j}": np.stack([o[j] for o in outputs]) for j in range(len(outputs[0]))})
    np.savez(tmp_path / "golden.npz", **golden)
    config = {
        "model": {"path": str(model)},
        "module": {"path": str(tmp_path / "out"), "name": "module"},
        "test": {"enabled": True, "golden_data": str(tmp_path / "golden.npz"), "tolerance": 0.0},
    }
    result = AotConverter(ConvertArgs.model_validate(config)).convert()
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    return outputs, run
