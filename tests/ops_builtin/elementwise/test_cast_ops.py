"""CAST between every pair of bool, int8, uint8, int16, int32, int64 and float32, against the
LiteRT reference interpreter (exact comparison).

One model per input type casts that input to every other type (7 models, 42 pairs). The inputs
cover each type's whole range, and float32 inputs mix fractions of both signs, values that
overflow the narrow integer types and int32 (truncated, then saturated as the reference does)
and exact zeros, so truncation, saturation and bool conversion are all exercised (NaN, which a
generated self-test cannot hold, is covered by the kernel's property test). The self-test builds
the module under ASan/UBSan.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import UnsupportedModelError
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.testing import run_module_test_case

from ops_builtin.activation.test_activation_ops import golden

TYPES = ("bool", "int8", "uint8", "int16", "int32", "int64", "float32")
SHAPE = (3, 41)
_CODES = {
    "bool": litert.TensorType.BOOL,
    "int8": litert.TensorType.INT8,
    "uint8": litert.TensorType.UINT8,
    "int16": litert.TensorType.INT16,
    "int32": litert.TensorType.INT32,
    "int64": litert.TensorType.INT64,
    "float32": litert.TensorType.FLOAT32,
}


def cast_options(source: str, target: str):
    options = litert.CastOptionsT()
    options.inDataType = _CODES[source]
    options.outDataType = _CODES[target]
    return options


def build(path: Path, source: str, targets) -> Path:
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", SHAPE, source)
    outputs = []
    for target in targets:
        y = b.add_tensor(f"to_{target}", SHAPE, target)
        b.add_operator("CAST", [x], [y], cast_options(source, target))
        outputs.append(y)
    b.set_inputs([x])
    b.set_outputs(outputs)
    return b.save(path)


def sample(rng: np.random.Generator, dtype: str) -> np.ndarray:
    if dtype == "bool":
        return rng.integers(0, 2, SHAPE).astype(bool)
    if dtype == "float32":
        # Fractions around zero, values past the int8/uint8/int16 ranges, a few exact zeros.
        x = rng.standard_normal(SHAPE) * rng.choice([0.7, 90.0, 3.0e4, 2.0e5], SHAPE)
        x[rng.random(SHAPE) < 0.1] = 0.0
        x.flat[:2] = [3.0e10, -3.0e10]
        return x.astype(np.float32)
    info = np.iinfo(dtype)
    return rng.integers(info.min, int(info.max) + 1, SHAPE, dtype=dtype)


def convert_and_run(model: Path, golden_npz: Path, tmp_path: Path):
    config = {
        "model": {"path": str(model)},
        "module": {"path": str(tmp_path / "out"), "name": "module"},
        "test": {"enabled": True, "golden_data": str(golden_npz), "tolerance": 0.0},
    }
    result = AotConverter(ConvertArgs.model_validate(config)).convert()
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"


@pytest.mark.parametrize("source", TYPES)
def test_cast_from_each_type_matches_reference(source, tmp_path):
    targets = [t for t in TYPES if t != source]
    model = build(tmp_path / "cast.tflite", source, targets)
    rng = np.random.default_rng(TYPES.index(source))
    samples = [[sample(rng, source)] for _ in range(3)]
    convert_and_run(model, golden(model, samples, tmp_path / "golden.npz"), tmp_path)


def test_cast_from_float16_is_refused_with_the_supported_types(tmp_path):
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", SHAPE, "float32")
    h = b.add_tensor("h", SHAPE, "float16")
    y = b.add_tensor("y", SHAPE, "float32")
    b.add_operator("CAST", [x], [h])
    b.add_operator("CAST", [h], [y])
    b.set_inputs([x])
    b.set_outputs([y])
    config = {
        "model": {"path": str(b.save(tmp_path / "m.tflite"))},
        "module": {"path": str(tmp_path / "out")},
    }
    with pytest.raises(UnsupportedModelError, match="float16"):
        AotConverter(ConvertArgs.model_validate(config)).convert()
