"""The report's setting hints and quoted measurements: what another knob value would save.

A hint is written for a knob value some operators offer but do not run. Its bytes come from the
plan (the derived constants and scratch each operator's kernel variants declare), its code bytes
and instructions from our measured table (``helia_aot/optimization/measured.json``, one bench
model per kernel family on the target's CPU), so every figure names where it was taken from and
nothing is extrapolated: a family the table does not cover gives no instruction figure.
"""

from __future__ import annotations

from typing import Any

from helia_aot.optimization.figures import operator_macs
from helia_aot.optimization.measured import measured_for
from helia_aot.optimization.measurements import measurements_for
from helia_aot.optimization.records import MEASUREMENT_SETTINGS

# The goal whose auto table picks each kernel value, for the hint's alternative spelling.
_GOAL_FOR = {"generic": "size", "specialized": "latency"}


def quoted_measurements(platform: Any) -> dict[str, list[dict[str, Any]]]:
    """Per setting, the packaged ``measurements.json`` records for this target and CPU."""
    target, cpu = str(getattr(platform, "name", "")), str(getattr(platform, "cpu", ""))
    return {
        setting: [r.model_dump(mode="json") for r in measurements_for(setting, target, cpu)]
        for setting in MEASUREMENT_SETTINGS
    }


def _variant_bytes(aot_op: Any, knob: str, value: str) -> tuple[int, int]:
    for variant in aot_op.kernel_variants():
        if variant.knob == knob and variant.value == value:
            return int(variant.const_bytes), int(variant.scratch_bytes)
    return 0, 0


def setting_hints(
    operators: list[Any], ids: list[tuple[str, str]], platform: Any, config: Any
) -> list[dict[str, Any]]:
    """One hint per knob value that some operators offer but do not run (see the module docstring)."""
    cpu = str(getattr(platform, "cpu", "") or "cortex-m55").lower()
    total_macs = sum(operator_macs(op) or 0 for op in operators) or 0
    goal = str(getattr(getattr(config, "optimization", None), "goal", "balanced")).lower()
    hints = []
    for knob in ("kernel",):
        values: dict[str, list[int]] = {}
        for i, op in enumerate(operators):
            choice = (getattr(op, "knob_choices", None) or {}).get(knob)
            if choice is None:
                continue
            for value in choice.offered:
                if value != choice.value:
                    values.setdefault(value, []).append(i)
        for value, members in sorted(values.items()):
            ops = [operators[i] for i in members]
            hints.append(_kernel_hint(knob, value, ops, [ids[i][0] for i in members], cpu, total_macs, goal))
    return hints


def _kernel_hint(
    knob: str, value: str, ops: list[Any], plan_ids: list[str], cpu: str, total_macs: int, current_goal: str
) -> dict[str, Any]:
    const_delta = scratch_delta = 0
    for op in ops:
        now_const, now_scratch = _variant_bytes(op, knob, op.knob(knob))
        alt_const, alt_scratch = _variant_bytes(op, knob, value)
        const_delta += now_const - alt_const
        scratch_delta += now_scratch - alt_scratch
    families = sorted({op.KNOB_FAMILY for op in ops if op.KNOB_FAMILY})
    code_delta = 0
    instructions: dict[str, int] = {}
    for family in families:
        rows = measured_for(family, knob, cpu)
        current = next((op.knob(knob) for op in ops if op.KNOB_FAMILY == family), "")
        if value in rows and current in rows:
            code_delta += rows[current].code_bytes - rows[value].code_bytes
            instructions[family] = rows[value].instructions - rows[current].instructions
    current_value = ops[0].knob(knob)
    types = ", ".join(sorted({op.op.op_type for op in ops}))
    sign = 1 if const_delta + scratch_delta + code_delta >= 0 else -1
    parts = [f"{sign * const_delta:,} B of constants", f"{sign * scratch_delta:,} B of scratch"]
    if code_delta:
        parts.append(f"about {sign * code_delta:,} B of code")
    saving = ("saves " if sign > 0 else "costs ") + ", ".join(parts)
    cost = ""
    if instructions:
        cost = (
            "; measured on the bench models ("
            + cpu
            + "): "
            + ", ".join(f"{family} {delta:+,} instructions" for family, delta in sorted(instructions.items()))
        )
    goal = _GOAL_FOR.get(value)
    also = f" (goal: {goal} prefers it)" if goal and goal != current_goal else ""
    macs = sum(operator_macs(op) or 0 for op in ops)
    return {
        "setting": knob,
        "message": f"{knob}: {value} on {len(ops)} {types} operator(s) {saving}{cost}{also}",
        "current": current_value,
        "alternative": value,
        "yaml": f"optimization:\n  {knob}: {value}\n",
        "operators": plan_ids,
        "mac_share": round(macs / total_macs, 4) if total_macs else None,
        "facts": {
            "const_bytes_saved": const_delta,
            "scratch_bytes_saved": scratch_delta,
            "code_bytes_saved": code_delta,
            "instructions_delta": instructions,
            "cpu": cpu,
        },
    }


__all__ = ["quoted_measurements", "setting_hints"]
