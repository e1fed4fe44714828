"""One flat row per conversion: what a sweep table, a CSV file or ``pandas.DataFrame`` needs.

A ConversionResult nests its facts in the plan, the report and the arena records; comparing a dozen
conversions side by side needs them as plain columns with stable names, so that two results of
the same model (another planner, another platform) give rows with the same keys wherever they
have the same arenas. Every value is a str, int, float, bool or None, so the row writes to CSV and
JSON as it is.
"""

from __future__ import annotations

from typing import Any

STAGES = ("load", "transform", "resolve", "plan", "emit", "export")
"""The converter's stages, in order; each becomes a ``seconds_<stage>`` column (0.0 when it did not
run, as emit and export in a dry run)."""


def _text(value: Any) -> str:
    return str(getattr(value, "value", value))


def _add(row: dict[str, Any], key: str, value: int) -> None:
    row[key] = int(row.get(key, 0)) + int(value)


def result_summary(result: Any) -> dict[str, Any]:
    """The result as one flat dict, columns in a fixed order.

    ``model``, ``platform``, ``cpu``, ``planner``, ``goal``, ``module_type``, ``prefix``,
    ``output``, ``dry_run``; ``operators``, ``macs``, ``parameters``; the bytes each arena uses,
    named ``<role>_<memory>_bytes`` (``scratch_dtcm_bytes``, ``constant_mram_bytes``; two arenas
    of one role in one memory add up); totals per role (``scratch_bytes``, ``persistent_bytes``,
    ``constants_bytes``) and per memory (``memory_<memory>_bytes``); ``seconds_<stage>`` for
    each stage and ``seconds_total``.
    """
    config = result.config
    plan, report = result.plan, result.report
    row: dict[str, Any] = {
        "model": plan.model_name or plan.model.file,
        "platform": plan.platform.name,
        "cpu": plan.platform.cpu,
        "planner": _text(config.memory.planner) if config is not None else None,
        "goal": _text(config.optimization.goal) if config is not None else None,
        "module_type": _text(config.module.type) if config is not None else None,
        "prefix": result.prefix,
        "output": str(result.output),
        "dry_run": bool(result.dry_run),
        "operators": len(plan.operators),
        "macs": int(report.total_macs),
        "parameters": int(report.total_parameters),
    }
    per_arena: dict[str, Any] = {}
    totals: dict[str, Any] = {"scratch_bytes": 0, "persistent_bytes": 0, "constants_bytes": 0}
    per_memory: dict[str, Any] = {}
    for arena in result.arenas:
        role, memory, used = _text(arena["role"]), _text(arena["memory"]).lower(), int(arena["used"] or 0)
        _add(per_arena, f"{role}_{memory}_bytes", used)
        _add(totals, "constants_bytes" if role == "constant" else f"{role}_bytes", used)
        _add(per_memory, f"memory_{memory}_bytes", used)
    row.update(per_arena)
    row.update(totals)
    row.update(per_memory)
    seconds = dict(result.stage_seconds)
    for stage in STAGES:
        row[f"seconds_{stage}"] = round(float(seconds.get(stage, 0.0)), 6)
    row["seconds_total"] = round(sum(float(v) for v in seconds.values()), 6)
    return row


__all__ = ["STAGES", "result_summary"]
