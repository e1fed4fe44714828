"""The plan and report files: golden schema on a real model, reader round trip, schema_version rule.

The expected files under tests/data/expected/ hold the KWS DS-CNN int8 module's records. Run with
HELIA_AOT_REGEN_EXPECTED=1 to rewrite them after an intended change (the comparison still runs).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.config.enums import AccumulationChoice, KernelChoice, OptimizationGoal
from helia_aot.optimization import (
    ArenaRole,
    HintKind,
    OptimizationPlan,
    OptimizationReport,
)
from pydantic import ValidationError

DATA = Path(__file__).resolve().parents[1] / "data"
MODEL = DATA / "models" / "mlperf_kws_dscnn_int8.tflite"
EXPECTED = DATA / "expected"


def convert(out: Path, **extra) -> object:
    config = {
        "model": {"path": str(MODEL), "name": MODEL.stem},  # model.name defaults to "model"
        "module": {"path": str(out), "name": "kws", "prefix": "kws"},
        "platform": {"name": "apollo510_evb"},
        **extra,
    }
    return AotConverter(ConvertArgs.model_validate(config)).convert()


@pytest.fixture(scope="module")
def kws(tmp_path_factory):
    return convert(tmp_path_factory.mktemp("plan"))


def expected(name: str, actual: dict) -> dict:
    path = EXPECTED / name
    if os.environ.get("HELIA_AOT_REGEN_EXPECTED") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(actual, indent=2) + "\n")
    return json.loads(path.read_text())


def stable_report(report: dict) -> dict:
    """The report without what planner work legitimately moves (which operator holds the scratch
    peak, hint wording): the figures, kernel calls, arena homes and arena sizes. The sizes stay so
    that memory growth is noticed: a change that needs more bytes regenerates the file, and the
    diff shows by how much."""
    return {
        "schema_version": report["schema_version"],
        "model_name": report["model_name"],
        "platform_name": report["platform_name"],
        "operators": [
            {k: op[k] for k in ("id", "index", "op_type", "macs", "parameters", "kernel_calls")}
            for op in report["operators"]
        ],
        "arenas": [
            {k: a[k] for k in ("region", "role", "memory", "alignment", "used", "total_size", "peak_live")}
            for a in report["arenas"]
        ],
        "total_macs": report["total_macs"],
        "total_parameters": report["total_parameters"],
    }


def test_plan_file_matches_golden(kws):
    written = json.loads((kws.output / "kws_plan.json").read_text())
    assert written == expected("mlperf_kws_dscnn_int8_plan.json", written)


def test_report_file_matches_golden(kws):
    written = json.loads((kws.output / "kws_report.json").read_text())
    assert stable_report(written) == stable_report(expected("mlperf_kws_dscnn_int8_report.json", written))


def test_plan_records_each_operator_decision(kws):
    plan = kws.plan
    assert [op.index for op in plan.operators] == list(range(12))
    assert [op.node_id for op in plan.operators] == [str(i) for i in range(12)]
    # Plan ids are "<subgraph>:<first output tensor name>", as operators[].id rules may name them.
    assert plan.operators[-1].id == "0:Identity" and {op.id_source for op in plan.operators} == {
        "tensor_name"
    }
    conv = plan.operators[0]
    assert (
        conv.op_type == "CONV_2D"
        and conv.kernel.family == "conv"
        and conv.kernel.entry == "hk_conv_s8_scratch"
    )
    # balanced keeps the shape-specialized fast paths (kernel: auto -> specialized).
    assert {name: k.value for name, k in conv.knobs.items()} == {
        "kernel": KernelChoice.SPECIALIZED.value,
        "accumulation": AccumulationChoice.PRECISE.value,
    }
    assert conv.knobs["kernel"].requested == "auto" and conv.knobs["kernel"].source.kind == "default"
    assert plan.operators[9].knobs == {}  # AVERAGE_POOL_2D has no knob
    assert conv.attributes == {"code_placement": "DEFAULT"}
    assert plan.optimization.goal is OptimizationGoal.BALANCED
    assert plan.module_prefix == "kws" and plan.model.file == MODEL.name and plan.model.subgraph == 0
    assert plan.platform.name == "apollo510_evb" and plan.platform.supports_fp16


def test_report_figures_follow_the_definitions(kws):
    ops = {op.index: op for op in kws.report.operators}
    # CONV_2D 0: 64 filters of 10x4x1 over a 25x5 output, plus 64 biases.
    assert ops[0].macs == 64 * 10 * 4 * 25 * 5 and ops[0].parameters == 64 * 10 * 4 + 64
    assert ops[1].macs == 3 * 3 * 64 * 25 * 5 and ops[1].parameters == 3 * 3 * 64 + 64
    assert ops[9].op_type == "AVERAGE_POOL_2D" and ops[9].macs == 0 and ops[9].parameters == 0
    # The model's dense layer has no bias (an absent optional input).
    assert ops[10].macs == 12 * 64 and ops[10].parameters == 12 * 64
    assert ops[11].op_type == "SOFTMAX" and ops[11].macs == 0 and ops[11].parameters is None
    assert kws.report.total_macs == sum(op.macs or 0 for op in ops.values())
    assert ops[0].kernel_calls == {"conv_2d": "hk_conv_s8_scratch"}


def test_readers_round_trip_the_files(kws):
    for name, reader, held in (
        ("plan", OptimizationPlan, kws.plan),
        ("report", OptimizationReport, kws.report),
    ):
        text = (kws.output / f"kws_{name}.json").read_text()
        read = reader.model_validate_json(text)
        assert read == held
        assert read.model_dump(mode="json") == json.loads(text)
        assert reader.model_validate_json(read.model_dump_json()) == read


def test_scratch_peak_is_pointed_at(kws):
    peaks = [
        (op.index, h) for op in kws.report.operators for h in op.hints if h.kind is HintKind.SCRATCH_PEAK
    ]
    (scratch,) = [a for a in kws.report.arenas if a.role is ArenaRole.SCRATCH]
    assert len(peaks) == 1
    index, hint = peaks[0]
    # Which operator it is depends on the kernels' own scratch; tests/e2e/test_reports.py works it
    # out independently. Here: the hint names the arena and the operator is one that runs.
    assert f"of the {scratch.used} bytes of {scratch.memory} scratch are live here" in hint.message
    assert 0 <= index < len(kws.report.operators)


# Emit also warns about the ITCM request on a board without ITCM; the report is what is checked here.
@pytest.mark.filterwarnings("ignore:.*has no ITCM:UserWarning")
def test_unhonoured_requests_become_hints(tmp_path):
    result = convert(
        tmp_path,
        platform={"name": "apollo4p_evb"},
        operators=[
            # No float16 kernel here: the int8 convolutions accumulate precisely only.
            {"type": "CONV_2D", "optimization": {"accumulation": "fast"}},
            {"type": "SOFTMAX", "attributes": {"code_placement": "ITCM"}},
            {"id": "1", "optimization": {"kernel": "generic", "accumulation": "precise"}},
        ],
    )
    kinds = {
        op.index: sorted(str(h.kind) for h in op.hints if h.kind is not HintKind.SCRATCH_PEAK)
        for op in result.report.operators
    }
    assert kinds[0] == ["knob_not_honoured"] and kinds[2] == ["knob_not_honoured"]
    assert kinds[11] == ["code_placement_ignored"]
    assert kinds[1] == [] and kinds[10] == []
    # The plan says what ran, whatever was asked.
    accumulation = result.plan.operators[0].knobs["accumulation"]
    assert (accumulation.value, accumulation.requested, accumulation.resolved_by) == (
        "precise",
        "fast",
        "explicit",
    )
    assert accumulation.source.kind == "operator" and accumulation.source.rule.index == 0
    assert result.plan.operators[1].knobs["kernel"].source.rule.index == 2
    assert result.plan.operators[11].attributes == {"code_placement": "ITCM"}


# -- the schema_version rule -----------------------------------------------------------------------


def plan_file(**overrides) -> dict:
    choice = {
        "value": "generic",
        "requested": "auto",
        "resolved_by": "auto_table",
        "source": {"kind": "default", "rule": None},
        "approximate": False,
    }
    record = {
        "schema_version": 1,
        "generator": {"helia_aot": "0.1.0", "cmsis_nn_required": ""},
        "model": {"file": "m.tflite", "sha256": None, "subgraph": 0},
        "module_prefix": "m",
        "platform": {"name": "p", "cpu": "cortex-m55", "capabilities": ["MCU"], "supports_fp16": False},
        "optimization": {"goal": "balanced", "allow_approximate": False, "knobs": {}},
        "operators": [
            {
                "id": "0:y",
                "id_source": "tensor_name",
                "index": 0,
                "node_id": "0",
                "op_type": "CONV_2D",
                "source_indices": [0],
                "kernel": {
                    "family": "conv",
                    "entry": "hk_conv_s8",
                    "families": ["conv"],
                    "calls": {"conv_2d": "hk_conv_s8"},
                },
                "knobs": {"kernel": choice, "accumulation": {**choice, "value": "precise"}},
                "fixed": {},
                "attributes": {"code_placement": "DEFAULT"},
            }
        ],
    }
    record.update(overrides)
    return record


def test_fields_a_release_does_not_know_are_ignored():
    record = plan_file(
        compiler="9.9",
        operators=[{**plan_file()["operators"][0], "cycles": 12, "kernel": {"entry": "e", "isa": "mve"}}],
    )
    plan = OptimizationPlan.model_validate_json(json.dumps(record))
    assert plan.operators[0].kernel.entry == "e"
    assert "cycles" not in plan.operators[0].model_dump() and "compiler" not in plan.model_dump()


def test_a_file_from_an_older_release_with_fewer_fields_reads():
    plan = OptimizationPlan.model_validate(plan_file(operators=[{"id": "3", "index": 0, "op_type": "ADD"}]))
    assert plan.operators[0].knobs == {} and plan.operators[0].kernel is None


def test_enum_values_a_release_does_not_know_are_kept_as_strings():
    choice = plan_file()["operators"][0]["knobs"]["kernel"]
    record = plan_file(
        optimization={"goal": "thermal", "allow_approximate": False, "knobs": {}},
        operators=[
            {
                **plan_file()["operators"][0],
                "knobs": {
                    "kernel": {**choice, "value": "helium_v2", "source": {"kind": "profile"}},
                    "unroll": {**choice, "value": "4"},
                },
            }
        ],
    )
    plan = OptimizationPlan.model_validate_json(json.dumps(record))
    knobs = plan.operators[0].knobs
    assert knobs["kernel"].value == "helium_v2" and knobs["kernel"].source.kind == "profile"
    assert knobs["unroll"].value == "4" and plan.optimization.goal == "thermal"
    dumped = json.loads(plan.model_dump_json())
    assert dumped["operators"][0]["knobs"]["kernel"]["value"] == "helium_v2"
    assert dumped["optimization"]["goal"] == "thermal"

    report = OptimizationReport.model_validate(
        {
            "schema_version": 1,
            "plan_file": "m_plan.json",
            "arenas": [
                {
                    "region": 0,
                    "role": "cache",
                    "memory": "PSRAM",
                    "used": 1,
                    "total_size": 16,
                    "alignment": 16,
                },
                {
                    "region": 1,
                    "role": "scratch",
                    "memory": "DTCM",
                    "used": 1,
                    "total_size": 16,
                    "alignment": 16,
                },
            ],
            "arena_hints": [
                {"kind": "thermal_throttle", "message": "m"},
                {"kind": "fragmentation", "message": "f"},
            ],
        }
    )
    assert report.arenas[0].role == "cache" and report.arenas[1].role is ArenaRole.SCRATCH
    hints = report.arena_hints
    assert hints[0].kind == "thermal_throttle" and hints[1].kind is HintKind.FRAGMENTATION
    assert json.loads(report.model_dump_json())["arena_hints"][0]["kind"] == "thermal_throttle"


@pytest.mark.parametrize("reader, what", [(OptimizationPlan, "plan"), (OptimizationReport, "report")])
@pytest.mark.parametrize("version", [0, 2, 17])
def test_another_schema_version_names_both_versions(reader, what, version):
    # The rest of the file is nonsense on purpose: the version is checked before anything else.
    with pytest.raises(ValidationError) as caught:
        reader.model_validate_json(json.dumps({"schema_version": version, "operators": "not a list"}))
    message = str(caught.value)
    assert caught.value.error_count() == 1
    assert f"{what} schema_version {version}" in message and "reads schema_version 1" in message


def test_schema_version_must_be_the_number_itself():
    with pytest.raises(ValidationError):
        OptimizationPlan.model_validate({"schema_version": "1"})
    with pytest.raises(ValidationError):
        OptimizationPlan.model_validate({"schema_version": True})


def test_records_compare_by_value_and_are_frozen():
    a = OptimizationPlan.model_validate(plan_file())
    b = OptimizationPlan.model_validate_json(json.dumps(plan_file()))
    assert a == b and a is not b
    with pytest.raises(ValidationError):
        a.module_prefix = "other"
