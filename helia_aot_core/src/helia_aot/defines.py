"""The product's ``helia_aot.defines``: the configuration's closed vocabularies under its names.

Scripts written for the product (its profiler among them) import ``ModuleType`` and friends from
here. The enums live in :mod:`helia_aot.config.enums`; this module only gives them the product's
import path, and ``Accumulation`` is the product's name for :class:`AccumulationChoice`.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import StringConstraints

from helia_aot.config.enums import (
    AccumulationChoice,
    KernelChoice,
    ModelType,
    ModuleType,
    OptimizationGoal,
    ScheduleMode,
)

Accumulation = AccumulationChoice
"""How reductions accumulate (``optimization.accumulation``), under the product's name."""

ValidCVarNameType = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]
"""A C identifier, for a pydantic field that names a C symbol."""

ValidModuleNameType = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_-]*$")]
"""A module name every exporter accepts as a folder and build target (``module.name`` also takes
'.' and a leading digit; a name of this form is valid everywhere)."""

__all__ = [
    "Accumulation",
    "KernelChoice",
    "ModelType",
    "ModuleType",
    "OptimizationGoal",
    "ScheduleMode",
    "ValidCVarNameType",
    "ValidModuleNameType",
]
