"""The rule-shaped configuration: memory placement, operator rules and transforms.

These are lists a user writes by hand and the converter matches against the model, so each entry is
a strict section of its own: a misspelled ``memroy`` inside the third tensor rule is reported at
``memory.tensors[2].attributes`` with the nearest valid key, not silently ignored. What the
configuration cannot know (which planner options a planner takes, which attributes an operator
declares, which transforms exist) is checked by the converter against its registry context.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, Field, field_validator, model_validator

from helia_aot.air.keys import canonical_op_key
from helia_aot.config.base import ConfigSection
from helia_aot.config.enums import AccumulationChoice, KernelChoice, TensorKindSelector
from helia_aot.config.sections import MemoryName, byte_count, canonical_memory


def _extension_name(value: str) -> str:
    # The name is checked against the conversion's registry context (where plugins add names), so
    # the configuration only makes it a clean word.
    word = value.strip()
    if not word:
        raise ValueError("the name must not be empty")
    return word


ExtensionName = Annotated[str, AfterValidator(_extension_name)]
"""A value naming a registered extension (``memory.planner``, ``module.type``): checked by the
converter against its registry context, with the registered names in the error."""


def _rule_id(value: Any) -> Any:
    # YAML reads `id: 3` as an int; ids are strings everywhere else.
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value


class MemoryConstraint(ConfigSection):
    """A cap on what the module may use of one memory (``memory.constraints[]``)."""

    SECTION: ClassVar[str] = "memory.constraints[]"

    memory: MemoryName = Field(description="The memory the cap applies to (dtcm, sram, mram, ...).")
    max_bytes: int = Field(description="Most bytes of that memory the module may use (or 256KiB, 1MiB).")

    @field_validator("memory", mode="before")
    @classmethod
    def _memory(cls, value: Any) -> Any:
        return canonical_memory(value)

    @field_validator("max_bytes", mode="before")
    @classmethod
    def _bytes(cls, value: Any) -> Any:
        size = byte_count(value, "max_bytes")
        if size < 0:
            raise ValueError("max_bytes must not be negative")
        return size


class TensorAttributes(ConfigSection):
    """Where the tensors a rule reaches are placed (``memory.tensors[].attributes``)."""

    SECTION: ClassVar[str] = "memory.tensors[].attributes"

    memory: MemoryName | None = Field(None, description="Memory the tensors live in.")
    constant_destination_memory: MemoryName | None = Field(
        None, description="Constants only: memory they are copied into at init, staged from `memory`."
    )
    alignment: int | None = Field(None, description="Alignment of each tensor in bytes (a power of two).")

    @field_validator("memory", "constant_destination_memory", mode="before")
    @classmethod
    def _memory(cls, value: Any) -> Any:
        return None if value is None else canonical_memory(value)

    @field_validator("alignment")
    @classmethod
    def _alignment(cls, value: int | None) -> int | None:
        if value is not None and (value <= 0 or value & (value - 1)):
            raise ValueError(f"alignment {value} is not a positive power of two")
        return value


class TensorRule(ConfigSection):
    """One placement rule (``memory.tensors[]``); later rules override earlier ones."""

    SECTION: ClassVar[str] = "memory.tensors[]"

    type: TensorKindSelector = Field(
        TensorKindSelector.ANY, description="Tensors the rule reaches: constant, persistent, scratch or *."
    )
    id: str | None = Field(None, description="Reach only the tensor with this id.")
    attributes: TensorAttributes = Field(default_factory=TensorAttributes, description="What the rule sets.")

    @field_validator("id", mode="before")
    @classmethod
    def _id(cls, value: Any) -> Any:
        return _rule_id(value)

    @model_validator(mode="after")
    def _constant_only(self) -> TensorRule:
        if self.attributes.constant_destination_memory is not None and self.type in (
            TensorKindSelector.PERSISTENT,
            TensorKindSelector.SCRATCH,
        ):
            raise ValueError(
                f"constant_destination_memory applies to constant tensors, not {self.type.value} ones"
            )
        return self


class MemoryConfig(ConfigSection):
    """Arena planning and tensor placement (``memory``)."""

    SECTION: ClassVar[str] = "memory"

    planner: ExtensionName = Field(
        "hill_climb",
        description="Arena planner registered in memory_planners: hill_climb, greedy, greedy_by_size "
        "or one a plugin adds.",
    )
    planner_options: dict[str, Any] = Field(
        default_factory=dict, description="Options of the chosen planner (checked by the converter)."
    )
    allocate_arenas: bool = Field(
        True, description="Emit the arena buffers; false leaves them to the application (bind_arena)."
    )
    dump_residency_json: bool = Field(
        False, description="Write <prefix>_residency.json, the memory layout report."
    )
    constraints: list[MemoryConstraint] = Field(
        default_factory=list, description="Caps on memory use: a list of {memory, max_bytes}."
    )
    tensors: list[TensorRule] = Field(
        default_factory=list, description="Placement rules: a list of {type, id, attributes}."
    )

    @field_validator("constraints")
    @classmethod
    def _one_cap_per_memory(cls, value: list[MemoryConstraint]) -> list[MemoryConstraint]:
        seen: set[str] = set()
        for constraint in value:
            if constraint.memory in seen:
                raise ValueError(f"memory {constraint.memory} is constrained twice")
            seen.add(constraint.memory)
        return value


class OperatorOptimization(ConfigSection):
    """Per-operator overrides of the global optimization choices (``operators[].optimization``)."""

    SECTION: ClassVar[str] = "operators[].optimization"

    kernel: KernelChoice | None = Field(None, description="auto, specialized or generic for these operators.")
    accumulation: AccumulationChoice | None = Field(
        None, description="auto, precise or fast for these operators."
    )


class OperatorRule(ConfigSection):
    """Attributes and choices for the operators a rule reaches (``operators[]``)."""

    SECTION: ClassVar[str] = "operators[]"

    type: str = Field("*", description="Operator type the rule reaches (CONV_2D, a custom key) or * for all.")
    id: str | None = Field(None, description="Reach only the operator with this id.")
    attributes: dict[str, Any] = Field(
        default_factory=dict,
        description="Attributes for the operators (checked against each operator's ATTRIBUTES).",
    )
    optimization: OperatorOptimization = Field(
        default_factory=OperatorOptimization, description="Kernel and accumulation overrides."
    )

    @field_validator("id", mode="before")
    @classmethod
    def _id(cls, value: Any) -> Any:
        return _rule_id(value)

    @field_validator("type")
    @classmethod
    def _canonical_type(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("operator type must not be empty (use '*' for every operator)")
        return value if value == "*" else canonical_op_key(value)


class TransformConfig(ConfigSection):
    """One graph transform to run or switch off (``transforms[]``)."""

    SECTION: ClassVar[str] = "transforms[]"

    name: str = Field(description="The transform's registered name.")
    enabled: bool = Field(True, description="Whether the transform runs.")
    options: dict[str, Any] = Field(
        default_factory=dict, description="The transform's options (checked by the converter)."
    )


__all__ = [
    "MemoryConfig",
    "MemoryConstraint",
    "OperatorOptimization",
    "OperatorRule",
    "ExtensionName",
    "TensorAttributes",
    "TensorRule",
    "TransformConfig",
]
