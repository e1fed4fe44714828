"""Memory planning: tensor lifetimes over the schedule, their placement in one arena, and the
plan's public record types (:mod:`helia_aot.memory.defines`)."""

from typing import TYPE_CHECKING

from helia_aot.lazy_names import lazy_names
from helia_aot.memory.liveness import alias_roots, compute_lifetimes
from helia_aot.memory.placement import Placer, inplace_pairs, live_by_step, peak_live
from helia_aot.memory.planners import (
    DEFAULT_ITERATIONS,
    plan_greedy,
    plan_greedy_by_size,
    plan_hill_climb,
)
from helia_aot.memory.types import ArenaPlan, BufferRequest

if TYPE_CHECKING:  # the real names for type checkers; at run time __getattr__ imports them on use
    from helia_aot.memory.defines import (
        ArenaRole,
        ArenaUsage,
        MemoryConstraint,
        MemoryPlan,
        MemoryPlannerType,
        TensorAllocation,
        TensorAttributes,
        TensorBinding,
        TensorLifetime,
    )

__all__ = [
    "DEFAULT_ITERATIONS",
    "ArenaPlan",
    "ArenaRole",
    "ArenaUsage",
    "BufferRequest",
    "MemoryConstraint",
    "MemoryPlan",
    "MemoryPlannerType",
    "TensorAllocation",
    "TensorAttributes",
    "TensorBinding",
    "TensorLifetime",
    "Placer",
    "alias_roots",
    "compute_lifetimes",
    "inplace_pairs",
    "live_by_step",
    "peak_live",
    "plan_greedy",
    "plan_greedy_by_size",
    "plan_hill_climb",
]


# The public record types of memory.defines (six pydantic models): imported on first use (PEP 562).
# A conversion plans with its own records (helia_aot.pipeline.plan_records) and uses none of them.
__getattr__, __dir__ = lazy_names(
    __name__,
    {
        name: ("helia_aot.memory.defines", name)
        for name in (
            "ArenaRole",
            "ArenaUsage",
            "MemoryConstraint",
            "MemoryPlan",
            "MemoryPlannerType",
            "TensorAllocation",
            "TensorAttributes",
            "TensorBinding",
            "TensorLifetime",
        )
    },
    globals(),
)
