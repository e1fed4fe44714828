"""Inputs of unknown size: a model whose input signature has a -1 beyond the batch fails at the
stored placeholder shape with a DynamicShapeError naming the input and the flag that fixes it (in
``convert`` and in ``check``); ``model.input_shapes`` (YAML/ConvertArgs, or ``--model.input-shapes
name=1,10,8,1``) fixes it, the shapes propagate through the graph, and the module matches LiteRT
run with ``resize_tensor_input`` to the same shape."""

from __future__ import annotations

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.cli import app
from helia_aot.config import load_config
from helia_aot.errors import DynamicShapeError, InvalidConfigError, UnsupportedModelError
from helia_aot.interpreters import create_interpreter
from helia_aot.support import check_model
from helia_aot.testing import run_module_test_case
from pydantic import ValidationError
from typer.testing import CliRunner

from ops_builtin.support.dynamic_shape_models import pooled_frames, rectified_frames

SHAPE = [1, 10, 8, 1]


@pytest.fixture
def model(tmp_path):
    return pooled_frames(tmp_path / "frames.tflite")


def test_a_dynamic_input_is_named_with_the_fix(model):
    with pytest.raises(DynamicShapeError) as caught:
        AotConverter(ConvertArgs(model={"path": str(model)}, dry_run=True)).convert()
    error = caught.value
    assert isinstance(error, UnsupportedModelError) and error.exit_code == 1
    assert (
        "model input 0 'frames' has the dynamic shape [1, -1, 8, 1] (stored as [1, 1, 8, 1])" in error.message
    )
    assert "--model.input-shapes 'frames=1,1,8,1'" in (error.hint or "")
    rows = check_model(ConvertArgs(model={"path": str(model)}))
    named = [row for row in rows if row.key == "(model input 'frames')"]
    assert named and "--model.input-shapes frames=1,1,8,1" in named[0].reasons[0]
    assert not rows[0].supported and "MAX_POOL_2D" == rows[0].key


def test_fixed_shapes_propagate_and_match_the_resized_reference(model, tmp_path):
    rng = np.random.default_rng(5)
    samples = rng.uniform(-1, 1, (3, *SHAPE)).astype(np.float32)
    reference = create_interpreter(model, [SHAPE])
    outputs = [reference.run([sample]) for sample in samples]
    assert outputs[0][0].shape == (1, 48)  # (10 - 2) frames of 6 after the pool
    golden = tmp_path / "golden.npz"
    np.savez(
        golden,
        input_0=samples,
        output_0=np.stack([o[0] for o in outputs]),
        output_1=np.stack([o[1] for o in outputs]),
    )
    config = ConvertArgs.model_validate(
        {
            "model": {"path": str(model), "input_shapes": {"frames": SHAPE}},
            "module": {"path": str(tmp_path / "out"), "name": "module"},
            "test": {"enabled": True, "tolerance": 0.0, "golden_data": str(golden)},
        }
    )
    result = AotConverter(config).convert()
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"
    assert all(row.supported for row in check_model(config))


def test_the_reference_golden_data_runs_at_the_fixed_shape(model, tmp_path):
    config = ConvertArgs.model_validate(
        {
            "model": {"path": str(model), "input_shapes": {"frames": SHAPE}},
            "module": {"path": str(tmp_path / "out"), "name": "module"},
            "test": {"enabled": True, "tolerance": 0.0, "samples": 2},
        }
    )
    result = AotConverter(config).convert()
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"


def test_the_command_line_spelling(model, tmp_path):
    config = load_config(None, {"model.path": str(model), "model.input_shapes": "frames=1,10,8,1"})
    assert config.model.input_shapes == {"frames": SHAPE}
    runner = CliRunner()
    ok = runner.invoke(
        app, ["convert", "--model.path", str(model), "--model.input-shapes", "frames=1,10,8,1", "--dry-run"]
    )
    assert ok.exit_code == 0, ok.output
    failed = runner.invoke(app, ["convert", "--model.path", str(model), "--dry-run"])
    assert failed.exit_code == DynamicShapeError.exit_code
    assert "--model.input-shapes" in failed.output
    checked = runner.invoke(app, ["check", str(model)])
    assert checked.exit_code == 1 and "(model input 'frames')" in checked.stdout
    fixed = runner.invoke(app, ["check", str(model), "--model.input-shapes", "frames=1,10,8,1"])
    assert fixed.exit_code == 0, fixed.output


@pytest.mark.parametrize(
    ("shapes", "match"),
    [
        ({"frames": [1, 10, 8]}, "does not allow"),
        ({"frames": [2, 10, 8, 1]}, "does not allow"),
        ({"nope": [1, 10, 8, 1]}, "not an input"),
    ],
)
def test_shapes_that_do_not_fit_the_input_are_config_errors(model, shapes, match):
    with pytest.raises(InvalidConfigError, match=match) as caught:
        AotConverter(ConvertArgs(model={"path": str(model), "input_shapes": shapes}, dry_run=True)).convert()
    assert caught.value.exit_code == 2


@pytest.mark.parametrize("text", ["frames", "frames=1,x", "frames=1,0,8,1"])
def test_malformed_input_shapes_are_rejected(text):
    with pytest.raises((ValidationError, InvalidConfigError)):
        load_config(None, {"model.input_shapes": text})


def test_a_conversion_at_the_placeholder_shape_says_so_in_the_report(tmp_path):
    """A dynamic input the graph accepts at its stored shape converts, and the report's hints
    name the input, the shape it was converted at and the flag that gives another; with the
    shape given, no such hint."""
    path = rectified_frames(tmp_path / "frames.tflite")
    placeholder = AotConverter(ConvertArgs(model={"path": str(path)}, dry_run=True)).convert()
    (hint,) = [h for h in placeholder.report.hints if h.setting == "model.input_shapes"]
    assert "'frames'" in hint.message and "[1, 1, 4]" in hint.message, hint.message
    assert "--model.input-shapes 'frames=1,1,4'" in hint.message
    fixed = AotConverter(
        ConvertArgs(model={"path": str(path), "input_shapes": {"frames": [1, 6, 4]}}, dry_run=True)
    ).convert()
    assert not [h for h in fixed.report.hints if h.setting == "model.input_shapes"]
