"""Empty and scalar tensors where LiteRT allows them: a RESHAPE to a scalar through a shape
operand of shape [0], IF and WHILE on such a scalar condition, and an empty operator output that
nothing reads. Each model converts, builds under ASan/UBSan and matches the reference exactly on
inputs that take both branches (or several trip counts); an empty tensor a kernel would read is
still refused with a typed error naming it."""

from __future__ import annotations

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import UnsupportedModelError
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.testing import run_module_test_case

from ops_builtin.support import control_flow_models as cfm
from ops_builtin.support import empty_scalar_models as esm

SAMPLES = 8


@pytest.mark.parametrize("name", sorted(esm.MODELS))
def test_empty_and_scalar_models_match_the_reference(name, tmp_path):
    path = esm.MODELS[name](tmp_path / f"{name}.tflite")
    golden, outputs = cfm.write_golden(path, seed=3, samples=SAMPLES)
    assert len({row.tobytes() for row in outputs[0]}) > 1, "the inputs do not vary the output"
    config = ConvertArgs.model_validate(
        {
            "model": {"path": str(path)},
            "module": {"path": str(tmp_path / "out"), "name": "module"},
            "test": {"enabled": True, "tolerance": 0.0, "golden_data": str(golden)},
        }
    )
    result = AotConverter(config).convert()
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"
    assert f"PASS ({SAMPLES} sample(s)" in run.stdout


def test_the_if_condition_takes_both_branches(tmp_path):
    path = esm.if_on_scalar(tmp_path / "if.tflite")
    _, (y,) = cfm.write_golden(path, seed=3, samples=SAMPLES)
    x = np.load(path.with_suffix(".npz"))["input_0"]
    doubled = np.isclose(y, 2 * x).all(axis=(1, 2))
    assert doubled.any() and not doubled.all()


def test_an_empty_tensor_a_kernel_reads_is_refused(tmp_path):
    """ADD of x and an empty [1, 0] output of SPLIT_V: the ADD would read it."""
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (1, 4), "float32")
    sizes = b.add_tensor("sizes", (2,), "int32", data=np.int32([4, 0]))
    axis = b.add_tensor("axis", (), "int32", data=np.int32(1))
    kept, empty = b.add_tensor("kept", (1, 4), "float32"), b.add_tensor("empty", (1, 0), "float32")
    options = litert.SplitVOptionsT()
    options.numSplits = 2
    b.add_operator("SPLIT_V", [x, sizes, axis], [kept, empty], options)
    y = b.add_tensor("y", (1, 0), "float32")
    b.add_operator("ADD", [empty, empty], [y], litert.AddOptionsT())
    b.set_inputs([x])
    b.set_outputs([kept, y])
    with pytest.raises(
        UnsupportedModelError, match=r"\(tensor 4\) has no elements \(shape \[1, 0\]\)"
    ) as caught:
        AotConverter(ConvertArgs(model={"path": str(b.save(tmp_path / "m.tflite"))}, dry_run=True)).convert()
    assert "nothing reads" in (caught.value.hint or "")


def test_an_empty_constant_a_kernel_reads_is_refused_at_resolve(tmp_path):
    """CONCATENATION of x and an empty constant: Load lets the constant through (it may be an
    operand nothing reads), Resolve refuses the operator that would read it, naming it."""
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (1, 4), "float32")
    nothing = b.add_tensor("nothing", (1, 0), "float32", data=np.zeros((1, 0), np.float32))
    y = b.add_tensor("y", (1, 4), "float32")
    options = litert.ConcatenationOptionsT()
    options.axis = 1
    b.add_operator("CONCATENATION", [x, nothing], [y], options)
    b.set_inputs([x])
    b.set_outputs([y])
    with pytest.raises(
        UnsupportedModelError, match=r"input 1 \('nothing'\) has no elements \(shape \[1, 0\]\)"
    ):
        AotConverter(ConvertArgs(model={"path": str(b.save(tmp_path / "m.tflite"))}, dry_run=True)).convert()
