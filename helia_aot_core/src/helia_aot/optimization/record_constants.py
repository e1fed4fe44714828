"""The plain values the plan and report files are written with: versions, enums, setting names.

A conversion writes ``<prefix>_plan.json`` and ``<prefix>_report.json`` from these values alone;
the pydantic readers in :mod:`helia_aot.optimization.records` (about thirty model classes, a
noticeable share of a small model's start-up) are only needed to read a file back or to hand a
Python caller the typed :class:`~helia_aot.optimization.records.OptimizationPlan`. So the values
live here, without pydantic, and ``records`` re-exports them as the same objects.
"""

from __future__ import annotations

import enum

PLAN_SCHEMA_VERSION = 1
REPORT_SCHEMA_VERSION = 1


class ArenaRole(str, enum.Enum):
    """What an arena holds: activations, state kept across runs, or read-only constants."""

    SCRATCH = "scratch"
    PERSISTENT = "persistent"
    CONSTANT = "constant"

    def __str__(self) -> str:
        return self.value


class HintKind(str, enum.Enum):
    """Why the report points at an operator or an arena (``Hint.kind``)."""

    KNOB_NOT_HONOURED = "knob_not_honoured"
    """A knob asked for a value no kernel of the operator offers; the plan records what was used."""
    CODE_PLACEMENT_IGNORED = "code_placement_ignored"
    """``code_placement: ITCM`` was asked for on a platform without ITCM."""
    SCRATCH_PEAK = "scratch_peak"
    """The operator at which the most scratch bytes are live: the place to shrink the arena."""
    FRAGMENTATION = "fragmentation"
    """The scratch arena is larger than the bytes live at its peak."""

    def __str__(self) -> str:
        return self.value


# The settings the report's ``measurements`` object always has a list for.
MEASUREMENT_SETTINGS = ("goal", "allow_approximate", "accumulation", "kernel", "constant_placement")


__all__ = ["MEASUREMENT_SETTINGS", "PLAN_SCHEMA_VERSION", "REPORT_SCHEMA_VERSION", "ArenaRole", "HintKind"]
