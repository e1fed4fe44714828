"""Readers of the plan and report files a conversion writes (``<prefix>_plan.json`` / ``_report.json``).

schema_version rule: a file with the same schema_version from any release reads (unknown fields are
ignored, unknown enum values kept as strings); another schema_version raises a pydantic
ValidationError naming both versions. ``figures`` holds the definitions of the MAC and parameter
counts the report and the result views share.
"""

from helia_aot.optimization.knobs import KNOBS, KnobSpec, default_knob_values, knob, knob_names
from helia_aot.optimization.measurements import (
    MEASUREMENTS_FORMAT_VERSION,
    MeasurementRecord,
    load_measurements,
    measurements_for,
)
from helia_aot.optimization.records import (
    KNOB_VALUE_TYPES,
    PLAN_SCHEMA_VERSION,
    REPORT_SCHEMA_VERSION,
    ArenaRole,
    Hint,
    HintKind,
    KernelChoice,
    OptimizationPlan,
    OptimizationReport,
    PlannedOperator,
    ReportedArena,
    ReportedOperator,
)
from helia_aot.optimization.settings import SETTINGS, SettingSpec

__all__ = [
    "KNOBS",
    "KNOB_VALUE_TYPES",
    "MEASUREMENTS_FORMAT_VERSION",
    "PLAN_SCHEMA_VERSION",
    "REPORT_SCHEMA_VERSION",
    "ArenaRole",
    "Hint",
    "HintKind",
    "KernelChoice",
    "OptimizationPlan",
    "OptimizationReport",
    "PlannedOperator",
    "ReportedArena",
    "ReportedOperator",
    "SETTINGS",
    "KnobSpec",
    "MeasurementRecord",
    "SettingSpec",
    "default_knob_values",
    "knob",
    "knob_names",
    "load_measurements",
    "measurements_for",
]
