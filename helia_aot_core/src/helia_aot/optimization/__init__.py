"""Readers of the plan and report files a conversion writes (``<prefix>_plan.json`` / ``_report.json``).

schema_version rule: a file with the same schema_version from any release reads (unknown fields are
ignored, unknown enum values kept as strings); another schema_version raises a ValidationError
naming both versions.
"""

from helia_aot.optimization.records import (
    PLAN_SCHEMA_VERSION,
    REPORT_SCHEMA_VERSION,
    KernelChoice,
    OptimizationPlan,
    OptimizationReport,
    PlannedOperator,
    ReportedOperator,
)

__all__ = [
    "KernelChoice",
    "OptimizationPlan",
    "OptimizationReport",
    "PLAN_SCHEMA_VERSION",
    "PlannedOperator",
    "REPORT_SCHEMA_VERSION",
    "ReportedOperator",
]
