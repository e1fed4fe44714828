"""Readers of the plan and report files a conversion writes (``<prefix>_plan.json`` / ``_report.json``).

schema_version rule: a file with the same schema_version from any release reads (unknown fields are
ignored, unknown enum values kept as strings); another schema_version raises a pydantic
ValidationError naming both versions. ``figures`` holds the definitions of the MAC and parameter
counts the report and the result views share.
"""

from typing import TYPE_CHECKING

from helia_aot.lazy_names import lazy_names
from helia_aot.optimization.knobs import KNOBS, KnobSpec, default_knob_values, knob, knob_names
from helia_aot.optimization.measurements import (
    MEASUREMENTS_FORMAT_VERSION,
    MeasurementRecord,
    load_measurements,
    measurements_for,
)
from helia_aot.optimization.record_constants import (
    MEASUREMENT_SETTINGS,
    PLAN_SCHEMA_VERSION,
    REPORT_SCHEMA_VERSION,
    ArenaRole,
    HintKind,
)
from helia_aot.optimization.settings import SETTINGS, SettingSpec

if TYPE_CHECKING:  # the real names for type checkers; at run time __getattr__ imports them on use
    from helia_aot.optimization.records import (
        KNOB_VALUE_TYPES,
        ConstantPlacement,
        FixedChoice,
        FoldedVariable,
        Fp16Overflow,
        Generator,
        Hint,
        KernelChoice,
        KnobApplicability,
        KnobChoice,
        KnobSource,
        ModelIdentity,
        ModuleKernelCall,
        ModuleKernelCalls,
        OperatorHint,
        OptimizationPlan,
        OptimizationReport,
        PlanKernel,
        PlannedOperator,
        PlanOperator,
        PlanOptimization,
        PlatformIdentity,
        ReportedArena,
        ReportedOperator,
        ReportOperator,
        RuleRef,
    )

__all__ = [
    "KNOBS",
    "KNOB_VALUE_TYPES",
    "MEASUREMENT_SETTINGS",
    "MEASUREMENTS_FORMAT_VERSION",
    "PLAN_SCHEMA_VERSION",
    "REPORT_SCHEMA_VERSION",
    "ArenaRole",
    "ConstantPlacement",
    "FixedChoice",
    "FoldedVariable",
    "Fp16Overflow",
    "Generator",
    "Hint",
    "HintKind",
    "KernelChoice",
    "KnobApplicability",
    "KnobChoice",
    "KnobSource",
    "ModelIdentity",
    "ModuleKernelCall",
    "ModuleKernelCalls",
    "OperatorHint",
    "OptimizationPlan",
    "OptimizationReport",
    "PlanKernel",
    "PlanOperator",
    "PlanOptimization",
    "PlannedOperator",
    "PlatformIdentity",
    "ReportOperator",
    "ReportedArena",
    "ReportedOperator",
    "RuleRef",
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


# The pydantic readers of the plan and report files: imported on first use (PEP 562). A conversion
# writes both files from plain dicts (record_constants holds the values it needs), so only a
# caller that reads a file back or takes a ConversionResult pays for building the ~30 models.
__getattr__, __dir__ = lazy_names(
    __name__,
    {
        name: ("helia_aot.optimization.records", name)
        for name in (
            "KNOB_VALUE_TYPES",
            "ConstantPlacement",
            "FixedChoice",
            "FoldedVariable",
            "Fp16Overflow",
            "Generator",
            "Hint",
            "KernelChoice",
            "KnobApplicability",
            "KnobChoice",
            "KnobSource",
            "ModelIdentity",
            "ModuleKernelCall",
            "ModuleKernelCalls",
            "OperatorHint",
            "OptimizationPlan",
            "OptimizationReport",
            "PlanKernel",
            "PlannedOperator",
            "PlanOperator",
            "PlanOptimization",
            "PlatformIdentity",
            "ReportedArena",
            "ReportedOperator",
            "ReportOperator",
            "RuleRef",
        )
    },
    globals(),
)
