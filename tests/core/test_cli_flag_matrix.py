"""The convert flags in the product's spelling and ours: negations, bare booleans, list flags.

Each case parses a command line with click exactly as ``helia-aot convert`` does and checks the
dotted-key overrides it becomes, so no conversion runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from helia_aot.cli import app
from helia_aot.cli.flags import cli_keys, kebab_flag, overrides_from_flags
from helia_aot.config import load_config
from helia_aot.errors import InvalidConfigError


def overrides(*args: str) -> dict:
    command = typer.main.get_command(app).commands["convert"]  # type: ignore[attr-defined]
    ctx = command.make_context("convert", list(args))
    return overrides_from_flags(ctx.params)[1]


@pytest.mark.parametrize(
    "args, expected",
    [
        (["--memory.dump-residency-json"], {"memory.dump_residency_json": True}),
        (["--memory.dump_residency_json"], {"memory.dump_residency_json": True}),
        (["--no-memory.dump-residency-json"], {"memory.dump_residency_json": False}),
        (["--no-memory.dump_residency_json"], {"memory.dump_residency_json": False}),
        (["--force"], {"force": True}),
        (["--force", "true"], {"force": True}),
        (["--force", "false"], {"force": False}),
        (["--force=no"], {"force": False}),
        (["--force", "--no-force"], {"force": False}),
        (["--no-force", "--force"], {"force": True}),
        (["--keep-work-dir"], {"keep_work_dir": True}),
        (["--keep_work_dir", "true"], {"keep_work_dir": True}),
        (["--log-file", "run.log"], {"log_file": "run.log"}),
        (["--log_file", "run.log"], {"log_file": "run.log"}),
        (["--test.golden-data", "g.npz"], {"test.golden_data": "g.npz"}),
        (["--test.golden_data", "g.npz"], {"test.golden_data": "g.npz"}),
        (["--test.skip-verification"], {"test.skip_verification": True}),
        (["--no-test.enabled"], {"test.enabled": False}),
        (["--test.num-iterations", "4"], {"test.num_iterations": 4}),
        (["--optimization.allow-approximate"], {"optimization.allow_approximate": True}),
        (["--module.path=./t1"], {"module.path": "./t1"}),
        (["--module.type", "CMAKE"], {"module.type": "CMAKE"}),
        (["--platform.capabilities", "mcu", "dsp", "mve"], {"platform.capabilities": ["mcu", "dsp", "mve"]}),
        (
            ["--platform.capabilities", "mcu", "--platform.capabilities", "dsp"],
            {"platform.capabilities": ["mcu", "dsp"]},
        ),
        (["--platform.capabilities"], {"platform.capabilities": []}),
        (["--platform.capabilities", "[mcu, dsp]"], {"platform.capabilities": ["mcu", "dsp"]}),
        (["--platform.speeds", "96", "250"], {"platform.speeds": ["96", "250"]}),
        (
            ["--platform.preferred-memory-order", "dtcm", "sram"],
            {"platform.preferred_memory_order": ["dtcm", "sram"]},
        ),
        (["--platform.min-alignment", "32"], {"platform.min_alignment": 32}),
        (["--plugins.disabled", "a", "b"], {"plugins.disabled": ["a", "b"]}),
        (["--test.state-feedback", "[1,0]"], {"test.state_feedback": [[1, 0]]}),
        (["--test.state-feedback", "[[1,0],[2,1]]"], {"test.state_feedback": [[1, 0], [2, 1]]}),
        (
            ["--operators", '{"type": "ADD"}', '[{"type": "MUL"}, {"type": "SUB"}]'],
            {"operators": [{"type": "ADD"}, {"type": "MUL"}, {"type": "SUB"}]},
        ),
        (
            ["--transforms", '{"name": "DEPTHWISE_TO_CONV", "enabled": false}', "--force"],
            {"transforms": [{"name": "DEPTHWISE_TO_CONV", "enabled": False}], "force": True},
        ),
        (
            ["--memory.constraints", '{"name": "dtcm", "max_size": 1024}'],
            {"memory.constraints": [{"name": "dtcm", "max_size": 1024}]},
        ),
        (
            ["--memory.tensors", '{"type": "scratch", "id": ["1", "2"]}'],
            {"memory.tensors": [{"type": "scratch", "id": ["1", "2"]}]},
        ),
        (["--memory.planner-options", '{"seed": 3}'], {"memory.planner_options": {"seed": 3}}),
        (["--memory.planner_options", "{seed: 3}"], {"memory.planner_options": {"seed": 3}}),
        (["--platform.memories", '{"sram": 1024}'], {"platform.memories": {"sram": 1024}}),
    ],
)
def test_flag_spellings_negations_and_lists(args, expected):
    assert overrides(*args) == expected


def test_every_key_has_a_kebab_flag_and_bools_a_negation():
    command = typer.main.get_command(app).commands["convert"]  # type: ignore[attr-defined]
    names = {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}
    for key in cli_keys():
        assert kebab_flag(key.key) in names, key.key
        if key.type == "bool":
            assert "--no-" + kebab_flag(key.key)[2:] in names, key.key


def test_unknown_flag_and_bad_json_are_usage_errors():
    with pytest.raises(Exception, match="No such option: --bogus") as caught:
        overrides("--bogus")
    assert getattr(caught.value, "exit_code", None) == 2
    with pytest.raises(InvalidConfigError, match="invalid JSON"):
        overrides("--operators", "{type: [")


def test_list_and_mapping_flags_over_a_yaml_file(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("platform: {name: my_board, cpu: cortex-m4, memories: {sram: 4096, mram: 8192}}\n")
    config = load_config(
        path, overrides("--platform.memories", '{"sram": 2048}', "--platform.capabilities", "MCU")
    )
    assert config.platform.memories == {"sram": 2048, "mram": 8192}  # merged key by key
    assert config.platform.capabilities == ["mcu"]
    assert config.model.path == Path("model.tflite")
