"""ConvertArgs: defaults, derived names, value checks and unknown keys with suggestions."""

from __future__ import annotations

from pathlib import Path

import pytest
from helia_aot.config import (
    ConvertArgs,
    MemoryConfig,
    ScheduleMode,
    TensorAttributes,
    config_keys,
    format_validation_errors,
)
from helia_aot.errors import ConfigValueError, InvalidConfigError
from pydantic import ValidationError


def minimal(**extra) -> ConvertArgs:
    return ConvertArgs.model_validate({"model": {"path": "models/kws_ref.tflite"}, **extra})


def test_defaults_match_the_product():
    config = minimal()
    assert config.model.path == Path("models/kws_ref.tflite")
    assert config.model.subgraph == 0
    assert config.module.path == Path("output.zip") and config.module.name == "helia_aot_nn"
    assert config.model.name == "model" and config.model.type is None
    assert config.module.type == "cmake"
    assert config.module.prefix == "aot"
    assert config.module.schedule is ScheduleMode.TABLE
    assert config.platform.name == "apollo510_evb"
    assert config.platform.cpu is None and config.platform.memories == {}
    assert config.platform.speeds == [] and config.platform.capabilities == []
    assert config.platform.preferred_memory_order == [] and config.platform.min_alignment is None
    assert config.memory.planner == "hill_climb"
    assert config.memory.planner_options == {}
    assert config.memory.allocate_arenas is True
    assert config.memory.dump_residency_json is False
    assert config.memory.constraints is None and config.memory.tensors == []
    assert config.operators == [] and config.transforms == []
    assert (config.test.enabled, config.test.golden_data, config.test.tolerance, config.test.samples) == (
        False,
        None,
        1.0,
        None,
    )
    assert (config.test.skip_verification, config.test.num_iterations, config.test.state_feedback) == (
        False,
        1,
        [],
    )
    assert (config.optimization.goal, config.optimization.kernel, config.optimization.accumulation) == (
        "balanced",
        "auto",
        "auto",
    )
    assert config.optimization.allow_approximate is False
    assert (config.documentation.html, config.documentation.readme) == (False, True)
    assert (config.plugins.enabled, config.plugins.disabled) == (None, [])
    assert (config.verbose, config.force, config.keep_work_dir, config.result_views) == (
        1,
        False,
        False,
        False,
    )
    assert config.log_file is None and config.path is None


def test_names_have_the_products_defaults_not_the_model_files():
    # The product's meaning wins: model.name and module.name default to fixed words, not to the
    # model file's stem (ours before the drop-in work; docs/migrating.md says so).
    config = minimal()
    assert (config.model.name, config.module.name) == ("model", "helia_aot_nn")
    assert minimal(module={"name": "kws_module"}).module.name == "kws_module"


def test_convert_args_with_no_arguments_is_valid():
    assert ConvertArgs().model.path == Path("model.tflite")
    assert ConvertArgs.model_validate({}) == ConvertArgs()


def test_module_type_alias_and_names_left_to_the_registry():
    assert minimal(module={"type": "neuralspot"}).module.type == "nsx"
    assert minimal(module={"type": " cmsis_pack "}).module.type == "cmsis_pack"
    # Plugins add module types, so the name is checked by the converter against its context
    # (tests/plugin_system/test_plugin_extensions.py); the configuration only refuses a blank one.
    assert minimal(module={"type": "make"}).module.type == "make"
    with pytest.raises(ValidationError) as caught:
        minimal(module={"type": "  "})
    assert caught.value.errors()[0]["loc"] == ("module", "type")


@pytest.mark.parametrize("prefix", ["Aot", "1aot", "aot-x", "", "int", "_aot"])
def test_prefix_must_be_a_lower_case_c_identifier(prefix):
    with pytest.raises(ValidationError) as caught:
        minimal(module={"prefix": prefix})
    assert caught.value.errors()[0]["loc"] == ("module", "prefix")


def test_prefix_accepts_identifiers():
    assert minimal(module={"prefix": "kws_v2"}).module.prefix == "kws_v2"


def test_platform_name_alone_and_custom_fields():
    assert minimal(platform="apollo4p_evb").platform.name == "apollo4p_evb"
    custom = minimal(
        platform={
            "name": "my_board",
            "cpu": "cortex-m55",
            "capabilities": ["MVE", "dsp"],
            "memories": {"SRAM": "1MiB", "dtcm": 65536},
            "preferred_order": ["DTCM", "sram"],
            "alignment": 16,
        }
    ).platform
    assert custom.capabilities == ["mve", "dsp"]
    assert custom.memories == {"sram": 1 << 20, "dtcm": 65536}
    # Our older spellings are aliases of the product's keys.
    assert custom.preferred_memory_order == ["dtcm", "sram"] and custom.min_alignment == 16
    assert custom.is_custom


@pytest.mark.parametrize(
    "platform, where",
    [
        ({"memories": {"sram": 0}}, ("platform", "memories")),
        ({"memories": {"l2": 10}}, ("platform", "memories")),
        ({"capabilities": ["avx"]}, ("platform", "capabilities")),
        ({"alignment": 24}, ("platform", "min_alignment")),
        ({"min_alignment": 24}, ("platform", "min_alignment")),
        ({"preferred_order": ["cache"]}, ("platform", "preferred_memory_order")),
    ],
)
def test_platform_fields_are_checked(platform, where):
    with pytest.raises(ValidationError) as caught:
        minimal(platform=platform)
    assert caught.value.errors()[0]["loc"] == where


def test_memory_rules_are_normalised():
    memory = minimal(
        memory={
            "planner": "greedy_by_size",
            "constraints": [{"memory": "DTCM", "max_bytes": "256KiB"}],
            "tensors": [
                {"type": "constant", "attributes": {"memory": "MRAM", "constant_destination_memory": "dtcm"}},
                {"id": 7, "attributes": {"memory": "sram", "alignment": 32}},
            ],
        }
    ).memory
    assert memory.planner == "greedy_by_size"
    # Ours {memory, max_bytes} is an alias of the product's {name, max_size}.
    assert memory.constraints[0].name == "dtcm" and memory.constraints[0].max_size == 256 * 1024
    assert memory.tensors[0].attributes.constant_destination_memory == "dtcm"
    assert memory.tensors[1].type == "*" and memory.tensors[1].id == "7"


@pytest.mark.parametrize(
    "memory, loc",
    [
        ({"planner": " "}, ("memory", "planner")),
        (
            {"constraints": [{"memory": "dtcm", "max_bytes": 1}, {"memory": "DTCM", "max_bytes": 2}]},
            ("memory", "constraints"),
        ),
        (
            {"tensors": [{"type": "scratch", "attributes": {"constant_destination_memory": "dtcm"}}]},
            ("memory", "tensors", 0),
        ),
        ({"tensors": [{"type": "weights"}]}, ("memory", "tensors", 0, "type")),
    ],
)
def test_memory_values_are_checked(memory, loc):
    with pytest.raises(ValidationError) as caught:
        minimal(memory=memory)
    assert caught.value.errors()[0]["loc"] == loc


def test_operator_rules_and_transforms():
    config = minimal(
        operators=[
            {
                "type": "conv_2d",
                "attributes": {"code_placement": "ITCM"},
                "optimization": {"kernel": "generic"},
            },
            {"id": 3},
        ],
        transforms=[{"name": "fold_constants", "enabled": False}],
    )
    assert config.operators[0].type == "CONV_2D"
    assert config.operators[0].attributes == {"code_placement": "ITCM"}
    assert config.operators[0].optimization.kernel == "generic"
    assert config.operators[1].type == "*" and config.operators[1].id == "3"
    assert config.transforms[0].enabled is False and config.transforms[0].options == {}


def test_unknown_key_names_key_place_and_nearest_valid_key():
    with pytest.raises(ValidationError) as caught:
        minimal(memory={"planer": "greedy"})
    (error,) = caught.value.errors()
    assert error["loc"] == ("memory", "planer")
    typed = error["ctx"]["error"]
    assert isinstance(typed, InvalidConfigError) and isinstance(typed, ConfigValueError)
    assert typed.exit_code == 2
    assert "'planer'" in typed.message and "in memory" in typed.message and "'planner'" in typed.message
    assert "did you mean 'planner'" in str(caught.value)


def test_unknown_keys_everywhere_are_all_reported_with_other_problems():
    with pytest.raises(ValidationError) as caught:
        ConvertArgs.model_validate(
            {
                "modle": {},
                "model": {"path": "m.tflite", "nmae": "x"},
                "memory": {"tensors": [{"attributes": {"memroy": "dtcm"}}]},
                "operators": [{"tpye": "ADD"}],
                "verbose": 9,
            }
        )
    lines = format_validation_errors(caught.value)
    assert "modle: unknown key 'modle' at the top level; did you mean 'model'?" in lines
    assert "model.nmae: unknown key 'nmae' in model; did you mean 'name'?" in lines
    assert any(
        line.startswith("memory.tensors[0].attributes.memroy:") and "'memory'" in line for line in lines
    )
    assert any(line.startswith("operators[0].tpye:") and "'type'" in line for line in lines)
    assert any(line.startswith("verbose:") for line in lines)
    assert len(lines) == 5


def test_unknown_key_without_a_near_match_lists_the_valid_keys():
    with pytest.raises(ValidationError) as caught:
        minimal(documentation={"zzzz": True})
    message = caught.value.errors()[0]["ctx"]["error"].message
    assert "valid keys are: html, readme" in message


def test_sections_reject_unknown_keys_on_construction():
    with pytest.raises(ValidationError) as caught:
        MemoryConfig(planer="greedy")
    assert "did you mean 'planner'" in str(caught.value)
    with pytest.raises(ValidationError) as caught:
        TensorAttributes(memroy="dtcm")
    assert caught.value.errors()[0]["loc"] == ("memroy",)


def test_configuration_round_trips_through_json():
    config = minimal(memory={"planner": "greedy"}, module={"type": "zephyr"})
    again = ConvertArgs.model_validate(config.model_dump(mode="json"))
    assert again == config


def test_config_keys_cover_every_leaf_with_defaults_and_flags():
    keys = {key.key: key for key in config_keys()}
    assert not any(key.required for key in keys.values())
    assert keys["model.path"].default_text == "./model.tflite"
    assert keys["memory.planner"].default_text == "hill_climb"
    assert keys["module.path"].default_text == "./output.zip"
    assert keys["memory.allocate_arenas"].default_text == "true"
    assert keys["plugins.disabled"].default_text == "[]"
    assert keys["memory.dump_residency_json"].cli_flag == "--memory.dump-residency-json"
    assert keys["force"].cli_flag == "--force"
    assert keys["result_views"].cli_flag is None  # a Python API setting
    assert "module.type" in keys and "platform.memories" in keys and "operators" in keys
    assert not any("[]" in key for key in keys)
    defaults = minimal()
    derived = {"model.path"}  # minimal() sets it
    for name, key in keys.items():
        if key.required or name in derived:
            continue
        value = defaults
        for part in name.split("."):
            value = getattr(value, part)
        assert value == key.default, name


def test_config_keys_with_items_describe_rule_entries():
    keys = {key.key: key for key in config_keys(items=True)}
    assert keys["operators[].type"].default_text == "*"
    assert keys["memory.tensors[].attributes.constant_destination_memory"].cli_flag is None
    assert keys["transforms[].name"].required
