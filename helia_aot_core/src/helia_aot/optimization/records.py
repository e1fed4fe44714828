"""Pydantic readers of the plan and report files a conversion writes (schema_version 1).

The fields and their meanings are those of the heliaAOT 1.1 plan and report files, so these readers
read that tool's files and its readers read ours; the fields only this compiler writes are optional
here and ignored there.

The schema_version rule lets a tool written against one release read files from any other release
with the same schema_version: a field it does not know is ignored, and an enumerated value it does
not know (a new knob, a new hint kind, a new arena role) is kept as the string written instead of
failing the whole file. A file with another schema_version is refused before anything else is read,
with a ValidationError naming both versions, because its fields may mean something else.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, PlainSerializer, PlainValidator, model_validator

from helia_aot.config.enums import AccumulationChoice, OptimizationGoal
from helia_aot.config.enums import KernelChoice as KernelKnob
from helia_aot.optimization.record_constants import (
    MEASUREMENT_SETTINGS,
    PLAN_SCHEMA_VERSION,
    REPORT_SCHEMA_VERSION,
    ArenaRole,
    HintKind,
)

_E = TypeVar("_E", bound=enum.Enum)


def _lenient(enum_type: type[_E]) -> Any:
    """A field type that reads a known value as the enum member and keeps any other string as is."""

    def read(value: Any) -> Any:
        if isinstance(value, enum_type):
            return value
        if not isinstance(value, str):
            raise ValueError(f"expected a string, got {type(value).__name__}")
        try:
            return enum_type(value)
        except ValueError:
            return value

    def write(value: Any) -> str:
        return str(value.value) if isinstance(value, enum.Enum) else str(value)

    return Annotated[
        enum_type | str,
        PlainValidator(read, json_schema_input_type=str),
        PlainSerializer(write, return_type=str),
    ]


# The lenient fields as a type checker sees them (the member, or a string this release does not
# know); at run time they carry the validator and serializer ``_lenient`` attaches.
if TYPE_CHECKING:
    LenientGoal = OptimizationGoal | str
    LenientHintKind = HintKind | str
    LenientArenaRole = ArenaRole | str
else:
    LenientGoal = _lenient(OptimizationGoal)
    LenientHintKind = _lenient(HintKind)
    LenientArenaRole = _lenient(ArenaRole)

# Knob values the readers know, by knob name; a knob not listed keeps its value as a string.
KNOB_VALUE_TYPES: dict[str, type[KernelKnob] | type[AccumulationChoice]] = {
    "kernel": KernelKnob,
    "accumulation": AccumulationChoice,
}


class _Record(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class _Versioned(_Record):
    SCHEMA_VERSION: ClassVar[int]
    WHAT: ClassVar[str]

    @model_validator(mode="before")
    @classmethod
    def _check_version(cls, data: Any) -> Any:
        # Checked before the fields, so a file of another version fails with this one error
        # rather than with whatever its different fields happen to break.
        if isinstance(data, dict) and "schema_version" in data:
            found = data["schema_version"]
            if found != cls.SCHEMA_VERSION or isinstance(found, bool):
                raise ValueError(
                    f"{cls.WHAT} schema_version {found!r} cannot be read: this reader reads "
                    f"schema_version {cls.SCHEMA_VERSION}"
                )
        return data


class Generator(_Record):
    """The compiler release that wrote the plan and the kernel library version its C needs."""

    helia_aot: str
    cmsis_nn_required: str


class ModelIdentity(_Record):
    """The model file converted: its base name, SHA-256 of its bytes, and the subgraph."""

    file: str
    sha256: str | None = None
    subgraph: int = 0


class PlatformIdentity(_Record):
    """The target: canonical name, CPU, capabilities (upper case) and whether it runs FP16."""

    name: str
    cpu: str
    capabilities: list[str] = []
    supports_fp16: bool = False


class RuleRef(_Record):
    """The ``operators[]`` rule that set a knob: its position, ``type`` and ``id``."""

    index: int
    type: str
    id: str | list[str] | None = None


class KnobSource(_Record):
    """Where a knob's requested value came from: an operator rule, the model-wide section, or neither.

    ``kind`` is ``operator``, ``model``, ``default`` (or ``plan``, reserved); a kind this release
    does not know is kept as written.
    """

    kind: str
    rule: RuleRef | None = None


class KnobChoice(_Record):
    """One knob of one operator: the value used, the value asked for, and how one became the other."""

    value: str
    requested: str
    resolved_by: str
    source: KnobSource
    approximate: bool = False


class FixedChoice(_Record):
    """A choice no knob controls (a weight layout, a placement) and what fixed it."""

    value: str
    set_by: str


class PlanKernel(_Record):
    """The kernel entry an operator calls, among the candidates that apply to it.

    ``entry`` is the kernel-library entry point (``hk_conv_s8``, without the module prefix the
    emitter adds). ``family``, ``families`` and ``calls`` are this compiler's additions: the
    kernel-library family of the main call and every family and call by role.
    """

    entry: str
    provider: str | None = None
    local_scratch_bytes: int | None = None
    candidates: list[str] | None = None
    requantization: str | None = None
    family: str | None = None
    families: list[str] = []
    calls: dict[str, str] = {}


# Kept for code written against the earlier plan reader, which named the kernel record so.
KernelChoice = PlanKernel


class DroppedScratch(_Record):
    """A kernel scratch buffer the memory-aware choice gave up, and the goal's reason."""

    buffer: str
    bytes: int
    reason: str = ""


class PlanOperator(_Record):
    """One operator of the plan, in execution order (``index``).

    ``id`` is the plan id (``<subgraph>:<first output tensor name>`` or a fallback ``id_source``
    names), ``node_id`` the AIR node id; ``operators[].id`` rules match either. ``source_indices``,
    ``attributes`` and ``dropped_scratch`` (the kernel buffers the memory-aware choice gave up at
    the goal, and why) are this compiler's additions.
    """

    id: str
    id_source: str = "node_id"
    index: int
    node_id: str = ""
    op_type: str
    knobs: dict[str, KnobChoice] = {}
    fixed: dict[str, FixedChoice] = {}
    kernel: PlanKernel | None = None
    source_indices: list[int] = []
    attributes: dict[str, Any] = {}
    dropped_scratch: list[DroppedScratch] = []


# The name the earlier plan reader gave the operator record.
PlannedOperator = PlanOperator


class PlanOptimization(_Record):
    """The model-wide optimization settings in effect; ``knobs`` is reserved and empty."""

    goal: LenientGoal = OptimizationGoal.BALANCED
    allow_approximate: bool = False
    knobs: dict[str, KnobChoice] = {}


class OptimizationPlan(_Versioned):
    """What the compiler decided for each operator, as the module's ``<prefix>_plan.json`` holds it.

    Read a file with ``OptimizationPlan.model_validate_json(text)``; plans compare by value.
    ``model_name`` is this compiler's addition (the model's name in the generated code).
    """

    SCHEMA_VERSION: ClassVar[int] = PLAN_SCHEMA_VERSION
    WHAT: ClassVar[str] = "plan"

    schema_version: int = PLAN_SCHEMA_VERSION
    generator: Generator
    model: ModelIdentity
    module_prefix: str
    platform: PlatformIdentity
    optimization: PlanOptimization
    operators: list[PlanOperator] = []
    tensors: list[dict[str, Any]] = []
    model_name: str | None = None


class OperatorHint(_Record):
    """One thing the report wants a person to look at in one operator or arena, and why."""

    kind: LenientHintKind
    message: str


class Hint(_Record):
    """A setting worth changing: its current value, the alternative, and the YAML that sets it."""

    setting: str
    message: str
    current: str
    alternative: str
    yaml: str
    operators: list[str] = []
    mac_share: float | None = None
    facts: dict[str, Any] = {}


class KnobApplicability(_Record):
    """For one knob of one operator: the other values, and whether choosing one would change it."""

    alternatives: list[str] = []
    applicable: bool
    reason: str | None = None


class ReportedOperator(_Record):
    """The figures of one operator.

    ``id``, ``macs``, ``entry`` and ``knobs`` are the shared fields; ``index``, ``op_type``,
    ``parameters``, ``kernel_calls`` (kernel entry by role), ``hints`` and ``memory_technique``
    (how ``goal: size`` brought the operator's memory under the layer-by-layer bound: ``in_place``,
    the output written over the input through a ring of ``ring_bytes``; ``patch``, run band by
    band in the patch stage whose first operator is ``patch_stage``) are this compiler's.
    """

    id: str
    macs: int = 0
    entry: str | None = None
    knobs: dict[str, KnobApplicability] = {}
    index: int | None = None
    op_type: str | None = None
    parameters: int | None = None
    kernel_calls: dict[str, str] | None = None
    hints: list[OperatorHint] = []
    memory_technique: str | None = None
    ring_bytes: int = 0
    patch_stage: str | None = None


# The product's name for the report's operator record.
ReportOperator = ReportedOperator


class ModuleKernelCall(_Record):
    """One kernel entry the module calls and the plan ids of the operators calling it."""

    symbol: str
    operator_ids: list[str] = []


class ModuleKernelCalls(_Record):
    """Every kernel call the module makes; operators whose calls were not recorded are listed apart."""

    calls: list[ModuleKernelCall] = []
    unrecorded_operator_ids: list[str] = []


class ConstantPlacement(_Record):
    """Where the constants live: bytes outside and inside TCM, and the DTCM the module leaves free."""

    constant_bytes_outside_tcm: dict[str, int] = {}
    constant_bytes_in_tcm: int = 0
    dtcm_budget_bytes: int = 0
    dtcm_free_bytes: int = 0
    id_specific_constant_rules: int = 0
    cold_source: str | None = None


class Fp16Overflow(_Record):
    """A packed FP16 convolution fed from a model input, with the input magnitude that can overflow."""

    operator_id: str
    entry: str
    input: str
    path: list[str] = []
    threshold: float
    channel: int
    block: int
    weight_sum: float
    bias: float


class FoldedVariable(_Record):
    """A resource variable folded into constants by FOLD_INVARIANT_VARIABLES."""

    variable: str
    constants: list[str] = []
    nbytes: int
    assignment: str
    reads: int
    assigns: int


class ReportedArena(_Record):
    """One arena region: its bytes against the memory's capacity and the planner's lower bound."""

    region: int
    role: LenientArenaRole
    memory: str
    used: int
    total_size: int
    alignment: int
    capacity: int | None = None
    peak_live: int | None = None
    tensor_peak_live: int | None = None
    """Scratch arenas: the tensors' own peak, without kernel scratch buffers (the bound the
    memory-aware kernel choice keeps ``used`` at)."""
    fragmentation: float | None = None


class PatchStageRecord(_Record):
    """A stage run in patches (``goal: size``): its operators (plan ids, in order) compute the
    last one's output ``rows_per_band`` rows at a time in ``bands`` bands, in ``mode``
    ``recompute`` (each band computes its halo again) or ``stream`` (each band keeps the rows
    the next one reads again, nothing computed twice); ``halo_rows`` are the
    output rows each operator computes more than once and ``extra_macs`` their cost; the
    intermediates live in a patch buffer of ``buffer_bytes``; ``in_place`` says the stage output
    is written over the stage input; ``bound`` is the bytes live while the stage runs."""

    operators: list[str]
    rows_per_band: int
    bands: int
    mode: str = "recompute"
    halo_rows: list[int] = []
    extra_macs: int = 0
    buffer_bytes: int = 0
    in_place: bool = False
    bound: int = 0


class OperatorOrder(_Record):
    """The order the module runs its operators in (``goal: size`` may choose a lower-peak one).

    ``layer_bound`` is the tensors' peak in the model's layer-by-layer order, ``schedule_bound``
    in ``order`` (plan ids); ``method`` is ``stored``, ``exact`` or ``greedy``. ``patches``
    lists the stages run in patches, ``extra_macs`` what their recomputed halos cost in all.
    """

    method: str
    reordered: bool = False
    layer_bound: int
    schedule_bound: int
    order: list[str] = []
    patches: list[PatchStageRecord] = []
    extra_macs: int = 0


class PlacedRegion(_Record):
    """One region of the report's ``placement``: its ``<prefix>_arena_region_t`` enumerator, role
    and memory, the ``tensors`` placed there and its ``bytes``, the bytes one inference reads or
    writes there (``bytes_accessed``, the naive count of :mod:`helia_aot.pipeline.access_cost`)
    and the modeled ``wait_cycles`` those accesses pay in that memory."""

    region: str
    role: str
    memory: str
    tensors: int = 0
    bytes: int = 0
    bytes_accessed: int = 0
    wait_cycles: int = 0


class PlacementRecord(_Record):
    """The report's ``placement``: the ``rule`` placement followed, what went to each region, the
    constants' modeled wait cycles against the simplest placement's (``cycles_saved``), and the
    scratch tensors' against the simplest layout's (``scratch_wait_cycles``,
    ``simplest_scratch_wait_cycles``: each memory filled in turn, its largest tensors moving on;
    null, as ``scratch_cycles_saved``, when that layout does not fit; ``simplest_scratch_bytes``
    its regions' bytes in all). ``constants_yield``: the
    scratch spilled and the constants read less per byte than it left the first memory to it.
    ``scratch_over_bound``: at goal latency, a scratch layout kept above 1.02x of the fewest
    bytes (the ``bytes`` above that bound, the ``wait_cycles_saved`` against the best layout within it and
    the ``cycles_per_byte_asked``), else null."""

    rule: str
    regions: list[PlacedRegion] = []
    constant_wait_cycles: int = 0
    simplest_constant_wait_cycles: int = 0
    cycles_saved: int = 0
    scratch_wait_cycles: int = 0
    simplest_scratch_wait_cycles: int | None = None
    scratch_cycles_saved: int | None = None
    simplest_scratch_bytes: int | None = None
    constants_yield: bool = False
    scratch_over_bound: dict[str, int] | None = None


class OptimizationReport(_Versioned):
    """The figures and hints behind the plan, as the module's ``<prefix>_report.json`` holds them.

    ``measurements`` maps each setting to the measurement records (plain objects) quoted for this
    target and CPU. ``arenas``, ``arena_hints``, ``model_name``, ``platform_name``,
    ``total_parameters`` and ``placement`` are this compiler's additions.
    """

    SCHEMA_VERSION: ClassVar[int] = REPORT_SCHEMA_VERSION
    WHAT: ClassVar[str] = "report"

    schema_version: int = REPORT_SCHEMA_VERSION
    plan_file: str
    kernel_calls: ModuleKernelCalls | None = None
    total_macs: int = 0
    operators: list[ReportedOperator] = []
    measurements: dict[str, list[dict[str, Any]]] = {}
    constant_placement: ConstantPlacement | None = None
    hints: list[Hint] = []
    fp16_overflow: list[Fp16Overflow] = []
    folded_variables: list[FoldedVariable] = []
    arenas: list[ReportedArena] = []
    arena_hints: list[OperatorHint] = []
    schedule: OperatorOrder | None = None
    model_name: str | None = None
    platform_name: str | None = None
    total_parameters: int = 0
    placement: PlacementRecord | None = None


__all__ = [
    "KNOB_VALUE_TYPES",
    "MEASUREMENT_SETTINGS",
    "PLAN_SCHEMA_VERSION",
    "REPORT_SCHEMA_VERSION",
    "ArenaRole",
    "ConstantPlacement",
    "FixedChoice",
    "FoldedVariable",
    "OperatorOrder",
    "PatchStageRecord",
    "PlacedRegion",
    "PlacementRecord",
    "Fp16Overflow",
    "Generator",
    "Hint",
    "HintKind",
    "KernelChoice",
    "KnobApplicability",
    "KnobChoice",
    "KnobSource",
    "ModelIdentity",
    "ModuleKernelCall",
    "ModuleKernelCalls",
    "OperatorHint",
    "OptimizationPlan",
    "OptimizationReport",
    "PlanKernel",
    "PlanOperator",
    "PlanOptimization",
    "PlannedOperator",
    "PlatformIdentity",
    "ReportOperator",
    "ReportedArena",
    "ReportedOperator",
    "RuleRef",
]
