"""Goal and constant_placement hints: what another goal or a staging rule would change.

The report's ``hints`` (and the CLI's results panel) say, beside the knob hints, what each other
goal would do to this module (the operators whose ``auto`` knobs it resolves differently, with
the bytes from the plan and the code and instructions from measured.json, and at ``latency`` the
kernel buffers balanced placed in dead bytes) and whether the constants would fit in the DTCM
left free. Every figure is checked against where it is taken from.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import yaml
from helia_aot import AotConverter, ConvertArgs
from helia_aot.cli.progress import results_panel
from helia_aot.pipeline.knob_hints import placement_hint
from rich.console import Console

MODEL = Path(__file__).resolve().parents[1] / "data" / "models" / "mlperf_kws_dscnn_int8.tflite"


# Constants read in place from MRAM (the rule a build whose startup code does not fill DTCM
# sets): the staging hint has something to say.
IN_MRAM = {"tensors": [{"type": "constant", "attributes": {"memory": "mram"}}]}


def settings(tmp_path: Path, name: str, **optimization) -> ConvertArgs:
    config = {
        "model": {"path": str(MODEL)},
        "module": {"path": str(tmp_path / name), "name": name},
        "optimization": optimization,
        "memory": IN_MRAM,
    }
    return ConvertArgs.model_validate(config)


def convert(tmp_path: Path, name: str, **optimization):
    return AotConverter(settings(tmp_path, name, **optimization)).convert()


@pytest.fixture(scope="module")
def balanced(tmp_path_factory):
    return convert(tmp_path_factory.mktemp("balanced"), "kws")


def by_setting(result, setting):
    return {h.alternative: h for h in result.report.hints if h.setting == setting}


def test_goal_size_hint_names_the_convolutions_that_drop_their_folded_constants(balanced):
    size = by_setting(balanced, "goal")["size"]
    assert size.current == "balanced" and size.yaml == "optimization:\n  goal: size\n"
    # Size keeps every fast loop (no knob changes) but runs the nine convolutions from the
    # model's own bias: their folded offset_bias (64 channels x 4 B each) and the buffers
    # balanced keeps (the first convolution's 768 B; the others' sit in dead bytes) go.
    named = [op for op in balanced.plan.operators if op.id in size.operators]
    assert len(size.operators) == len(named) == 9
    assert {op.op_type for op in named} == {"CONV_2D", "DEPTHWISE_CONV_2D"}
    assert size.facts["const_bytes_saved"] == 9 * 64 * 4
    assert size.facts["scratch_bytes_saved"] == 768
    assert size.facts["instructions_delta"] == {} and size.facts["code_bytes_saved"] == 0
    assert "goal: size" in size.message and "model's own constants" in size.message


def test_goal_latency_hint_counts_the_buffers_balanced_places_in_dead_bytes(balanced):
    latency = by_setting(balanced, "goal")["latency"]
    dropped = sum(d.bytes for op in balanced.plan.operators for d in op.dropped_scratch)
    assert dropped == 4 * 896
    assert latency.facts["scratch_bytes_saved"] == -dropped
    assert latency.operators == []  # no knob changes: the measured table prefers specialized too
    assert f"{dropped:,} B of kernel scratch" in latency.message


def test_explicit_knobs_are_not_the_goals_to_change(tmp_path):
    result = convert(tmp_path, "kws_generic", goal="balanced", kernel="generic")
    goals = by_setting(result, "goal")
    # Every kernel was asked for explicitly, so no goal changes one; balanced has no buffers.
    assert "size" not in goals and "latency" not in goals


def test_constant_placement_hint_gives_yaml_that_stages_the_constants(balanced, tmp_path):
    hint = by_setting(balanced, "constant_placement")["DTCM"]
    constants = sum(a["used"] for a in balanced.arenas if a["role"] == "constant")
    assert hint.facts["const_bytes_moved"] == constants and hint.current == "MRAM"
    assert f"{constants:,} B" in hint.message
    rules = yaml.safe_load(hint.yaml)
    config = {
        "model": {"path": str(MODEL)},
        "module": {"path": str(tmp_path / "staged"), "name": "staged"},
        **rules,
    }
    assert rules["memory"]["tensors"][0]["attributes"]["memory"] == "mram"
    staged = AotConverter(ConvertArgs.model_validate(config)).convert()
    assert staged.report.constant_placement.constant_bytes_in_tcm == constants
    assert "constant_placement" not in {h.setting for h in staged.report.hints}


@pytest.mark.parametrize(
    ("placement", "hinted"),
    [
        ({"constant_bytes_outside_tcm": {"MRAM": 1000}, "dtcm_free_bytes": 1000}, True),
        ({"constant_bytes_outside_tcm": {"MRAM": 1001}, "dtcm_free_bytes": 1000}, False),
        ({"constant_bytes_outside_tcm": {}, "dtcm_free_bytes": 1000}, False),
        (
            {
                "constant_bytes_outside_tcm": {"MRAM": 10},
                "dtcm_free_bytes": 1000,
                "id_specific_constant_rules": 1,
            },
            False,
        ),
        (None, False),
    ],
)
def test_constant_placement_hint_only_when_the_constants_fit_and_no_rule_places_them(placement, hinted):
    class Platform:
        name, cpu = "apollo510_evb", "cortex-m55"

    assert (placement_hint(placement, Platform()) is not None) is hinted


def test_the_results_panel_prints_the_goal_hints(balanced, tmp_path):
    console = Console(file=io.StringIO(), width=400)
    console.print(results_panel(settings(tmp_path, "kws"), balanced))
    text = console.file.getvalue()
    assert "Optimization hints" in text
    assert "goal: size" in text and "goal: latency" in text and "constant_placement: DTCM" in text
