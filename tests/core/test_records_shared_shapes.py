"""The plan, report and residency files and ``platforms --json`` in the heliaAOT 1.1 shapes.

The shape models below restate, field by field, what the heliaAOT 1.1 readers require: names,
types, required fields and enumerated values. Fields they do not know are allowed, because those
readers ignore them, which is how our additional fields stay readable there. Two directions are
checked: hand-written files in those shapes (tests/data/shared_shapes/) read through our readers,
and the files our conversion writes validate against the shapes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.cli import app
from helia_aot.optimization import OptimizationPlan, OptimizationReport
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr
from typer.testing import CliRunner

DATA = Path(__file__).resolve().parents[1] / "data"
SHAPES = DATA / "shared_shapes"
MODEL = DATA / "models" / "mlperf_kws_dscnn_int8.tflite"
Number = StrictInt | StrictFloat
Hex16 = Annotated[StrictStr, Field(pattern=r"^[0-9a-f]{16}$")]


class Shape(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)


# -- the plan ----------------------------------------------------------------------------------------


class RuleRefShape(Shape):
    index: StrictInt
    type: StrictStr
    id: StrictStr | list[StrictStr] | None = None


class KnobSourceShape(Shape):
    kind: Literal["operator", "model", "default", "plan"]
    rule: RuleRefShape | None = None


class KnobChoiceShape(Shape):
    value: StrictStr
    requested: StrictStr
    resolved_by: Literal["explicit", "auto_table", "auto_heuristic", "plan"]
    source: KnobSourceShape
    approximate: StrictBool


class AccumulationChoiceShape(KnobChoiceShape):
    value: Literal["precise", "fast"]


class KernelChoiceShape(KnobChoiceShape):
    value: Literal["specialized", "generic"]


class OperatorKnobsShape(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    accumulation: AccumulationChoiceShape | None = None
    kernel: KernelChoiceShape | None = None


class FixedChoiceShape(Shape):
    value: StrictStr
    set_by: Literal["attribute", "default", "heuristic", "knob", "placement", "plan"]


class PlanKernelShape(Shape):
    entry: StrictStr
    provider: StrictStr | None = None
    local_scratch_bytes: Annotated[StrictInt, Field(ge=0)] | None = None
    candidates: list[StrictStr] | None = None
    requantization: Literal["rshift_only", "general"] | None = None


class PlanOperatorShape(Shape):
    id: StrictStr
    id_source: Literal["tensor_name", "tensor_name+ordinal", "index", "node_id"]
    index: StrictInt
    node_id: StrictStr
    op_type: StrictStr
    knobs: OperatorKnobsShape = OperatorKnobsShape()
    fixed: dict[StrictStr, FixedChoiceShape] = {}
    kernel: PlanKernelShape | None = None


class PlanShape(Shape):
    schema_version: Literal[1]
    generator: dict[Literal["helia_aot", "cmsis_nn_required"], StrictStr] = Field(min_length=2)
    model: ModelShape
    module_prefix: StrictStr
    platform: PlatformIdentityShape
    optimization: PlanOptimizationShape
    operators: list[PlanOperatorShape]
    tensors: list[dict[str, object]] = Field(default=[], max_length=0)


class ModelShape(Shape):
    file: StrictStr
    sha256: StrictStr | None
    subgraph: StrictInt


class PlatformIdentityShape(Shape):
    name: StrictStr
    cpu: StrictStr
    capabilities: list[StrictStr]
    supports_fp16: StrictBool


class PlanOptimizationShape(Shape):
    goal: Literal["latency", "balanced", "size", "accuracy"]
    allow_approximate: StrictBool
    knobs: dict[str, KnobChoiceShape] = Field(default={}, max_length=0)


# -- the report --------------------------------------------------------------------------------------


class KnobApplicabilityShape(Shape):
    alternatives: list[StrictStr]
    applicable: StrictBool
    reason: StrictStr | None = None


class ReportOperatorShape(Shape):
    id: StrictStr
    macs: StrictInt
    entry: StrictStr | None = None
    knobs: dict[Literal["accumulation", "kernel"], KnobApplicabilityShape] = {}


class KernelCallShape(Shape):
    symbol: StrictStr
    operator_ids: list[StrictStr]


class KernelCallsShape(Shape):
    calls: list[KernelCallShape]
    unrecorded_operator_ids: list[StrictStr]


class MeasurementShape(Shape):
    setting: StrictStr
    value: StrictStr
    target: StrictStr
    cpu: StrictStr
    cmsis_nn: StrictStr
    helia_aot: StrictStr
    subject: StrictStr
    gain: StrictStr
    accuracy: StrictStr
    conditions: StrictStr
    source: StrictStr
    generated_by: StrictStr


class MeasurementsShape(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    goal: list[MeasurementShape]
    allow_approximate: list[MeasurementShape]
    accumulation: list[MeasurementShape]
    kernel: list[MeasurementShape]
    constant_placement: list[MeasurementShape]


class ConstantPlacementShape(Shape):
    constant_bytes_outside_tcm: dict[StrictStr, StrictInt]
    constant_bytes_in_tcm: StrictInt
    dtcm_budget_bytes: StrictInt
    dtcm_free_bytes: StrictInt
    id_specific_constant_rules: StrictInt
    cold_source: StrictStr | None


class HintShape(Shape):
    setting: StrictStr
    message: StrictStr
    current: StrictStr
    alternative: StrictStr
    yaml: StrictStr
    operators: list[StrictStr] = []
    mac_share: Number | None = None
    facts: dict[str, object] = {}


class Fp16OverflowShape(Shape):
    operator_id: StrictStr
    entry: StrictStr
    input: StrictStr
    path: list[StrictStr]
    threshold: Number
    channel: Annotated[StrictInt, Field(ge=0)]
    block: Annotated[StrictInt, Field(ge=0)]
    weight_sum: Number
    bias: Number


class FoldedVariableShape(Shape):
    variable: StrictStr
    constants: list[StrictStr]
    nbytes: Annotated[StrictInt, Field(ge=0)]
    assignment: Literal["none", "clip"]
    reads: Annotated[StrictInt, Field(ge=1)]
    assigns: Annotated[StrictInt, Field(ge=0)]


class ReportShape(Shape):
    schema_version: Literal[1]
    plan_file: StrictStr
    kernel_calls: KernelCallsShape | None = None
    total_macs: StrictInt
    operators: list[ReportOperatorShape]
    measurements: MeasurementsShape
    constant_placement: ConstantPlacementShape | None
    hints: list[HintShape]
    fp16_overflow: list[Fp16OverflowShape] = []
    folded_variables: list[FoldedVariableShape] = []


# -- the residency file ------------------------------------------------------------------------------


class StoragePlaceShape(Shape):
    data_offset_bytes: StrictInt
    memory: StrictStr
    owner: Literal["generated", "application"]
    size_bytes: StrictInt
    symbol: StrictStr | None


class SidecarShape(Shape):
    filename: StrictStr
    size_bytes: StrictInt


class StorageShape(Shape):
    enum_name: StrictStr
    runtime: StoragePlaceShape
    sidecar: SidecarShape | None
    source: StoragePlaceShape | None


class WorkArenaShape(Shape):
    alignment: StrictInt
    fragmentation: StrictInt
    memory: StrictStr
    peak_live: StrictInt
    region_id: StrictInt
    storage: StorageShape
    total_size: StrictInt
    used: StrictInt


class ConstantArenaShape(Shape):
    alignment: StrictInt
    kind: Literal["cold", "staged"]
    memory: StrictStr
    region_id: StrictInt
    source_memory: StrictStr
    storage: StorageShape
    tensor_count: StrictInt
    total_size: StrictInt
    used: StrictInt


class ArenasShape(Shape):
    scratch: list[WorkArenaShape]
    persistent: list[WorkArenaShape]
    constant: list[ConstantArenaShape]


class ResidencyTensorShape(Shape):
    id: StrictStr
    memory: StrictStr
    offset: StrictInt
    role: Literal["scratch", "constant", "persistent"]
    size: StrictInt
    source_memory: StrictStr


class ResidencyShape(Shape):
    arenas: ArenasShape
    compiler_version: StrictStr
    module_prefix: StrictStr
    plan_hash: Hex16
    schema_version: Literal[5]
    tensor_layout_hash: Hex16
    tensors: list[ResidencyTensorShape]


# -- platforms --json --------------------------------------------------------------------------------


class MemoryBudgetShape(Shape):
    name: StrictStr
    bytes: StrictInt


class PlatformShape(Shape):
    name: StrictStr
    cpu: StrictStr
    speeds_mhz: list[StrictInt]
    capabilities: list[StrictStr]
    memories: list[MemoryBudgetShape]
    preferred_memory_order: list[StrictStr]
    min_alignment: StrictInt
    supports_fp16: StrictBool | None
    fp16_error: StrictStr | None = None


class PlatformsListShape(Shape):
    schema_version: Literal[1]
    platforms: list[PlatformShape]


class PlatformShowShape(Shape):
    schema_version: Literal[1]
    platform: PlatformShape


PlanShape.model_rebuild()


def shared(name: str) -> dict:
    return json.loads((SHAPES / name).read_text(encoding="utf-8"))


# -- the hand-written files in the shared shapes ----------------------------------------------------


@pytest.mark.parametrize(
    "name, shape",
    [
        ("plan.json", PlanShape),
        ("report.json", ReportShape),
        ("residency.json", ResidencyShape),
        ("platforms_list.json", PlatformsListShape),
    ],
)
def test_fixtures_are_in_the_shared_shapes(name, shape):
    # The shape checks are what the other tests rely on; each fixture exercises every field.
    shape.model_validate(shared(name))


def test_our_plan_reader_reads_the_shared_plan():
    plan = OptimizationPlan.model_validate(shared("plan.json"))
    assert plan.generator.cmsis_nn_required == "7.47.0" and plan.model.file == "tiny_int8.tflite"
    assert plan.module_prefix == "tiny" and plan.platform.supports_fp16 is True
    assert plan.optimization.goal == "latency" and plan.optimization.allow_approximate is True
    conv, reshape, softmax = plan.operators
    assert (conv.id, conv.id_source, conv.node_id) == ("0:conv_out", "tensor_name", "0")
    accumulation = conv.knobs["accumulation"]
    assert (accumulation.value, accumulation.requested, accumulation.resolved_by) == (
        "fast",
        "fast",
        "explicit",
    )
    assert accumulation.source.kind == "operator" and accumulation.source.rule.id == ["0:conv_out", "2"]
    assert accumulation.approximate is True and conv.knobs["kernel"].source.rule is None
    assert conv.fixed["weight_layout"].set_by == "heuristic"
    assert conv.kernel.entry == "conv_entry_a" and conv.kernel.candidates == ["conv_entry_a", "conv_entry_b"]
    assert conv.kernel.local_scratch_bytes == 64 and conv.kernel.requantization == "general"
    assert reshape.id_source == "tensor_name+ordinal" and reshape.kernel is None
    assert softmax.id_source == "index" and softmax.knobs == {} and softmax.fixed == {}


def test_our_report_reader_reads_the_shared_report():
    report = OptimizationReport.model_validate(shared("report.json"))
    assert report.plan_file == "tiny_plan.json" and report.total_macs == 1200
    assert report.kernel_calls.calls[0].operator_ids == ["0:conv_out"]
    assert report.kernel_calls.unrecorded_operator_ids == ["0:SOFTMAX@2"]
    conv = report.operators[0]
    assert conv.entry == "conv_entry_a" and conv.knobs["kernel"].alternatives == ["generic"]
    assert report.operators[2].entry is None and report.operators[2].knobs == {}
    assert report.measurements["constant_placement"][0]["value"] == "DTCM"
    assert report.constant_placement.cold_source == "MRAM"
    assert report.constant_placement.constant_bytes_outside_tcm == {"SRAM": 4096}
    hint = report.hints[0]
    assert (hint.setting, hint.current, hint.alternative, hint.mac_share) == (
        "constant_placement",
        "SRAM",
        "DTCM",
        1.0,
    )
    assert report.fp16_overflow[0].threshold == 12.5 and report.folded_variables[0].assignment == "none"


def test_our_readers_keep_nulls_where_the_shared_shape_allows_them():
    record = shared("report.json") | {"kernel_calls": None, "constant_placement": None}
    report = OptimizationReport.model_validate(record)
    assert report.kernel_calls is None and report.constant_placement is None


# -- our files in the shared shapes ------------------------------------------------------------------


def convert(out: Path, **extra) -> Path:
    config = {
        "model": {"path": str(MODEL)},
        "module": {"path": str(out), "name": "kws", "prefix": "kws"},
        "platform": {"name": "apollo510_evb"},
        "memory": {"dump_residency_json": True},
        **extra,
    }
    return AotConverter(ConvertArgs.model_validate(config)).convert().output


@pytest.fixture(scope="module")
def module(tmp_path_factory) -> Path:
    return convert(
        tmp_path_factory.mktemp("shapes"),
        operators=[{"type": "CONV_2D", "optimization": {"kernel": "generic"}}],
    )


def written(module: Path, what: str) -> dict:
    return json.loads((module / f"kws_{what}.json").read_text(encoding="utf-8"))


def test_our_plan_is_in_the_shared_shape(module):
    plan = PlanShape.model_validate(written(module, "plan"))
    assert plan.module_prefix == "kws" and plan.model.file == MODEL.name and len(plan.model.sha256) == 64
    assert plan.platform.capabilities == sorted(plan.platform.capabilities)
    conv = plan.operators[0]
    assert conv.knobs.kernel.requested == "generic" and conv.knobs.kernel.source.kind == "operator"
    assert conv.knobs.kernel.source.rule.index == 0 and conv.knobs.accumulation.source.kind == "default"
    assert [op.node_id for op in plan.operators] == [str(i) for i in range(len(plan.operators))]
    assert len({op.id for op in plan.operators}) == len(plan.operators)


def test_our_report_is_in_the_shared_shape(module):
    report = ReportShape.model_validate(written(module, "report"))
    plan = written(module, "plan")
    assert report.plan_file == "kws_plan.json"
    assert [op.id for op in report.operators] == [op["id"] for op in plan["operators"]]
    assert report.total_macs == sum(op.macs for op in report.operators)
    called = {i for call in report.kernel_calls.calls for i in call.operator_ids}
    assert called | set(report.kernel_calls.unrecorded_operator_ids) == {op.id for op in report.operators}
    # The DTCM budget is the target's; the module's arenas there leave the rest free.
    assert report.constant_placement.dtcm_budget_bytes == 507904
    assert 0 < report.constant_placement.dtcm_free_bytes < 507904


def test_our_residency_is_in_the_shared_shape(module):
    residency = ResidencyShape.model_validate(written(module, "residency"))
    assert residency.module_prefix == "kws" and residency.arenas.scratch
    for arena in residency.arenas.scratch:
        assert arena.fragmentation == arena.used - arena.peak_live and arena.memory == arena.memory.lower()
        assert arena.storage.enum_name == f"kws_arena_{arena.memory}"
        assert arena.storage.runtime.owner == "generated" and arena.storage.runtime.symbol
    for arena in residency.arenas.constant:
        assert arena.kind == "cold" and arena.tensor_count == sum(
            t.region_id == arena.region_id for t in written_tensors(residency)
        )


def written_tensors(residency: ResidencyShape) -> list:
    return [t for t in residency.tensors if t.role == "constant"]


def test_external_arenas_are_the_applications_in_the_residency(tmp_path):
    module = convert(tmp_path, memory={"dump_residency_json": True, "allocate_arenas": False})
    residency = ResidencyShape.model_validate(written(module, "residency"))
    for arena in residency.arenas.scratch:
        assert arena.storage.runtime.owner == "application" and arena.storage.runtime.symbol is None


def test_our_readers_read_our_files(module):
    plan = OptimizationPlan.model_validate(written(module, "plan"))
    report = OptimizationReport.model_validate(written(module, "report"))
    assert plan.model_name == "model" and report.platform_name == "apollo510_evb"  # the default name


# -- platforms --json --------------------------------------------------------------------------------

runner = CliRunner()


def test_platforms_list_json_is_in_the_shared_shape():
    result = runner.invoke(app, ["platforms", "list", "--json"])
    assert result.exit_code == 0, result.output
    assert result.stdout.count("\n") == 1  # one line, as scripts expect
    listed = PlatformsListShape.model_validate(json.loads(result.stdout))
    board = {p.name: p for p in listed.platforms}["apollo510_evb"]
    assert board.cpu == "cortex-m55" and board.supports_fp16 is True and board.min_alignment == 16
    assert board.capabilities == ["MCU", "DSP", "MVE", "FP16"]
    assert {m.name: m.bytes for m in board.memories}["DTCM"] == 507904
    assert board.preferred_memory_order[0] == "DTCM"


def test_platforms_show_json_is_in_the_shared_shape():
    result = runner.invoke(app, ["platforms", "show", "apollo510_evb", "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    PlatformShowShape.model_validate(shown)
    listed = json.loads(runner.invoke(app, ["platforms", "list", "--json"]).stdout)
    assert shown["platform"] == next(p for p in listed["platforms"] if p["name"] == "apollo510_evb")
