"""Settings: the configuration keys the optimization report measures and gives hints about.

A setting names one choice a user makes (``optimization.goal``, a knob set globally or per
operator, where constants live) with the configuration keys that set it, its default and its
values. Like knobs, the built-ins are the frozen tuple :data:`SETTINGS`, which the core plugin
registers into the registry context's ``settings`` registry, the source of truth a conversion
reads; the tuple is a read-only view of those defaults for scripts, never a second copy to edit.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SettingSpec:
    """One setting: ``keys`` are the configuration keys that set it (``operators[].`` = per operator)."""

    name: str
    keys: tuple[str, ...]
    default: str
    values: tuple[str, ...]
    summary: str


SETTINGS: tuple[SettingSpec, ...] = (
    SettingSpec(
        name="goal",
        keys=("optimization.goal",),
        default="balanced",
        values=("latency", "balanced", "size", "accuracy"),
        summary="What knobs left on auto trade for.",
    ),
    SettingSpec(
        name="allow_approximate",
        keys=("optimization.allow_approximate",),
        default="false",
        values=("false", "true"),
        summary="Whether auto may pick values whose results differ from the reference kernels.",
    ),
    SettingSpec(
        name="accumulation",
        keys=("optimization.accumulation", "operators[].optimization.accumulation"),
        default="auto",
        values=("auto", "precise", "fast"),
        summary="How reductions accumulate, for the whole model or one operator.",
    ),
    SettingSpec(
        name="kernel",
        keys=("optimization.kernel", "operators[].optimization.kernel"),
        default="auto",
        values=("auto", "specialized", "generic"),
        summary="Specialized or generic kernels, for the whole model or one operator.",
    ),
    SettingSpec(
        name="constant_placement",
        keys=("memory.tensors[].attributes.constant_destination_memory",),
        default="not set: constants stay in the memory the plan stores them in",
        values=("MRAM", "SRAM", "DTCM", "ITCM", "DRAM", "PSRAM"),
        summary="The memory constants are copied into at init.",
    ),
)
"""The built-in settings (registered into ``context.settings``)."""


__all__ = ["SETTINGS", "SettingSpec"]
