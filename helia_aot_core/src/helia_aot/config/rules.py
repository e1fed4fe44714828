"""The rule-shaped configuration: memory placement, operator rules and transforms.

These are lists a user writes by hand and the converter matches against the model, so each entry is
a strict section of its own: a misspelled ``memroy`` inside the third tensor rule is reported at
``memory.tensors[2].attributes`` with the nearest valid key, not silently ignored. What the
configuration cannot know (which planner options a planner takes, which attributes an operator
declares, which transforms exist) is checked by the converter against its registry context.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, Field, field_validator, model_validator

from helia_aot.air.keys import canonical_op_key
from helia_aot.config.base import ConfigSection, empty_list, reraise_as_value_error
from helia_aot.config.enums import AccumulationChoice, KernelChoice, TensorKindSelector
from helia_aot.config.sections import MemoryName, byte_count, canonical_memory, check_alignment

REMOVED_MEMORY_KEYS: dict[str, str] = {
    "auto_hydrate_constants": "constants are copied at init when a memory.tensors rule sets "
    "constant_destination_memory; remove the key",
    "persistent_storage": "place persistent tensors with a memory.tensors rule of type persistent; "
    "remove the key",
    "constant_residency": "place constants with a memory.tensors rule of type constant "
    "(attributes.memory, constant_destination_memory); remove the key",
}
"""Keys older product versions took under ``memory``, with what replaces each."""


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
    # YAML reads `id: 3` as an int; ids are strings everywhere else. A list names several ids.
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, (list, tuple)):
        ids = [_rule_id(item) for item in value]
        if not ids:
            raise ValueError("an id list must name at least one id")
        return ids
    return value


RuleId = str | list[str] | None
"""What a rule's ``id`` holds: one id, a list of ids (the rule reaches each), or nothing (all)."""


def rule_ids(value: RuleId) -> list[str]:
    """The ids a rule's ``id`` names, as a list (empty when the rule names none)."""
    if value is None or value == "":
        return []
    return [value] if isinstance(value, str) else list(value)


def rule_reaches(rule_type: str, rule_id: RuleId, entity_type: str, entity_ids: Iterable[str]) -> bool:
    """Whether a rule of ``rule_type`` (``"*"``: any) naming ``rule_id`` (None: every id) reaches
    an entity of ``entity_type`` known by any of ``entity_ids``.

    ``entity_ids`` are the entity's id and its aliases (an operator's plan id and node id); ids
    compare exactly, types ignoring case.
    """
    if rule_type != "*" and rule_type.casefold() != str(entity_type).casefold():
        return False
    wanted = rule_ids(rule_id)
    return not wanted or any(i in wanted for i in entity_ids)


class MemoryConstraint(ConfigSection):
    """A cap on what the module may use of one memory (``memory.constraints[]``)."""

    SECTION: ClassVar[str] = "memory.constraints[]"
    KEY_ALIASES: ClassVar[dict[str, str]] = {"memory": "name", "max_bytes": "max_size"}

    name: MemoryName = Field(description="The memory the entry allows (dtcm, sram, mram, ...).")
    max_size: int | None = Field(
        None,
        description="Most bytes of that memory the module may use (or 256KiB, 1MiB); "
        "null: all the platform has.",
    )
    arena_alignment: int | None = Field(
        None,
        description="Alignment floor in bytes for the arena base and every slot in it "
        "(a power of two, at most 16 MiB).",
    )

    @field_validator("name", mode="before")
    @classmethod
    def _memory(cls, value: Any) -> Any:
        return canonical_memory(value)

    @field_validator("max_size", mode="before")
    @classmethod
    def _bytes(cls, value: Any) -> Any:
        if value is None:
            return None
        size = byte_count(value, "max_size")
        if size < 0:
            raise ValueError("max_size must not be negative")
        return size

    @field_validator("arena_alignment", mode="before")
    @classmethod
    def _alignment(cls, value: Any) -> Any:
        return None if value is None else reraise_as_value_error(check_alignment, value, "arena_alignment")


class TensorAttributes(ConfigSection):
    """Where the tensors a rule reaches are placed (``memory.tensors[].attributes``)."""

    SECTION: ClassVar[str] = "memory.tensors[].attributes"

    memory: MemoryName | None = Field(None, description="Memory the tensors live in.")
    constant_destination_memory: MemoryName | None = Field(
        None, description="Constants only: memory they are copied into at init, staged from `memory`."
    )
    alignment: int | None = Field(
        None, description="Alignment of each tensor in bytes (a power of two, at most 16 MiB)."
    )

    @field_validator("memory", "constant_destination_memory", mode="before")
    @classmethod
    def _memory(cls, value: Any) -> Any:
        return None if value is None else canonical_memory(value)

    @field_validator("alignment", mode="before")
    @classmethod
    def _alignment(cls, value: Any) -> Any:
        return None if value is None else reraise_as_value_error(check_alignment, value, "alignment")


class TensorRule(ConfigSection):
    """One placement rule (``memory.tensors[]``); later rules override earlier ones."""

    SECTION: ClassVar[str] = "memory.tensors[]"

    type: TensorKindSelector = Field(
        TensorKindSelector.ANY, description="Tensors the rule reaches: constant, persistent, scratch or *."
    )
    id: RuleId = Field(
        None,
        description="Reach only the tensor with this id (its index, as in the residency file) or these ids.",
    )
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


class SharedArenaConfig(ConfigSection):
    """One scratch buffer that several modules of one image share (``memory.shared_arena``).

    Modules linked into one program that run one after another need scratch for one model at a
    time: with ``enabled`` the module leaves its scratch arenas to the application, which binds the
    same buffer to every module (``<prefix>_bind_arena``). ``size``, ``set_by`` and ``modules`` say
    what planning the set together found (:func:`helia_aot.shared_arena.convert_shared`, ``helia-aot
    convert-set``): the buffer's bytes per memory, the largest need of the set, the module whose need
    sets each size, and the modules that share it. The module states them in its report, its README
    and ``<prefix>_shared_arena_<memory>_size``; they change no byte of its plan. When the set's
    constants do not all fit the fast memories beside each other, ``constants`` (this module's
    share of each memory for its constants, the set's constants read most per byte first) and
    ``reserved`` (what the other modules hold there) make its plan leave the others their bytes.
    """

    SECTION: ClassVar[str] = "memory.shared_arena"

    enabled: bool = Field(
        False,
        description="Leave the scratch arenas to the application, which binds one buffer every module "
        "of the image shares (bind_arena).",
    )
    size: dict[str, int] = Field(
        default_factory=dict,
        description="Bytes of the shared buffer per memory (the largest need of the set; helia-aot "
        "convert-set fills it); empty: this module's own need.",
    )
    set_by: dict[str, str] = Field(
        default_factory=dict, description="The module whose need sets each memory's size (convert-set)."
    )
    modules: list[str] = Field(
        default_factory=empty_list, description="The modules that share the buffer (convert-set)."
    )
    reserved: dict[str, int] = Field(
        default_factory=dict,
        description="Bytes of each memory the other modules of the image hold, their constants and "
        "state (convert-set fills it when the set's constants do not all fit beside each other): the "
        "plan leaves them free.",
    )
    constants: dict[str, int] = Field(
        default_factory=dict,
        description="The most bytes of this module's constants each memory may hold: its share of the "
        "set's constants placed together, read most per byte first (convert-set fills it).",
    )

    @field_validator("size", "set_by", "reserved", "constants", mode="before")
    @classmethod
    def _memory_names(cls, value: Any) -> Any:
        # Memory names as the module writes them: lower case.
        return {str(k).lower(): v for k, v in value.items()} if isinstance(value, dict) else value

    @field_validator("size")
    @classmethod
    def _positive(cls, value: dict[str, int]) -> dict[str, int]:
        for memory, size in value.items():
            if size <= 0:
                raise ValueError(f"memory.shared_arena.size of {memory} must be positive, not {size}")
        return value

    @field_validator("reserved", "constants")
    @classmethod
    def _not_negative(cls, value: dict[str, int]) -> dict[str, int]:
        for memory, size in value.items():
            if size < 0:
                raise ValueError(f"memory.shared_arena bytes of {memory} must not be negative, not {size}")
        return value


class MemoryConfig(ConfigSection):
    """Arena planning and tensor placement (``memory``)."""

    SECTION: ClassVar[str] = "memory"
    REMOVED_KEYS: ClassVar[dict[str, str]] = REMOVED_MEMORY_KEYS

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
    bind_inputs: bool = Field(
        False,
        description="Leave every model input in the caller's buffer (set ctx->inputs[i].data after "
        "model_init): inputs take no arena bytes.",
    )
    bind_outputs: bool = Field(
        False,
        description="Write every model output into the caller's buffer (set ctx->outputs[i].data "
        "after model_init): outputs take no arena bytes.",
    )
    shared_arena: SharedArenaConfig = Field(
        default_factory=SharedArenaConfig,
        description="One scratch buffer shared by several modules of one image.",
    )
    constraints: list[MemoryConstraint] | None = Field(
        None,
        description="The memories the module may use, in order of preference: a list of "
        "{name, max_size, arena_alignment} (null: the platform's).",
    )
    tensors: list[TensorRule] = Field(
        default_factory=empty_list, description="Placement rules: a list of {type, id, attributes}."
    )

    @field_validator("planner", mode="before")
    @classmethod
    def _planner_case(cls, value: Any) -> Any:
        # Any case is accepted (`GREEDY`); the registered planners are lower-case words.
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("constraints")
    @classmethod
    def _one_cap_per_memory(cls, value: list[MemoryConstraint] | None) -> list[MemoryConstraint] | None:
        if value is None:
            return None
        if not value:
            raise ValueError("memory.constraints must list at least one memory (or be left out)")
        seen: set[str] = set()
        for constraint in value:
            if constraint.name in seen:
                raise ValueError(f"memory {constraint.name} is constrained twice")
            seen.add(constraint.name)
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
    id: RuleId = Field(
        None,
        description="Reach only the operator with this id: its plan id (0:<first output tensor name>) "
        "or its index; or a list of them.",
    )
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
    "REMOVED_MEMORY_KEYS",
    "MemoryConfig",
    "SharedArenaConfig",
    "RuleId",
    "rule_ids",
    "rule_reaches",
    "MemoryConstraint",
    "OperatorOptimization",
    "OperatorRule",
    "ExtensionName",
    "TensorAttributes",
    "TensorRule",
    "TransformConfig",
]
