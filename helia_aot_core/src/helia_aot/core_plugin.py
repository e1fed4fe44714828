"""The core's own built-ins, registered through the same hooks as any plugin: memory planners."""

from __future__ import annotations

from helia_aot.plugins.manager import hookimpl


@hookimpl
def helia_aot_register(context) -> None:
    """Register the memory planners (greedy, greedy_by_size, hill_climb)."""
    from helia_aot.memory import PLANNERS

    for name, planner in PLANNERS.items():
        context.memory_planners.register(name, planner)
