"""Pydantic readers of the plan and report files a conversion writes (schema_version 1).

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

PLAN_SCHEMA_VERSION = 1
REPORT_SCHEMA_VERSION = 1

_E = TypeVar("_E", bound=enum.Enum)


class ArenaRole(str, enum.Enum):
    """What an arena holds: activations, state kept across runs, or read-only constants."""

    SCRATCH = "scratch"
    PERSISTENT = "persistent"
    CONSTANT = "constant"

    def __str__(self) -> str:
        return self.value


class HintKind(str, enum.Enum):
    """Why the report points at an operator or an arena (``Hint.kind``)."""

    KNOB_NOT_HONOURED = "knob_not_honoured"
    """A knob asked for a value no kernel of the operator offers; the plan records what was used."""
    CODE_PLACEMENT_IGNORED = "code_placement_ignored"
    """``code_placement: ITCM`` was asked for on a platform without ITCM."""
    SCRATCH_PEAK = "scratch_peak"
    """The operator at which the most scratch bytes are live: the place to shrink the arena."""
    FRAGMENTATION = "fragmentation"
    """The scratch arena is larger than the bytes live at its peak."""

    def __str__(self) -> str:
        return self.value


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


class KernelChoice(_Record):
    """The kernel an operator's C calls.

    ``family`` is the kernel-library family of the main call (``conv``), ``entry`` its entry point
    (``hk_conv_s8``, without the module prefix the emitter adds); ``families`` and ``calls`` list
    every family and every call by role.
    """

    family: str | None = None
    entry: str | None = None
    families: list[str] = []
    calls: dict[str, str] = {}


class PlannedOperator(_Record):
    """One operator of the plan, in execution order (``index`` is its layer index)."""

    id: str
    index: int
    op_type: str
    source_indices: list[int] = []
    kernel: KernelChoice | None = None
    knobs: dict[str, str] = {}
    attributes: dict[str, Any] = {}

    @model_validator(mode="after")
    def _knob_members(self) -> PlannedOperator:
        # Each knob's value is read against its own enum; a knob or value this release does not
        # know stays the string written.
        for name, value in list(self.knobs.items()):
            enum_type = KNOB_VALUE_TYPES.get(name)
            if enum_type is not None:
                try:
                    self.knobs[name] = enum_type(value)
                except ValueError:
                    pass
        return self


class OptimizationPlan(_Versioned):
    """What the compiler decided for each operator, as the module's ``<prefix>_plan.json`` holds it.

    Read a file with ``OptimizationPlan.model_validate_json(text)``; plans compare by value.
    """

    SCHEMA_VERSION: ClassVar[int] = PLAN_SCHEMA_VERSION
    WHAT: ClassVar[str] = "plan"

    schema_version: int = PLAN_SCHEMA_VERSION
    model: str = ""
    platform: str = ""
    goal: LenientGoal = OptimizationGoal.BALANCED
    operators: list[PlannedOperator] = []


class Hint(_Record):
    """One thing the report wants a person to look at, and why."""

    kind: LenientHintKind
    message: str


class ReportedOperator(_Record):
    """The figures of one operator: ``macs`` and ``parameters`` as the views define them."""

    id: str
    index: int
    op_type: str
    macs: int | None = None
    parameters: int | None = None
    kernel_calls: dict[str, str] | None = None
    hints: list[Hint] = []


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
    fragmentation: float | None = None


class OptimizationReport(_Versioned):
    """The figures and hints behind the plan, as the module's ``<prefix>_report.json`` holds them."""

    SCHEMA_VERSION: ClassVar[int] = REPORT_SCHEMA_VERSION
    WHAT: ClassVar[str] = "report"

    schema_version: int = REPORT_SCHEMA_VERSION
    model: str = ""
    platform: str = ""
    operators: list[ReportedOperator] = []
    arenas: list[ReportedArena] = []
    hints: list[Hint] = []
    total_macs: int = 0
    total_parameters: int = 0


__all__ = [
    "KNOB_VALUE_TYPES",
    "PLAN_SCHEMA_VERSION",
    "REPORT_SCHEMA_VERSION",
    "ArenaRole",
    "Hint",
    "HintKind",
    "KernelChoice",
    "OptimizationPlan",
    "OptimizationReport",
    "PlannedOperator",
    "ReportedArena",
    "ReportedOperator",
]
