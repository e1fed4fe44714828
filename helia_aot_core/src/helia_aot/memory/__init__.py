"""Memory planning: tensor lifetimes over the schedule, their placement in one arena, and the
plan's public record types (:mod:`helia_aot.memory.defines`)."""

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
from helia_aot.memory.liveness import alias_roots, compute_lifetimes
from helia_aot.memory.placement import Placer, inplace_pairs, live_by_step, peak_live
from helia_aot.memory.planners import (
    DEFAULT_ITERATIONS,
    plan_greedy,
    plan_greedy_by_size,
    plan_hill_climb,
)
from helia_aot.memory.types import ArenaPlan, BufferRequest

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
