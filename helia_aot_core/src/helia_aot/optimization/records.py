"""Pydantic models of the plan and report files (schema_version 1)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator

PLAN_SCHEMA_VERSION = 1
REPORT_SCHEMA_VERSION = 1


class _Record(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


def _check_version(expected: int, value: int, what: str) -> int:
    if value != expected:
        raise ValueError(f"{what} schema_version {value} is not the supported schema_version {expected}")
    return value


class KernelChoice(_Record):
    """The kernel an operator's C calls: family and entry point."""

    family: str | None = None
    entry: str | None = None


class PlannedOperator(_Record):
    id: str
    index: int
    op_type: str
    kernel: KernelChoice | None = None
    knobs: dict[str, str] = {}
    source_indices: list[int] = []


class OptimizationPlan(_Record):
    """What the compiler decided for each operator (``<prefix>_plan.json``)."""

    schema_version: int = PLAN_SCHEMA_VERSION
    model: str = ""
    platform: str = ""
    operators: list[PlannedOperator] = []

    @field_validator("schema_version")
    @classmethod
    def _version(cls, value: int) -> int:
        return _check_version(PLAN_SCHEMA_VERSION, value, "plan")


class ReportedOperator(_Record):
    id: str
    index: int
    op_type: str
    macs: int | None = None
    parameters: int | None = None
    kernel_calls: dict[str, str] | None = None
    hints: list[str] = []


class OptimizationReport(_Record):
    """Figures and hints behind the plan (``<prefix>_report.json``)."""

    schema_version: int = REPORT_SCHEMA_VERSION
    model: str = ""
    platform: str = ""
    operators: list[ReportedOperator] = []
    arenas: list[dict[str, Any]] = []
    total_macs: int = 0
