"""SHAPE and FOLD_STATIC_SHAPE_EXPRESSIONS on models exported with a dynamic batch dimension.

The models are what Keras writes for ``Reshape`` under a dynamic batch: the input's
``shape_signature`` has -1, SHAPE reads the batch at run time, STRIDED_SLICE takes it, integer
arithmetic and PACK build the target and RESHAPE uses it. Each is converted with the transform on
(the default: the chain becomes constants and SHAPE disappears) and off (SHAPE, STRIDED_SLICE,
PACK and the int32 arithmetic run as kernels), built under ASan/UBSan and checked bit for bit
against the LiteRT reference interpreter.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.pipeline.load import load_model
from helia_aot.registry import build_default_registry_context
from helia_aot.testing import run_module_test_case
from helia_aot.transforms import TransformPipeline, TransformSpec

from ops_builtin.activation.test_activation_ops import golden

FOLD = "FOLD_STATIC_SHAPE_EXPRESSIONS"


def _options(cls, **fields):
    options = cls()
    for name, value in fields.items():
        setattr(options, name, value)
    return options


def dynamic_batch_model(
    path: Path, dtype: str, *, arithmetic: bool, minus_one: bool, shape_type: str
) -> Path:
    """x[?, 6, 4] -> RESHAPE(x, PACK(batch', rest)) -> ADD with itself (so the output is computed).

    ``arithmetic`` computes the target as (batch * 2, 12 // 1 ... ) with int32 MUL and FLOOR_DIV;
    ``minus_one`` leaves -1 in the packed target for RESHAPE to resolve."""
    q = (0.05, 2) if dtype == "int8" else None
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (1, 6, 4), dtype, quantization=q, shape_signature=(-1, 6, 4))
    shape = b.add_tensor("shape", (3,), shape_type)
    b.add_operator(
        "SHAPE",
        [x],
        [shape],
        _options(litert.ShapeOptionsT, outType=getattr(litert.TensorType, shape_type.upper())),
    )
    if shape_type == "int64":
        cast = b.add_tensor("shape32", (3,), "int32")
        b.add_operator("CAST", [shape], [cast])
        shape = cast
    begin = b.add_tensor("begin", (1,), "int32", data=np.array([0], np.int32))
    end = b.add_tensor("end", (1,), "int32", data=np.array([1], np.int32))
    step = b.add_tensor("step", (1,), "int32", data=np.array([1], np.int32))
    batch = b.add_tensor("batch", (), "int32")
    b.add_operator(
        "STRIDED_SLICE",
        [shape, begin, end, step],
        [batch],
        _options(litert.StridedSliceOptionsT, shrinkAxisMask=1),
    )
    rows = batch
    rest_value = -1 if minus_one else 24
    if arithmetic:
        two = b.add_tensor("two", (), "int32", data=np.array(2, np.int32))
        rows = b.add_tensor("rows", (), "int32")
        b.add_operator("MUL", [batch, two], [rows], _options(litert.MulOptionsT))
        halve = b.add_tensor("halve", (), "int32", data=np.array(2, np.int32))
        rest_value = -1 if minus_one else 12
        if not minus_one:
            wide = b.add_tensor("wide", (), "int32", data=np.array(24, np.int32))
            rest = b.add_tensor("rest", (), "int32")
            b.add_operator("FLOOR_DIV", [wide, halve], [rest])
    if not (arithmetic and not minus_one):
        rest = b.add_tensor("rest", (), "int32", data=np.array(rest_value, np.int32))
    target = b.add_tensor("target", (2,), "int32")
    b.add_operator("PACK", [rows, rest], [target], _options(litert.PackOptionsT, valuesCount=2, axis=0))
    out_shape = (2, 12) if arithmetic else (1, 24)
    y = b.add_tensor("y", out_shape, dtype, quantization=q, shape_signature=(-1, out_shape[1]))
    b.add_operator("RESHAPE", [x, target], [y], _options(litert.ReshapeOptionsT))
    z = b.add_tensor(
        "z", out_shape, dtype, quantization=(0.1, 2) if q else None, shape_signature=(-1, out_shape[1])
    )
    b.add_operator("ADD", [y, y], [z], _options(litert.AddOptionsT))
    b.set_inputs([x])
    b.set_outputs([z])
    return b.save(path)


CASES = {
    "pack_float32": ("float32", False, False, "int32"),
    "pack_minus_one_int8": ("int8", False, True, "int32"),
    "int32_arithmetic_float32": ("float32", True, False, "int32"),
    "int32_arithmetic_minus_one_int8": ("int8", True, True, "int32"),
    "shape_int64_cast_float32": ("float32", False, False, "int64"),
}


def _samples(dtype: str) -> list[list[np.ndarray]]:
    rng = np.random.default_rng(7)
    if dtype == "int8":
        return [[rng.integers(-128, 128, (1, 6, 4)).astype(np.int8)] for _ in range(2)]
    return [[rng.standard_normal((1, 6, 4)).astype(np.float32)] for _ in range(2)]


@pytest.mark.parametrize("fold", [True, False], ids=["folded", "run_time"])
@pytest.mark.parametrize("case", list(CASES))
def test_dynamic_batch_reshape_matches_reference(case, fold, tmp_path):
    dtype, arithmetic, minus_one, shape_type = CASES[case]
    model = dynamic_batch_model(
        tmp_path / "m.tflite", dtype, arithmetic=arithmetic, minus_one=minus_one, shape_type=shape_type
    )
    config = {
        "model": {"path": str(model)},
        "module": {"path": str(tmp_path / "out"), "name": "module"},
        "test": {
            "enabled": True,
            "golden_data": str(golden(model, _samples(dtype), tmp_path / "g.npz")),
            "tolerance": 0.0,
        },
        "transforms": [] if fold else [{"name": FOLD, "enabled": False}],
    }
    result = AotConverter(ConvertArgs.model_validate(config)).convert()
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"
    plan = (result.output / f"{result.prefix}_plan.json").read_text()
    assert ('"SHAPE"' in plan) is not fold


def test_the_transform_leaves_only_the_data_path(tmp_path):
    model_path = dynamic_batch_model(
        tmp_path / "m.tflite", "float32", arithmetic=True, minus_one=True, shape_type="int32"
    )
    context = build_default_registry_context()
    model = load_model(model_path, 0, context)
    pipeline = TransformPipeline.from_config(
        [TransformSpec(name="*", enabled=False), TransformSpec(name=FOLD)], context
    )
    (transform,) = pipeline.transforms
    model = pipeline.apply(model, context)
    assert [op.op_type for op in model.operators] == ["RESHAPE", "ADD"]
    assert len(transform.folded) == 4  # SHAPE, STRIDED_SLICE, MUL and PACK
    reshape = model.operators[0]
    target = model.tensors[reshape.input_ids[1]]
    assert target.is_constant and target.data.tolist() == [2, 12]  # the -1 resolved


def test_the_transform_is_registered_first_enabled_and_takes_no_options():
    context = build_default_registry_context()
    names = [name for name, _ in context.ordered_transforms()]
    assert names[0] == FOLD
    cls = dict(context.transforms.items())[FOLD]
    assert cls.ORDER == 10 and cls.ENABLED_BY_DEFAULT and cls.OPTIONS is None
    from helia_aot.errors import InvalidConfigError

    with pytest.raises(InvalidConfigError, match="takes no options"):
        TransformPipeline.from_config([TransformSpec(name=FOLD, options={"x": 1})], context)
