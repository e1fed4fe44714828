"""The closed vocabularies of a configuration: schedules and optimization choices.

Each is a ``str`` enum so a value read from YAML compares equal to the member (``"table" ==
ScheduleMode.TABLE``) and prints as the word a user wrote. Values that name an extension
(``module.type``, ``memory.planner``) are not enums: plugins add them, so the conversion's registry
context checks them.
"""

from __future__ import annotations

import enum


class _Word(str, enum.Enum):
    def __str__(self) -> str:
        return str(self.value)

    @classmethod
    def _missing_(cls, value: object) -> _Word | None:
        # Any case is accepted (`CMAKE`, `Greedy`), as the product's configuration accepts it.
        if isinstance(value, str):
            folded = value.strip().casefold()
            for member in cls:
                if member.value.casefold() == folded:
                    return member
        return None


MODULE_TYPE_ALIASES: dict[str, str] = {"neuralspot": "nsx"}
"""Older spellings of ``module.type`` kept so existing configuration files still load."""


class ModuleType(_Word):
    """The build layouts the core ships (``module.type``).

    ``module.type`` itself is a string, checked against the conversion's ``module_exporters``, so a
    plugin may add a layout this enum does not list; the enum names the built-in ones for scripts
    written against the product (``ModuleType("nsx")``).
    """

    ZEPHYR = "zephyr"
    CMAKE = "cmake"
    NSX = "nsx"
    CMSIS_PACK = "cmsis_pack"


class ModelType(_Word):
    """The model file's format (``model.type``); without it the file extension decides."""

    TFLITE = "tflite"
    LITERT = "litert"


class ScheduleMode(_Word):
    """How the generated model calls its operators (``module.schedule``)."""

    TABLE = "table"
    """A dispatch table walked in a loop; supports the per-operator callback."""
    STATIC = "static"
    """A straight-line sequence of calls: smaller and faster, no per-operator callback."""


class OptimizationGoal(_Word):
    """What the optimizer trades for when a knob is left on ``auto`` (``optimization.goal``)."""

    BALANCED = "balanced"
    LATENCY = "latency"
    SIZE = "size"
    ACCURACY = "accuracy"


class KernelChoice(_Word):
    """Which kernel family an operator uses (``optimization.kernel``)."""

    AUTO = "auto"
    """Let the goal decide."""
    SPECIALIZED = "specialized"
    """Shape-specialized kernels: faster, larger code."""
    GENERIC = "generic"
    """One shared kernel per operator type: smaller code."""


class AccumulationChoice(_Word):
    """How reductions accumulate (``optimization.accumulation``)."""

    AUTO = "auto"
    """Let the goal decide (``precise`` unless ``allow_approximate`` and the goal favour speed)."""
    PRECISE = "precise"
    """Bit-exact with the LiteRT reference kernels."""
    FAST = "fast"
    """Faster accumulation that may differ from the reference; needs ``allow_approximate``."""


class TensorKindSelector(_Word):
    """Which tensors a ``memory.tensors[]`` rule reaches (its ``type``)."""

    ANY = "*"
    CONSTANT = "constant"
    PERSISTENT = "persistent"
    SCRATCH = "scratch"


__all__ = [
    "MODULE_TYPE_ALIASES",
    "AccumulationChoice",
    "KernelChoice",
    "ModelType",
    "ModuleType",
    "OptimizationGoal",
    "ScheduleMode",
    "TensorKindSelector",
]
