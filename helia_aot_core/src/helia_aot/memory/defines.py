"""The memory plan's public vocabulary, in the shapes the product's API manifest names.

These are the records a script meets when it reads or builds a memory configuration and plan
outside a conversion: ``MemoryConstraint`` and ``TensorAttributes`` (configuration, promised),
``MemoryPlannerType`` (the built-in ``memory.planner`` names) and the planner's output types
``MemoryPlan``, ``TensorAllocation``, ``TensorBinding``, ``TensorLifetime``, ``ArenaUsage`` and
``ArenaRole`` (provisional). The pipeline plans with its own richer records
(:mod:`helia_aot.pipeline.plan_records`); ``MemoryPlan`` here is the portable summary, so a script
written against the product's names keeps working while the internal plan is free to change.
"""

from __future__ import annotations

import enum

from pydantic import BaseModel, ConfigDict, Field
from pydantic.dataclasses import dataclass as pydantic_dataclass

from helia_aot.platforms.model import MemoryType

_DEFERRED = ConfigDict(defer_build=True)
"""Validators built on first use: a conversion uses none of these records, and building them
when the module is imported cost every conversion a few milliseconds (issue 17)."""


class MemoryPlannerType(str, enum.Enum):
    """The built-in ``memory.planner`` values (plugins may register more under other names)."""

    GREEDY = "greedy"
    GREEDY_BY_SIZE = "greedy_by_size"
    HILL_CLIMB = "hill_climb"

    def __str__(self) -> str:
        return str(self.value)


class ArenaRole(str, enum.Enum):
    """What an arena holds: activations reused over the schedule, state kept across runs, constants."""

    SCRATCH = "scratch"
    PERSISTENT = "persistent"
    CONSTANT = "constant"

    def __str__(self) -> str:
        return str(self.value)


class MemoryConstraint(BaseModel):
    """One ``memory.constraints[]`` entry: a memory arenas may use, in order of preference.

    ``max_size`` caps the bytes placed there (None: the target's whole budget); ``arena_alignment``
    raises the alignment of the arena base and of every slot in it (None: the 16-byte base floor).
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    name: MemoryType
    max_size: int | None = Field(default=None, ge=0)
    arena_alignment: int | None = Field(default=None, gt=0)


@pydantic_dataclass(config=ConfigDict(extra="forbid", defer_build=True))
class TensorAttributes:
    """The attributes a ``memory.tensors[]`` rule sets on the tensors it matches.

    ``memory`` is where the tensor lives at run time; ``constant_destination_memory`` (constant
    rules only) is the memory a constant is copied into at init from where it is stored.
    """

    memory: MemoryType | None = None
    constant_destination_memory: MemoryType | None = None


class TensorLifetime(BaseModel):
    """The operators (schedule indices, inclusive) over which a tensor's bytes must stay intact."""

    model_config = _DEFERRED

    tensor_id: str
    start_op: int
    end_op: int


class TensorBinding(BaseModel):
    """How a tensor is bound to its arena: the arena's role, its memory, and where it is loaded from."""

    model_config = _DEFERRED

    role: ArenaRole
    memory: MemoryType
    source_memory: MemoryType
    offset: int = 0


class TensorAllocation(BaseModel):
    """Where one tensor was placed: ``offset`` bytes into the arena of ``memory``, ``size`` bytes."""

    model_config = _DEFERRED

    tensor_id: str
    memory: MemoryType
    offset: int = 0
    size: int = 0
    binding: TensorBinding | None = None


class ArenaUsage(BaseModel):
    """One arena: its memory and role, the bytes it uses and the budget it had there."""

    model_config = _DEFERRED

    memory: MemoryType
    total_size: int = 0
    used: int = 0
    role: ArenaRole = ArenaRole.SCRATCH
    source_memory: MemoryType | None = None
    alignment: int = 16


class MemoryPlan(BaseModel):
    """A whole plan: every tensor's allocation and lifetime, and the arenas by memory and role."""

    model_config = _DEFERRED

    tensor_allocs: dict[str, TensorAllocation] = Field(default_factory=dict)
    arena_usages: dict[MemoryType, ArenaUsage] = Field(default_factory=dict)
    constant_arenas: dict[MemoryType, ArenaUsage] = Field(default_factory=dict)
    persistent_arenas: dict[MemoryType, ArenaUsage] = Field(default_factory=dict)
    tensor_lifetimes: dict[str, TensorLifetime] = Field(default_factory=dict)


__all__ = [
    "ArenaRole",
    "ArenaUsage",
    "MemoryConstraint",
    "MemoryPlan",
    "MemoryPlannerType",
    "TensorAllocation",
    "TensorAttributes",
    "TensorBinding",
    "TensorLifetime",
]
