"""The core's own built-ins: the memory planners, the module exporters of the four
``module.type`` values, the optimization knobs and settings, and the LiteRT model loader,
registered as plugin ``core`` through the same hooks as any plugin.

The function is a plain customizer; the plugin loader marks it as the ``core`` plugin's
``helia_aot_register`` so this module needs nothing from the plugin machinery above it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from helia_aot.converters.litert.format import LITERT_LOADER
from helia_aot.converters.loaders import ModelLoader
from helia_aot.exporters import CMakeExporter, CmsisPackExporter, NsxExporter, ZephyrExporter
from helia_aot.memory.planners import plan_greedy, plan_greedy_by_size, plan_hill_climb
from helia_aot.optimization.knobs import KNOBS
from helia_aot.optimization.settings import SETTINGS

if TYPE_CHECKING:  # pragma: no cover - the context module sits above the built-ins it receives
    from helia_aot.registry.context import RegistryContext


def register_builtins(context: RegistryContext) -> None:
    """Register the memory planners (greedy, greedy_by_size, hill_climb), module exporters, knobs
    and settings (the context's registries are where a conversion reads them; the module-level
    ``KNOBS`` / ``SETTINGS`` tuples are the read-only defaults registered here)."""
    context.memory_planners.register("greedy", plan_greedy)
    context.memory_planners.register("greedy_by_size", plan_greedy_by_size)
    context.memory_planners.register("hill_climb", plan_hill_climb)
    for exporter in (CMakeExporter, ZephyrExporter, NsxExporter, CmsisPackExporter):
        context.module_exporters.register(exporter.TYPE, exporter)
    for knob in KNOBS:
        context.knobs.register(knob.name, knob)
    for setting in SETTINGS:
        context.settings.register(setting.name, setting)


def model_loaders() -> Iterable[ModelLoader]:
    """The core's front end: LiteRT flatbuffers (``.tflite``), read by
    :class:`~helia_aot.pipeline.litert_reader.LiteRTReader`, registered like any plugin's loader."""
    return [LITERT_LOADER]


__all__ = ["model_loaders", "register_builtins"]
