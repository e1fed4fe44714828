"""``helia-aot convert`` and ``--version``: flags over YAML, progress, results and exit codes."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import helia_aot.cli.convert as convert_module
import pytest
from helia_aot.cli import app, core_version
from helia_aot.cli.errors import EXIT_INTERRUPTED
from helia_aot.cli.flags import cli_keys, parse_flag_value
from helia_aot.config import config_keys
from helia_aot.errors import ConfigValueError, ModelLoadError, OutputExistsError, UnsupportedModelError
from pydantic import BaseModel
from typer.testing import CliRunner

runner = CliRunner()


@dataclass
class FakeResult:
    output: Path
    prefix: str
    work_dir: Path | None = None
    arenas: list[dict[str, Any]] = field(default_factory=list)


class FakeConverter:
    """Stands in for AotConverter: records the config, reports two stages, or raises ``failure``."""

    seen: list[Any] = []
    failure: BaseException | None = None

    def __init__(self, config, observers=()):
        self.config = config
        self.observers = list(observers)
        FakeConverter.seen.append(config)

    def convert(self) -> FakeResult:
        for stage, seconds in (("load", 0.25), ("plan", 1.5)):
            for observer in self.observers:
                observer.stage_started(stage)
            if FakeConverter.failure is not None and stage == "plan":
                raise FakeConverter.failure
            for observer in self.observers:
                observer.stage_finished(stage, seconds)
        return FakeResult(
            output=self.config.module.path / self.config.module.name,
            prefix=self.config.module.prefix,
            arenas=[
                {
                    "region": 0,
                    "role": "scratch",
                    "memory": "dtcm",
                    "used": 12_288,
                    "capacity": 507_904,
                    "peak_live": 12_000,
                },
                {
                    "region": 1,
                    "role": "constant",
                    "memory": "mram",
                    "used": 40_000,
                    "capacity": None,
                    "peak_live": 40_000,
                },
            ],
        )

    def _convert_summary(self) -> FakeResult:
        # `helia-aot convert` ends in the summary (helia_aot.converter.ConversionSummary); the fake
        # returns the same result either way, through convert (which tests replace).
        return self.convert()


@pytest.fixture(autouse=True)
def fake_converter(monkeypatch):
    FakeConverter.seen = []
    FakeConverter.failure = None
    # The CLI looks the converter up through this one function, so the fake never imports the pipeline.
    monkeypatch.setattr(convert_module, "_converter_class", lambda: FakeConverter)
    return FakeConverter


def convert(*args: str):
    return runner.invoke(app, ["convert", *args])


def test_version_prints_the_core_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == f"heliaAOT version: {core_version()}"
    assert core_version()


def test_every_cli_key_is_a_convert_flag():
    result = runner.invoke(app, ["convert", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    flags = {key.cli_flag for key in config_keys() if key.cli_flag}
    assert flags == {key.cli_flag for key in cli_keys()}
    for flag in flags:
        assert flag in result.stdout


def test_convert_from_flags_shows_stages_and_results():
    result = convert("--model.path", "kws.tflite", "--module.path", "build", "--module.prefix", "kws")
    assert result.exit_code == 0, result.output
    (config,) = FakeConverter.seen
    assert config.model.path == Path("kws.tflite") and config.module.prefix == "kws"
    assert "load" in result.stderr and "0.25 s" in result.stderr and "1.50 s" in result.stderr
    for text in (
        "Conversion finished",
        "model (kws.tflite)",
        "apollo510_evb",
        "Arenas",
        "12,288 B",
        "507,904 B",
        "12,000 B",
        "dtcm",
        "mram",
        "build/helia_aot_nn",
    ):
        assert text in result.stdout, text


def test_flags_override_the_yaml_file(tmp_path):
    path = tmp_path / "convert.yaml"
    path.write_text(
        "model: {path: kws.tflite}\n"
        "memory: {planner: greedy, allocate_arenas: false}\n"
        "module: {type: zephyr}\n"
    )
    result = convert(
        "--path",
        str(path),
        "--memory.planner",
        "greedy_by_size",
        "--force",
        "--memory.dump_residency_json",
        "true",
        "--plugins.disabled",
        "noisy",
    )
    assert result.exit_code == 0, result.output
    (config,) = FakeConverter.seen
    assert config.path == path
    assert config.model.path == Path("kws.tflite")  # from the file, resolved from the working directory
    assert config.memory.planner == "greedy_by_size"  # the flag wins
    assert config.memory.allocate_arenas is False  # the file's value survives
    assert config.module.type == "zephyr"
    assert config.force is True and config.memory.dump_residency_json is True
    assert config.plugins.disabled == ["noisy"]


def test_boolean_flag_forms():
    result = convert(
        "--model.path", "m.tflite", "--force", "--keep_work_dir", "false", "--documentation.html"
    )
    assert result.exit_code == 0, result.output
    (config,) = FakeConverter.seen
    assert config.force is True and config.keep_work_dir is False and config.documentation.html is True


def test_structured_flag_values():
    result = convert(
        "--model.path",
        "m.tflite",
        "--operators",
        "[{type: CONV_2D, attributes: {code_placement: ITCM}}]",
        "--platform.memories",
        "{sram: 1MiB}",
        "--test.tolerance",
        "0.5",
        "--model.name",
        "yes",
    )
    assert result.exit_code == 0, result.output
    (config,) = FakeConverter.seen
    assert config.operators[0].type == "CONV_2D"
    assert config.platform.memories == {"sram": 1 << 20}
    assert config.test.tolerance == 0.5
    assert config.model.name == "yes"  # text keys are not read as YAML booleans


def test_parse_flag_value_by_key_type():
    keys = {key.key: key for key in config_keys()}
    assert parse_flag_value(keys["verbose"], "2") == 2
    assert parse_flag_value(keys["plugins.enabled"], "[a, b]") == ["a", "b"]
    assert parse_flag_value(keys["plugins.enabled"], "a") == ["a"]
    assert parse_flag_value(keys["module.path"], "null") == "null"
    assert parse_flag_value(keys["memory.planner_options"], "{seed: 3}") == {"seed": 3}


def test_invalid_flag_yaml_is_exit_2():
    result = convert("--model.path", "m.tflite", "--operators", "[{type: ADD")
    assert result.exit_code == 2
    assert "Error: --operators" in result.stderr and "invalid JSON" in result.stderr


def test_no_flags_converts_with_the_products_defaults():
    # The product's defaults make a bare `helia-aot convert` a complete request (model.tflite in
    # the working directory to output.zip); a missing model file is the converter's exit-2 error.
    result = convert()
    assert result.exit_code == 0, result.output
    (config,) = FakeConverter.seen
    assert config.model.path == Path("model.tflite") and config.module.path == Path("output.zip")
    assert config.module.name == "helia_aot_nn" and config.test.tolerance == 1.0


def test_unknown_key_in_yaml_is_exit_2_with_suggestion(tmp_path):
    path = tmp_path / "convert.yaml"
    path.write_text("model: {path: kws.tflite}\nmemory: {planer: greedy}\n")
    result = convert("--path", str(path))
    assert result.exit_code == 2
    assert "did you mean 'planner'?" in result.stderr
    assert "Traceback" not in result.output


def test_missing_yaml_is_exit_2(tmp_path):
    result = convert("--path", str(tmp_path / "absent.yaml"))
    assert result.exit_code == 2
    assert "Error: configuration file" in result.stderr and "does not exist" in result.stderr


def test_unknown_flag_is_a_usage_error():
    result = convert("--memory.planer", "greedy")
    assert result.exit_code == 2
    assert "--memory.planner" in result.output


@pytest.mark.parametrize(
    "failure, code",
    [
        (ModelLoadError("model file kws.tflite is not a LiteRT model", hint="check the file"), 2),
        (OutputExistsError("out/kws exists", hint="pass --force"), 2),
        (UnsupportedModelError("operator FOO is not supported", hint="remove it"), 1),
        (ConfigValueError("no kernel applies", hint="change the dtype"), 1),
    ],
)
def test_typed_errors_end_with_their_exit_code(failure, code):
    FakeConverter.failure = failure
    result = convert("--model.path", "m.tflite")
    assert result.exit_code == code
    assert f"Error: {failure.message}" in result.stderr
    assert f"hint: {failure.hint}" in result.stderr
    assert "Traceback" not in result.output


def test_verbose_3_prints_the_traceback():
    FakeConverter.failure = ModelLoadError("broken model", hint="check it")
    result = convert("--model.path", "m.tflite", "--verbose", "3")
    assert result.exit_code == 2
    assert "Traceback" in result.stderr and "Error: broken model" in result.stderr


def test_pydantic_error_from_the_converter_is_exit_2():
    class Strict(BaseModel):
        size: int

    try:
        Strict.model_validate({"size": "big"})
    except Exception as error:  # capture a real ValidationError to raise from the fake
        FakeConverter.failure = error
    result = convert("--model.path", "m.tflite")
    assert result.exit_code == 2
    assert (
        "Error: invalid configuration" in result.stderr
        and "size: Input should be a valid integer" in result.stderr
    )


def test_keyboard_interrupt_is_exit_130():
    FakeConverter.failure = KeyboardInterrupt()
    result = convert("--model.path", "m.tflite")
    assert result.exit_code == EXIT_INTERRUPTED == 130
    assert "Error: interrupted" in result.stderr


def test_unexpected_exception_is_reported_as_a_bug():
    FakeConverter.failure = ZeroDivisionError("division by zero")
    result = convert("--model.path", "m.tflite")
    assert result.exit_code == 1
    assert "Error: internal error: ZeroDivisionError: division by zero" in result.stderr
    assert "Traceback" not in result.output


def test_verbose_0_prints_only_the_output_path(tmp_path):
    result = convert("--model.path", "m.tflite", "--module.path", str(tmp_path), "--verbose", "0")
    assert result.exit_code == 0
    assert result.stdout.strip() == str(tmp_path / "helia_aot_nn")
    assert result.stderr == ""


def test_log_file_receives_converter_logs(tmp_path, monkeypatch):
    import logging

    def convert_and_log(self):
        logging.getLogger("helia_aot.pipeline").debug("planning detail %d", 42)
        return FakeResult(output=Path("out/m"), prefix="aot")

    monkeypatch.setattr(FakeConverter, "convert", convert_and_log)
    log = tmp_path / "logs" / "run.log"
    result = convert("--model.path", "m.tflite", "--log_file", str(log))
    assert result.exit_code == 0, result.output
    assert "planning detail 42" in log.read_text()
    assert "planning detail" not in result.output  # debug stays out of the console at verbose 1
    assert logging.getLogger("helia_aot").handlers == []


def test_verbose_3_flag_shows_the_traceback_of_a_config_error():
    result = convert("--module.prefix", "Bad", "--verbose", "3")
    assert result.exit_code == 2
    assert "Traceback" in result.stderr and "Error: invalid configuration (1 problem)" in result.stderr
