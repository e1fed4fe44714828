"""Memory controls move tensors as documented: constraints, tensor rules, staging, and the errors.

Each test plans the bundled KWS model (12 operators, 29 KB of constants) through the real Load,
Resolve and Plan stages and checks where the plan put things; tests/e2e/test_memory_placement.py
builds such modules and runs them against the reference.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.air import AirModel, AirOperator, AirTensor, AirTensorKind, AirTensorType
from helia_aot.aot.operators import AotOperator
from helia_aot.errors import InvalidConfigError, UnsupportedModelError
from helia_aot.pipeline.load import load_model
from helia_aot.pipeline.plan import plan_memory
from helia_aot.pipeline.resolve import resolve_operators
from helia_aot.pipeline.transform import run_transforms
from helia_aot.platforms import get_platform, resolve_platform
from helia_aot.registry import build_default_registry_context

KWS = Path(__file__).resolve().parents[2] / "examples" / "kws" / "kws_int8.tflite"
CONTEXT = build_default_registry_context()


def planned(**config):
    config = ConvertArgs.model_validate({"model": {"path": str(KWS)}, **config})
    model = run_transforms(load_model(KWS, 0, CONTEXT), config, CONTEXT)
    platform = resolve_platform(config.platform, CONTEXT)
    operators = resolve_operators(model, platform, config, CONTEXT)
    return model, plan_memory(model, operators, platform, config, CONTEXT)


def regions_of(plan, role):
    return [r for r in plan.regions if r.role == role]


def memory_of(model, plan, tid):
    return plan.regions[plan.placements[tid].region].memory


def assert_disjoint_when_live(model, plan):
    """Scratch tensors in one region never overlap while both are live (the plan stays valid)."""
    from helia_aot.memory import compute_lifetimes

    spans = compute_lifetimes(model, alias_of=plan.alias_of)
    placed = [(t, plan.placements[t]) for t in spans if model.tensors[t].kind is AirTensorKind.SCRATCH]
    for i, (a, pa) in enumerate(placed):
        region = plan.regions[pa.region]
        assert pa.offset % 16 == 0  # the apollo510 arena alignment
        assert pa.offset + pa.size <= region.used
        for b, pb in placed[i + 1 :]:
            if pa.region != pb.region or spans[a][1] < spans[b][0] or spans[b][1] < spans[a][0]:
                continue
            assert (
                pa.offset + pa.size <= pb.offset
                or pb.offset + pb.size <= pa.offset
                or (pa.offset == pb.offset)
            ), (a, b)


def test_default_plan_fills_the_platforms_fastest_memory():
    """Constants are read in place from DTCM when they fit, beside the scratch arena (heliaAOT 1.1's
    default): the arena's room is the DTCM left after them."""
    _, plan = planned()
    assert [(r.role, r.memory) for r in plan.regions] == [("scratch", "DTCM"), ("constant", "DTCM")]
    dtcm = get_platform("apollo510_evb", CONTEXT).budget("dtcm")
    assert plan.regions[0].capacity == dtcm


def test_constraints_set_the_order_and_the_caps():
    _, plan = planned(
        memory={
            "constraints": [{"memory": "sram", "max_bytes": "64KiB"}, {"memory": "dtcm", "max_bytes": 4096}]
        }
    )
    scratch = regions_of(plan, "scratch")
    assert [r.memory for r in scratch] == ["SRAM"]
    assert scratch[0].capacity == 64 * 1024
    # A cap above what the platform has cannot create memory: the product's error. Without a
    # max_size the memory's whole budget is available.
    with pytest.raises(InvalidConfigError, match="is outside the 507904 bytes target apollo510_evb has"):
        planned(memory={"constraints": [{"memory": "dtcm", "max_bytes": "64MiB"}]})
    _, plan = planned(memory={"constraints": [{"name": "dtcm"}]})
    assert plan.regions[0].capacity == get_platform("apollo510_evb", CONTEXT).budget("dtcm")


def test_an_arena_too_large_for_its_memory_spills_its_largest_tensors_to_the_next():
    model, whole = planned()
    model, plan = planned(
        memory={
            "constraints": [{"memory": "dtcm", "max_bytes": 10000}, {"memory": "sram", "max_bytes": 100000}]
        }
    )
    dtcm, sram = regions_of(plan, "scratch")
    assert (dtcm.memory, sram.memory) == ("DTCM", "SRAM")
    assert dtcm.total_size <= 10000 < whole.regions[0].used
    in_dtcm = [t for t, p in plan.placements.items() if p.region == dtcm.id]
    in_sram = [t for t, p in plan.placements.items() if p.region == sram.id]
    assert in_dtcm and in_sram
    assert max(model.tensors[t].nbytes for t in in_dtcm) <= min(model.tensors[t].nbytes for t in in_sram)
    assert_disjoint_when_live(model, plan)


def test_a_model_that_does_not_fit_names_its_tensors_and_the_memories_tried():
    with pytest.raises(UnsupportedModelError) as info:
        planned(
            memory={
                "constraints": [{"memory": "dtcm", "max_bytes": 6000}, {"memory": "sram", "max_bytes": 7000}]
            }
        )
    error = info.value
    assert (
        "does not fit" in str(error) and "DTCM (cap 6000 B" in str(error) and "SRAM (cap 7000 B" in str(error)
    )
    assert error.details["role"] == "scratch" and error.details["tensors"]
    model, _ = planned()
    assert model.tensors[error.details["tensors"][0]].name in str(error)


def test_constraints_name_only_memories_the_platform_has():
    with pytest.raises(InvalidConfigError, match="itcm|ITCM"):
        planned(
            platform={"name": "apollo4p_evb"}, memory={"constraints": [{"memory": "itcm", "max_bytes": 1024}]}
        )
    with pytest.raises(InvalidConfigError, match="read-write"):
        planned(memory={"constraints": [{"memory": "mram", "max_bytes": "1MiB"}]})


def test_tensor_rules_place_by_type_and_by_id_and_later_rules_win():
    model, plan = planned(
        memory={
            "tensors": [
                {"type": "scratch", "attributes": {"memory": "sram"}},
                {"id": "0", "attributes": {"memory": "dtcm", "alignment": 64}},
            ]
        }
    )
    scratch = {r.memory: r for r in regions_of(plan, "scratch")}
    assert set(scratch) == {"DTCM", "SRAM"}
    assert memory_of(model, plan, "0") == "DTCM" and plan.placements["0"].offset % 64 == 0
    assert scratch["DTCM"].alignment == 64
    others = [t for t in plan.placements if t != "0" and model.tensors[t].kind is AirTensorKind.SCRATCH]
    assert others and all(memory_of(model, plan, t) == "SRAM" for t in others)


def test_staged_constants_are_stored_in_mram_and_copied_into_dtcm():
    model, cold = planned()
    model, plan = planned(
        memory={
            "tensors": [
                {"type": "constant", "attributes": {"memory": "mram", "constant_destination_memory": "dtcm"}}
            ]
        }
    )
    staged = [r for r in regions_of(plan, "constant") if r.staged]
    assert len(staged) == 1
    region = staged[0]
    source = plan.regions[region.source_region]
    assert (region.memory, region.source_memory, source.memory) == ("DTCM", "MRAM", "MRAM")
    assert region.tag == "constant_dtcm_from_mram" and not source.staged and region.bindable
    blob = plan.constant_blobs[source.id]
    constants = [
        t for t in model.tensors.values() if t.kind is AirTensorKind.CONSTANT and t.id in plan.placements
    ]
    for tensor in constants:
        p = plan.placements[tensor.id]
        assert p.region == region.id
        start = region.source_offset + p.offset
        stored = np.frombuffer(blob[start : start + tensor.nbytes], dtype=tensor.dtype.numpy)
        assert np.array_equal(stored, tensor.data.reshape(-1))
    assert region.used == cold.regions[1].used


def test_staged_constants_count_against_the_destination_cap():
    with pytest.raises(UnsupportedModelError, match="staged constants copied into DTCM"):
        planned(
            memory={
                "constraints": [
                    {"memory": "dtcm", "max_bytes": 20000},
                    {"memory": "sram", "max_bytes": "1MiB"},
                ],
                "tensors": [{"type": "constant", "attributes": {"constant_destination_memory": "dtcm"}}],
            }
        )
    _, plan = planned(
        memory={
            "constraints": [{"memory": "dtcm", "max_bytes": 40000}, {"memory": "sram", "max_bytes": "1MiB"}],
            "tensors": [{"type": "constant", "attributes": {"constant_destination_memory": "dtcm"}}],
        }
    )
    in_dtcm = sum(r.total_size for r in plan.regions if r.memory == "DTCM")
    assert in_dtcm <= 40000 and any(r.memory == "SRAM" and r.role == "scratch" for r in plan.regions)


def test_cold_constants_can_be_read_in_place_from_another_memory():
    _, plan = planned(memory={"tensors": [{"type": "constant", "attributes": {"memory": "sram"}}]})
    constant = regions_of(plan, "constant")
    assert [(r.memory, r.staged) for r in constant] == [("SRAM", False)]


@pytest.mark.parametrize(
    "rule, message",
    [
        ({"id": "nope_0", "attributes": {"memory": "sram"}}, "which the model does not have"),
        ({"id": "op0_output_multiplyer", "attributes": {"memory": "sram"}}, "op0_output_multiplier"),
        ({"type": "constant", "id": "0", "attributes": {"memory": "sram"}}, "is a scratch tensor"),
        ({"type": "scratch", "attributes": {"memory": "mram"}}, "read-only"),
        ({"type": "constant", "attributes": {"constant_destination_memory": "flash"}}, "does not have it"),
    ],
)
def test_tensor_rule_mistakes_are_configuration_errors(rule, message):
    with pytest.raises(InvalidConfigError) as info:
        planned(memory={"tensors": [rule]})
    assert message in str(info.value) + str(info.value.hint)


def test_a_rule_memory_must_be_listed_in_the_constraints():
    with pytest.raises(InvalidConfigError, match="memory.constraints does not list it"):
        planned(
            memory={
                "constraints": [{"memory": "dtcm", "max_bytes": "64KiB"}],
                "tensors": [{"type": "scratch", "attributes": {"memory": "sram"}}],
            }
        )


def test_persistent_tensors_get_their_own_arena_and_follow_rules():
    platform = get_platform("apollo510_evb", CONTEXT)
    model = AirModel(name="stateful")
    for tid, kind in (
        ("x", AirTensorKind.SCRATCH),
        ("state", AirTensorKind.PERSISTENT),
        ("y", AirTensorKind.SCRATCH),
    ):
        model.add_tensor(AirTensor(tid, tid, (4, 8), AirTensorType.INT8, kind))
    model.add_tensor(
        AirTensor(
            "w", "w", (8,), AirTensorType.INT8, AirTensorKind.CONSTANT, data=np.arange(8, dtype=np.int8)
        )
    )
    model.operators.append(AirOperator("0", "ADD", ["x", "state", "w"], ["y"]))
    model.inputs, model.outputs = ["x"], ["y"]
    operators = [AotOperator(op, model, platform) for op in model.operators]
    for rules, memory in (([], "DTCM"), ([{"type": "persistent", "attributes": {"memory": "sram"}}], "SRAM")):
        config = ConvertArgs.model_validate(
            {"model": {"path": "unused.tflite"}, "memory": {"tensors": rules}}
        )
        plan = plan_memory(model, operators, platform, config, CONTEXT)
        assert memory_of(model, plan, "state") == memory
        region = plan.regions[plan.placements["state"].region]
        assert region.role == "persistent" and region.used == 32 and region.peak_live is None
        assert plan.regions[plan.placements["x"].region].role == "scratch"


# -- operators[] attribute rules are checked against the registry before the model loads ------------
def convert_missing_model(tmp_path, operators):
    config = ConvertArgs.model_validate(
        {
            "model": {"path": str(tmp_path / "absent.tflite")},
            "module": {"path": str(tmp_path / "out")},
            "operators": operators,
        }
    )
    return AotConverter(config).convert()


@pytest.mark.parametrize(
    "rule, words",
    [
        ({"type": "CONV_2D", "attributes": {"code_placment": "ITCM"}}, ["code_placment", "'code_placement'"]),
        ({"attributes": {"code_placement": "L2"}}, ["code_placement", "ITCM"]),
        ({"attributes": {"scratch_placement": "dtcm"}}, ["removed", "memory.tensors"]),
    ],
)
def test_attribute_rules_fail_before_the_model_loads(tmp_path, rule, words):
    with pytest.raises(InvalidConfigError) as info:
        convert_missing_model(tmp_path, [rule])  # the model does not exist: the check ran first
    text = f"{info.value} {info.value.hint}"
    assert all(word in text for word in words), text


def test_free_form_attributes_of_a_plugin_operator_are_not_checked():
    from helia_aot.aot.operators import OperatorAttributes
    from helia_aot.pipeline.attribute_rules import check_operator_rules
    from pydantic import ConfigDict
    from pydantic.dataclasses import dataclass

    @dataclass(config=ConfigDict(extra="allow"))
    class Loose(OperatorAttributes):
        pass

    class LooseOperator(AotOperator):
        TYPE = "LOOSE_OP"
        ATTRIBUTES = Loose

    context = build_default_registry_context(
        customizers=[lambda c: c.aot_operator_classes.register("LOOSE_OP", LooseOperator)]
    )
    rules = ConvertArgs.model_validate(
        {"model": {"path": "m.tflite"}, "operators": [{"type": "LOOSE_OP", "attributes": {"gain": 3}}]}
    ).operators
    check_operator_rules(rules, context)
    star = ConvertArgs.model_validate(
        {"model": {"path": "m.tflite"}, "operators": [{"type": "*", "attributes": {"gain": 3}}]}
    ).operators
    with pytest.raises(InvalidConfigError, match="gain"):
        check_operator_rules(star, context)
