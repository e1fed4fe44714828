"""The product's full configuration converts unchanged, with its path rule and defaults.

``tests/data/product_config/full.yaml`` sets every key the product's ConvertArgs has, in its
spelling. Its relative paths are written for the folder holding the model, so it converts from
there and fails, as the product does, from any other working directory.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
from helia_aot.cli import app
from helia_aot.config import ConvertArgs
from typer.testing import CliRunner

DATA = Path(__file__).resolve().parents[1] / "data"
runner = CliRunner()


def product_folder(tmp_path: Path) -> Path:
    """A folder laid out as full.yaml expects: the YAML, the model and a golden file beside it."""
    folder = tmp_path / "project"
    folder.mkdir()
    shutil.copy(DATA / "product_config" / "full.yaml", folder / "full.yaml")
    shutil.copy(DATA / "models" / "add_same_shape_float32.tflite", folder / "sum_of_two.tflite")
    rng = np.random.default_rng(5)
    first, second = (rng.standard_normal((1, 8, 8, 16)).astype(np.float32) for _ in range(2))
    np.savez(folder / "sum_golden.npz", input_0=first, input_1=second, output_0=first + second)
    return folder


def test_full_product_yaml_converts_from_its_folder(tmp_path, monkeypatch):
    folder = product_folder(tmp_path)
    monkeypatch.chdir(folder)
    result = runner.invoke(app, ["convert", "--path", "full.yaml"])
    assert result.exit_code == 0, result.output
    module = folder / "built" / "every_key_module"
    assert (module / "CMakeLists.txt").is_file()
    residency = json.loads(next(module.rglob("ek_residency.json")).read_text())
    assert residency["schema_version"] == 5
    log = (folder / "logs" / "every_key.log").read_text()
    assert "platform.speeds is deprecated" in log and "ignored" in log


def test_full_product_yaml_from_another_directory_fails_like_the_product(tmp_path, monkeypatch):
    folder = product_folder(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["convert", "--path", str(folder / "full.yaml")])
    assert result.exit_code == 2
    assert "sum_of_two.tflite" in result.stderr
    assert not (folder / "built").exists()


def test_every_key_of_the_fixture_is_read_with_the_products_meaning():
    config = ConvertArgs.from_yaml(DATA / "product_config" / "full.yaml")
    assert config.model.type == "litert" and config.model.version == "1.4"
    assert config.module.type == "cmake" and config.module.schedule == "static"
    assert config.test.state_feedback == [(0, 0)] and config.test.num_iterations == 3
    assert config.memory.planner == "hill_climb" and config.memory.planner_options["seed"] == 11
    assert [(c.name, c.max_size, c.arena_alignment) for c in config.memory.constraints or ()] == [
        ("sram", None, 32),
        ("dtcm", 131072, None),
        ("mram", None, None),
    ]
    assert config.memory.tensors[1].id == ["0", "1"]
    assert config.platform.speeds == [96] and config.platform.min_alignment == 32
    assert config.log_file == Path("logs/every_key.log")


def test_convert_args_with_no_arguments_uses_the_products_defaults():
    config = ConvertArgs()
    assert (config.model.path, config.module.path) == (Path("model.tflite"), Path("output.zip"))
    assert (config.model.name, config.module.name, config.module.prefix) == ("model", "helia_aot_nn", "aot")
    assert config.test.tolerance == 1.0 and config.verbose == 1
    assert "path" not in config.model_dump()


def test_state_feedback_pairs_are_checked_against_the_model(tmp_path, monkeypatch):
    folder = product_folder(tmp_path)
    monkeypatch.chdir(folder)
    result = runner.invoke(app, ["convert", "--path", "full.yaml", "--test.state-feedback", "[0, 2]"])
    assert result.exit_code == 2
    assert "test.state_feedback pair (0, 2) names a tensor the model does not have" in result.stderr
    result = runner.invoke(
        app, ["convert", "--path", "full.yaml", "--test.state-feedback", "[[0, 1], [0, 1]]"]
    )
    assert result.exit_code == 2
    assert "an input takes at most one output" in result.stderr
