"""Constants are placed by what their reads cost (docs/memory.md, "Which memory reads each constant").

When the constants do not all fit the fastest memory, the ones read most per byte claim it first;
the report's ``placement`` says per region what went there, the bytes one inference reads there
and the modeled wait cycles, and what the constants' placement saves against the simplest one.
A ``memory.tensors`` rule still decides for the tensors it reaches, and at goal latency the
scratch arena competes for the fast memory too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.pipeline.access_cost import wait_cycles
from helia_aot.platforms import get_platform
from helia_aot.registry import build_default_registry_context

MODEL = Path(__file__).resolve().parents[1] / "data" / "models" / "mlperf_kws_dscnn_int8.tflite"
PLATFORM = "apollo4p_evb"  # SRAM pays a wait state, DTCM none
TIGHT = {"constraints": [{"name": "dtcm", "max_size": "24KiB"}, {"name": "sram"}]}


def convert(out: Path, memory: dict, goal: str = "balanced") -> tuple[dict, dict]:
    config = ConvertArgs.model_validate(
        {
            "model": {"path": str(MODEL)},
            "module": {"path": str(out), "name": "kws"},
            "platform": {"name": PLATFORM},
            "memory": {**memory, "dump_residency_json": True},
            "optimization": {"goal": goal},
        }
    )
    module = AotConverter(config).convert().output
    report = json.loads((module / "aot_report.json").read_text())
    residency = json.loads((module / "aot_residency.json").read_text())
    return report["placement"], residency


@pytest.fixture(scope="module")
def tight(tmp_path_factory):
    return convert(tmp_path_factory.mktemp("tight"), TIGHT)


def test_the_constants_read_most_per_byte_take_the_fast_memory(tight):
    placement, _ = tight
    rows = {row["region"]: row for row in placement["regions"]}
    dtcm, sram = rows["aot_arena_const_dtcm"], rows["aot_arena_const_sram"]
    assert dtcm["bytes_accessed"] / dtcm["bytes"] > sram["bytes_accessed"] / sram["bytes"]
    assert placement["cycles_saved"] >= 0
    assert placement["cycles_saved"] == (
        placement["simplest_constant_wait_cycles"] - placement["constant_wait_cycles"]
    )


def test_each_regions_wait_cycles_are_its_memorys_wait_states_per_beat(tight):
    placement, residency = tight
    platform = get_platform(PLATFORM, build_default_registry_context())
    tensors_in = {}
    for tensor in residency["tensors"]:
        if tensor.get("region_id") is not None:
            tensors_in[tensor["region_id"]] = tensors_in.get(tensor["region_id"], 0) + 1
    for region_id, row in enumerate(placement["regions"]):
        assert row["wait_cycles"] == wait_cycles(platform, row["memory"], row["bytes_accessed"])
        assert (row["wait_cycles"] == 0) == (row["memory"] == "dtcm" or row["bytes_accessed"] == 0)
        assert row["tensors"] >= tensors_in.get(region_id, 0) > 0


def test_a_rule_still_places_the_constants(tmp_path):
    rule = {"tensors": [{"type": "constant", "attributes": {"memory": "mram"}}]}
    placement, _ = convert(tmp_path, {**TIGHT, **rule})
    constant = [row for row in placement["regions"] if row["role"] == "constant"]
    assert [row["region"] for row in constant] == ["aot_arena_const_mram"]
    assert placement["cycles_saved"] == 0  # nothing left for the rule to choose


def test_at_goal_latency_the_activations_claim_the_fast_memory_too(tmp_path, tight):
    balanced, _ = tight
    latency, _ = convert(tmp_path, TIGHT, goal="latency")
    scratch = {row["memory"]: row["bytes"] for row in latency["regions"] if row["role"] == "scratch"}
    assert list(scratch) == ["dtcm"]
    total = {
        name: sum(r["wait_cycles"] for r in p["regions"]) for name, p in (("b", balanced), ("l", latency))
    }
    assert total["l"] < total["b"]
