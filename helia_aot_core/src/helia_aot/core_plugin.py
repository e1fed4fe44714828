"""The core's own built-ins, registered through the same hooks as any plugin: memory planners and
the module exporters of the four ``module.type`` values."""

from __future__ import annotations

from typing import TYPE_CHECKING

from helia_aot.plugins.manager import hookimpl

if TYPE_CHECKING:
    from helia_aot.registry.context import RegistryContext


@hookimpl
def helia_aot_register(context: RegistryContext) -> None:
    """Register the memory planners (greedy, greedy_by_size, hill_climb) and module exporters."""
    from helia_aot.exporters import BUILTIN_EXPORTERS
    from helia_aot.memory import PLANNERS

    for name, planner in PLANNERS.items():
        context.memory_planners.register(name, planner)
    for module_type, exporter in BUILTIN_EXPORTERS.items():
        context.module_exporters.register(module_type, exporter)
