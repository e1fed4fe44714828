"""ConvertArgs.from_yaml: every way a file can be wrong is an InvalidConfigError with exit code 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from helia_aot.config import ConvertArgs, load_config
from helia_aot.errors import ConfigValueError, InvalidConfigError
from pydantic import ValidationError


def write(tmp_path: Path, text: str, name: str = "convert.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def load_error(path: Path, **kwargs) -> InvalidConfigError:
    with pytest.raises(InvalidConfigError) as caught:
        ConvertArgs.from_yaml(path, **kwargs)
    assert caught.value.exit_code == 2
    assert isinstance(caught.value, ConfigValueError)
    return caught.value


def test_loads_a_file_and_remembers_its_path(tmp_path):
    path = write(
        tmp_path, "model:\n  path: kws.tflite\nmodule:\n  type: zephyr\nmemory:\n  planner: greedy\n"
    )
    config = ConvertArgs.from_yaml(path)
    assert config.path == path
    assert config.module.type == "zephyr" and config.memory.planner == "greedy"


def test_relative_paths_stay_relative_to_the_working_directory(tmp_path):
    # The product's rule: paths in the file resolve from the process's working directory, not
    # from the file's folder (tests/core/test_product_config.py converts from another directory).
    folder = tmp_path / "configs"
    folder.mkdir()
    path = write(
        folder,
        "model: {path: ../models/kws.tflite}\nmodule: {path: build}\n"
        f"test: {{golden_data: golden.npz}}\nlog_file: {tmp_path / 'abs.log'}\n",
    )
    config = ConvertArgs.from_yaml(path)
    assert config.model.path == Path("../models/kws.tflite")
    assert config.module.path == Path("build")
    assert config.test.golden_data == Path("golden.npz")
    assert config.log_file == tmp_path / "abs.log"  # absolute paths stay as written


def test_default_paths_are_the_products(tmp_path):
    config = ConvertArgs.from_yaml(write(tmp_path, "model: {path: kws.tflite}\n"))
    assert config.module.path == Path("output.zip")


def test_missing_file(tmp_path):
    error = load_error(tmp_path / "absent.yaml")
    assert "does not exist" in error.message and "absent.yaml" in error.message


def test_unreadable_path(tmp_path):
    error = load_error(tmp_path)  # a directory cannot be read as a file
    assert "cannot be read" in error.message


def test_not_utf8(tmp_path):
    path = tmp_path / "latin.yaml"
    path.write_bytes(b"model: {path: \xe9.tflite}\n")
    assert "cannot be read" in load_error(path).message


def test_bad_yaml(tmp_path):
    error = load_error(write(tmp_path, "model:\n  path: [unclosed\n"))
    assert "not valid YAML" in error.message
    assert "line" in error.message


def test_duplicate_key_is_rejected(tmp_path):
    error = load_error(write(tmp_path, "model: {path: a.tflite}\nforce: true\nforce: false\n"))
    assert "duplicate key 'force'" in error.message


@pytest.mark.parametrize(
    "text, kind", [("- model\n- module\n", "list"), ("just text\n", "str"), ("3\n", "int")]
)
def test_not_a_mapping(tmp_path, text, kind):
    error = load_error(write(tmp_path, text))
    assert f"holds a {kind}, not a mapping" in error.message


def test_empty_file_is_an_empty_mapping(tmp_path):
    config = ConvertArgs.from_yaml(write(tmp_path, ""))
    assert config.model_dump() == ConvertArgs().model_dump()


def test_unknown_key_with_nearest_suggestion(tmp_path):
    error = load_error(write(tmp_path, "model: {path: a.tflite}\nmemory:\n  planer: greedy\n"))
    assert "memory.planer: unknown key 'planer' in memory; did you mean 'planner'?" in error.message
    assert isinstance(error.__cause__, ValidationError)
    assert error.details == ["memory.planer: unknown key 'planer' in memory; did you mean 'planner'?"]


def test_bad_value(tmp_path):
    error = load_error(write(tmp_path, "model: {path: a.tflite}\nverbose: loud\n"))
    assert error.message.startswith(f"invalid configuration file {tmp_path / 'convert.yaml'} (1 problem)")
    assert "verbose: Input should be a valid integer" in error.message and "'loud'" in error.message
    assert isinstance(error.__cause__, ValidationError)


def test_every_problem_is_listed(tmp_path):
    error = load_error(
        write(
            tmp_path,
            "model: {path: a.tflite}\nmodule: {name: '..', prefix: AOT}\n"
            "operators:\n  - {type: ADD, optimisation: {kernel: generic}}\n"
            "platform: {memories: {sram: -1}}\n",
        )
    )
    assert "(4 problems)" in error.message
    for where in ("module.name:", "module.prefix:", "operators[0].optimisation:", "platform.memories:"):
        assert f"  - {where}" in error.message
    assert "did you mean 'optimization'" in error.message


def test_overrides_win_over_the_file(tmp_path):
    path = write(tmp_path, "model: {path: a.tflite}\nmemory: {planner: greedy, allocate_arenas: false}\n")
    config = ConvertArgs.from_yaml(path, overrides={"memory.planner": "hill_climb", "force": True})
    assert config.memory.planner == "hill_climb"
    assert config.memory.allocate_arenas is False  # untouched keys keep the file's value
    assert config.force is True


def test_override_paths_stay_relative_to_the_working_directory(tmp_path):
    path = write(tmp_path, "model: {path: a.tflite}\n")
    config = ConvertArgs.from_yaml(path, overrides={"model.path": "other.tflite"})
    assert config.model.path == Path("other.tflite")


def test_override_into_a_null_section(tmp_path):
    path = write(tmp_path, "model: {path: a.tflite}\nmemory:\n")
    config = ConvertArgs.from_yaml(path, overrides={"memory.dump_residency_json": True})
    assert config.memory.dump_residency_json is True


def test_load_config_without_a_file():
    config = load_config(None, {"model.path": "m.tflite", "module.type": "nsx"})
    assert config.module.type == "nsx" and config.path is None
    with pytest.raises(InvalidConfigError) as caught:
        load_config(None, {"module.prefix": "Bad"})
    assert caught.value.exit_code == 2
    assert "module.prefix" in caught.value.message
