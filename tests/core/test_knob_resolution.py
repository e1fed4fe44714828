"""Knob resolution: the auto table, an operator's modeled preference, overrides, what the plan records.

The unit tests resolve one knob against the built-in specs; the conversion tests run the KWS
DS-CNN int8 model and read the plan, so the overrides are checked through the very ids a user
writes (type, index, plan id, a list) and the kernel entries the module then calls.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.config.enums import OptimizationGoal
from helia_aot.optimization import knob
from helia_aot.optimization import measured as measured_module
from helia_aot.optimization.resolution import KnobRequest, KnobSettings, resolve_knob
from helia_aot.pack import register_knob_values
from helia_aot.registry import build_default_registry_context

DATA = Path(__file__).resolve().parents[1] / "data"
MODEL = DATA / "models" / "mlperf_kws_dscnn_int8.tflite"
AUTO = KnobRequest("auto", "default")
BOTH = ("specialized", "generic")

KERNEL_BY_GOAL = {
    "latency": "specialized",
    "balanced": "specialized",
    "size": "generic",
    "accuracy": "specialized",
}
SIZE_FAST = ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED")
"""The types whose fast loops goal size keeps (in their form without folded constants)."""


@pytest.mark.parametrize("goal", sorted(KERNEL_BY_GOAL))
def test_kernel_auto_follows_the_goal_table(goal):
    settings = KnobSettings(OptimizationGoal(goal))
    choice = resolve_knob(knob("kernel"), AUTO, settings, "RESIZE_BILINEAR", BOTH)
    assert (choice.value, choice.honoured, choice.plan_record()["resolved_by"]) == (
        KERNEL_BY_GOAL[goal],
        True,
        "auto_table",
    )
    # The convolutions and fully connected keep their fast loops at every goal (the knob's
    # per-operator auto table; at size they run without folded constants).
    for op_type in SIZE_FAST:
        assert resolve_knob(knob("kernel"), AUTO, settings, op_type, BOTH).value == "specialized"


@pytest.mark.parametrize("goal", [g.value for g in OptimizationGoal])
def test_accumulation_fast_only_at_latency_with_allow_approximate(goal):
    offered = ("precise", "fast")
    spec = knob("accumulation")
    allowed = resolve_knob(spec, AUTO, KnobSettings(OptimizationGoal(goal), True), "CONV_2D", offered)
    refused = resolve_knob(spec, AUTO, KnobSettings(OptimizationGoal(goal), False), "CONV_2D", offered)
    assert allowed.value == ("fast" if goal == "latency" else "precise")
    assert allowed.approximate == (goal == "latency")
    assert refused.value == "precise" and refused.honoured


def test_explicit_request_a_kernel_cannot_honour_falls_back_and_says_so():
    spec = knob("accumulation")
    asked = KnobRequest("fast", "model")
    # Allowed but not offered (no float16 kernel): the operator's first offer runs.
    choice = resolve_knob(spec, asked, KnobSettings(allow_approximate=True), "CONV_2D", ("precise",))
    assert (choice.value, choice.honoured, choice.wanted) == ("precise", False, "fast")
    assert "offers precise" in choice.reason
    # Offered but approximate without allow_approximate.
    choice = resolve_knob(spec, asked, KnobSettings(), "CONV_2D", ("precise", "fast"))
    assert (choice.value, choice.honoured) == ("precise", False) and "allow_approximate" in choice.reason
    # An auto value the operator lacks falls back silently (nothing was asked for).
    choice = resolve_knob(knob("kernel"), AUTO, KnobSettings(), "RESIZE_BILINEAR", ("generic",))
    assert (choice.value, choice.honoured) == ("generic", True)


def test_modeled_preference_replaces_the_auto_table_value():
    asked: list[tuple[str, str, tuple[str, ...], str]] = []

    def prefers_generic(knob_name: str, goal: str, offered: tuple[str, ...], today: str) -> str | None:
        asked.append((knob_name, goal, offered, today))
        return "generic" if goal == "latency" else None

    spec = knob("kernel")
    latency = KnobSettings(OptimizationGoal.LATENCY)
    choice = resolve_knob(spec, AUTO, latency, "DEPTHWISE_CONV_2D", BOTH, prefers_generic)
    assert (choice.value, choice.auto_basis, choice.honoured) == ("generic", "modeled_cycles", True)
    assert asked == [("kernel", "latency", BOTH, "specialized")]  # told what the auto table names
    # No say (None) or the auto table's own value: the auto table decides.
    choice = resolve_knob(spec, AUTO, KnobSettings(), "DEPTHWISE_CONV_2D", BOTH, prefers_generic)
    assert (choice.value, choice.auto_basis) == ("specialized", "auto_table")
    # An explicit request is never second-guessed, and a value not offered is not taken.
    asked_for = KnobRequest("specialized", "model")
    assert resolve_knob(spec, asked_for, latency, "CONV_2D", BOTH, prefers_generic).value == "specialized"
    assert (
        resolve_knob(spec, AUTO, latency, "CONV_2D", ("specialized",), prefers_generic).value == "specialized"
    )


def test_packaged_measured_table_reads():
    for row in measured_module.measured_table():
        assert row.knob == "kernel" and row.value in BOTH and row.instructions > 0


# -- through a conversion -------------------------------------------------------------------------


def convert(out: Path, context=None, **extra):
    config = {
        "model": {"path": str(MODEL), "name": MODEL.stem},
        "module": {"path": str(out), "name": "kws", "prefix": "kws"},
        "platform": {"name": "apollo510_evb"},
        **extra,
    }
    return AotConverter(ConvertArgs.model_validate(config), context).convert()


def kernels(result) -> dict[int, tuple[str, str]]:
    return {
        op.index: (op.knobs["kernel"].value, op.kernel.entry)
        for op in result.plan.operators
        if "kernel" in op.knobs
    }


def test_goals_pick_the_kernel_entries(tmp_path):
    balanced = kernels(convert(tmp_path / "b"))
    size = kernels(convert(tmp_path / "s", optimization={"goal": "size"}))
    generic = kernels(convert(tmp_path / "g", optimization={"kernel": "generic"}))
    assert {value for value, _ in balanced.values()} == {"specialized"}
    # KWS's first layer takes Helium's im2col entry (other cores: hk_conv_s8).
    assert balanced[0] == ("specialized", "hk_conv_s8_im2col") and generic[0] == (
        "generic",
        "hk_conv_s8_generic",
    )
    assert generic[1] == ("generic", "hk_depthwise_s8_generic")
    assert generic[max(generic)] == ("generic", "hk_fully_connected_s8_generic")
    # goal size: the fast loops without folded constants or buffers (the convolution's
    # hk_conv_unfolded family, its entry named for the layer: windows over one channel gathered
    # into columns), the fully connected fast path.
    assert size[0] == ("specialized", "hk_conv_s8_unfolded_columns")
    assert size[1] == ("specialized", "hk_depthwise_s8")
    assert size[max(size)] == ("specialized", "hk_fully_connected_s8")


def test_overrides_by_type_index_plan_id_and_list(tmp_path):
    plan_ids = [op.id for op in convert(tmp_path / "ids").plan.operators]
    rules = [
        {"type": "DEPTHWISE_CONV_2D", "optimization": {"kernel": "generic"}},  # by type
        {"id": "0", "optimization": {"kernel": "generic"}},  # by index
        {"id": plan_ids[2], "optimization": {"kernel": "generic"}},  # by plan id
        {"id": ["4", plan_ids[6]], "optimization": {"kernel": "generic"}},  # a list
        {"type": "DEPTHWISE_CONV_2D", "id": "3", "optimization": {"kernel": "specialized"}},  # later wins
    ]
    result = convert(tmp_path / "rules", operators=rules)
    plan = {op.index: op for op in result.plan.operators}
    value = {i: op.knobs["kernel"].value for i, op in plan.items() if "kernel" in op.knobs}
    assert value[0] == value[2] == value[4] == value[6] == "generic"
    assert value[1] == value[5] == "generic" and value[3] == "specialized"
    assert value[8] == "specialized"  # untouched CONV_2D
    source = {i: plan[i].knobs["kernel"].source for i in (0, 1, 2, 3, 6, 8)}
    assert [source[i].rule.index for i in (0, 1, 2, 3, 6)] == [1, 0, 2, 4, 3]
    assert source[6].rule.id == ["4", plan_ids[6]]
    assert source[8].kind == "default" and source[8].rule is None
    record = plan[0].knobs["kernel"]
    assert (record.requested, record.resolved_by, record.source.kind) == ("generic", "explicit", "operator")


def test_model_wide_request_is_recorded_as_model(tmp_path):
    result = convert(tmp_path, optimization={"kernel": "generic"})
    record = result.plan.operators[0].knobs["kernel"]
    assert (record.value, record.requested, record.source.kind) == ("generic", "generic", "model")
    hints = {h.setting: h for h in result.report.hints}
    assert hints["kernel"].alternative == "specialized" and hints["kernel"].facts["const_bytes_saved"] < 0


def test_balanced_hint_names_what_generic_saves(tmp_path):
    result = convert(tmp_path)
    (hint,) = [h for h in result.report.hints if h.setting == "kernel"]
    assert (hint.current, hint.alternative) == ("specialized", "generic")
    assert hint.facts["const_bytes_saved"] > 0 and hint.facts["scratch_bytes_saved"] > 0
    assert "kernel: generic" in hint.yaml and len(hint.operators) == 10
    assert set(result.report.measurements) == {
        "goal",
        "allow_approximate",
        "accumulation",
        "kernel",
        "constant_placement",
    }


def test_a_pack_registers_a_knob_for_its_operator(tmp_path):
    from helia_aot_ops_builtin.pooling.pool import REGISTRATIONS

    base = next(r.operator for r in REGISTRATIONS if r.key == "AVERAGE_POOL_2D")

    class TwoWayPool(base):
        """AVERAGE_POOL_2D with a second (here identical) kernel behind ``kernel: generic``."""

        KNOB_VALUES = {"kernel": ("specialized", "generic")}

    def customize(context):
        register_knob_values(context, "kernel", "AVERAGE_POOL_2D")
        context.aot_operator_classes.register("AVERAGE_POOL_2D", TwoWayPool, overwrite=True)

    context = build_default_registry_context(customizers=[customize], allow_override=True)
    assert context.knobs.get("kernel:AVERAGE_POOL_2D").applies_to == {"AVERAGE_POOL_2D"}
    size = convert(tmp_path / "s", context, optimization={"goal": "size"})
    pool = next(op for op in size.plan.operators if op.op_type == "AVERAGE_POOL_2D")
    assert pool.knobs["kernel"].value == "generic"
    latency = convert(tmp_path / "l", context, optimization={"goal": "latency"})
    pool = next(op for op in latency.plan.operators if op.op_type == "AVERAGE_POOL_2D")
    assert pool.knobs["kernel"].value == "specialized"
    with pytest.raises(KeyError, match="nope"):
        register_knob_values(context, "nope", "AVERAGE_POOL_2D")
