"""The report's setting hints and quoted measurements: what another knob value would save.

A hint is written for a knob value some operators offer but do not run, for each other goal
that would resolve some operator's knobs differently (or keep the kernel buffers this goal
places in dead bytes), and for ``constant_placement`` when the constants read from outside TCM
would fit in the DTCM left free. Bytes come from the plan (the derived constants and scratch
each operator's kernel variants declare, the buffers the memory-aware choice gave up, the
report's ``constant_placement``), code bytes and instructions from our measured table
(``helia_aot/optimization/measured.json``, one bench model per kernel family on the target's
CPU), so every figure names where it was taken from and nothing is extrapolated: a family the
table does not cover gives no instruction figure.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from helia_aot.config.enums import OptimizationGoal
from helia_aot.optimization.figures import operator_macs
from helia_aot.optimization.knobs import KNOBS
from helia_aot.optimization.measured import measured_for
from helia_aot.optimization.measurements import measurements_for
from helia_aot.optimization.record_constants import MEASUREMENT_SETTINGS
from helia_aot.optimization.resolution import KnobSettings, resolve_knob

if TYPE_CHECKING:
    from helia_aot.aot.operators.base import AotOperator
    from helia_aot.config.args import ConvertArgs
    from helia_aot.platforms.model import SocPlatform

# The goal whose auto table picks each kernel value, for the hint's alternative spelling.
_GOAL_FOR = {"generic": "size", "specialized": "latency"}


def quoted_measurements(platform: SocPlatform) -> dict[str, list[dict[str, Any]]]:
    """Per setting, the packaged ``measurements.json`` records for this target and CPU."""
    target, cpu = platform.name, platform.cpu
    return {
        setting: [r.model_dump(mode="json") for r in measurements_for(setting, target, cpu)]
        for setting in MEASUREMENT_SETTINGS
    }


def _variant_bytes(variants: list[Any], knob: str, value: str) -> tuple[int, int]:
    for variant in variants:
        if variant.knob == knob and variant.value == value:
            return int(variant.const_bytes), int(variant.scratch_bytes)
    return 0, 0


def _variant_saving(aot_op: AotOperator, knob: str, value: str) -> tuple[int, int]:
    """Constant and scratch bytes the operator's current ``knob`` variant has over ``value``'s
    (its variants asked for once: each asks the operator's geometry and constants again)."""
    variants = aot_op.kernel_variants()
    now_const, now_scratch = _variant_bytes(variants, knob, aot_op.knob(knob))
    alt_const, alt_scratch = _variant_bytes(variants, knob, value)
    return now_const - alt_const, now_scratch - alt_scratch


def setting_hints(
    operators: list[AotOperator],
    ids: list[tuple[str, str]],
    platform: SocPlatform,
    config: ConvertArgs,
    placement: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The knob, goal and constant placement hints (see the module docstring)."""
    hints = knob_hints(operators, ids, platform, config)
    hints += goal_hints(operators, ids, platform, config)
    hint = placement_hint(placement, platform)
    return hints + ([hint] if hint else [])


def knob_hints(
    operators: list[AotOperator], ids: list[tuple[str, str]], platform: SocPlatform, config: ConvertArgs
) -> list[dict[str, Any]]:
    """One hint per knob value that some operators offer but do not run (see the module docstring)."""
    cpu = platform.cpu
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
        const, scratch = _variant_saving(op, knob, value)
        const_delta += const
        scratch_delta += scratch
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


_HINT_GOALS = ("latency", "balanced", "size")
"""The goals a goal hint compares (accuracy resolves as balanced: every value is exact)."""


def _sum_variants(changes: list[tuple[Any, str]], knob: str) -> tuple[int, int]:
    """Constant and scratch bytes the changes save (current variant less the alternative)."""
    const = scratch = 0
    for op, value in changes:
        saved_const, saved_scratch = _variant_saving(op, knob, value)
        const += saved_const
        scratch += saved_scratch
    return const, scratch


def _measured_deltas(changes: list[tuple[Any, str]], knob: str, cpu: str) -> tuple[int, dict[str, int]]:
    """Code bytes saved and instructions added per family and value switch, from measured.json."""
    code = 0
    instructions: dict[str, int] = {}
    for family, current, value in sorted(
        {(op.KNOB_FAMILY or "", str(op.knob(knob)), v) for op, v in changes}
    ):
        rows = measured_for(family, knob, cpu) if family else {}
        if value in rows and current in rows:
            code += rows[current].code_bytes - rows[value].code_bytes
            instructions[f"{family} {current}->{value}"] = (
                rows[value].instructions - rows[current].instructions
            )
    return code, instructions


def _size_form(operators: list[AotOperator]) -> list[tuple[Any, int, int]]:
    """The operators goal size runs in another form (``goal_size_savings``), with the constant
    and scratch bytes that form gives up."""
    found = []
    for op in operators:
        savings = getattr(op, "goal_size_savings", None)
        const, scratch = savings() if callable(savings) else (0, 0)
        if const or scratch:
            found.append((op, int(const), int(scratch)))
    return found


def goal_hints(
    operators: list[AotOperator], ids: list[tuple[str, str]], platform: SocPlatform, config: ConvertArgs
) -> list[dict[str, Any]]:
    """One hint per other goal that would change this module: the operators whose ``auto``
    knobs it resolves differently (bytes from the plan, code and instructions measured), and at
    ``latency`` the kernel buffers this goal gave up (kept there: more scratch)."""
    cpu = platform.cpu
    specs = {spec.name: spec for spec in KNOBS}
    now = KnobSettings.from_config(config, list(specs))
    current_goal = now.goal.value
    if current_goal not in _HINT_GOALS:
        return []
    index_of = {id(op): i for i, op in enumerate(operators)}
    hints = []
    for goal in _HINT_GOALS:
        if goal == current_goal:
            continue
        settings = replace(now, goal=OptimizationGoal(goal))
        changes: dict[str, list[tuple[Any, str]]] = {}
        # An ``auto`` request resolves from the knob, the operator type, the offer and the
        # operator's modeled preference alone (the request itself only says ``auto``), so
        # operators alike resolve once: a thousand-layer chain asked the same question four
        # thousand times.
        resolved: dict[tuple[str, str, tuple[str, ...], str | None], str] = {}
        for op in operators:
            for name, choice in (getattr(op, "knob_choices", None) or {}).items():
                spec = specs.get(name)
                if spec is None or choice.request.explicit:
                    continue
                auto = spec.resolve(
                    settings.goal, op_type=op.op.op_type, allow_approximate=settings.allow_approximate
                )
                modeled = op.modeled_knob_choice(name, goal, tuple(choice.offered), auto)
                key = (name, op.op.op_type, tuple(choice.offered), modeled)
                value = resolved.get(key)
                if value is None:
                    value = resolved[key] = resolve_knob(
                        spec,
                        choice.request,
                        settings,
                        op.op.op_type,
                        choice.offered,
                        lambda *_: modeled,  # noqa: B023  (called here, in this iteration)
                    ).value
                if value != choice.value:
                    changes.setdefault(name, []).append((op, value))
        kept = 0
        if goal == "latency":
            kept = sum(sum(getattr(op, "dropped_scratch", {}).values()) for op in operators)
        reshaped = _size_form(operators) if goal == "size" else []
        if not changes and not kept and not reshaped:
            continue
        const = scratch = code = 0
        instructions: dict[str, int] = {}
        parts = []
        if reshaped:
            const = sum(c for _, c, _ in reshaped)
            scratch = sum(b for _, _, b in reshaped)
            parts.append(f"{len(reshaped)} operator(s) run from the model's own constants")
        for name, pairs in sorted(changes.items()):
            c, sc = _sum_variants(pairs, name)
            cd, ins = _measured_deltas(pairs, name, cpu)
            const, scratch, code = const + c, scratch + sc, code + cd
            instructions.update(ins)
            values = ", ".join(sorted({v for _, v in pairs}))
            parts.append(f"{name}: {values} on {len(pairs)} operator(s)")
        if kept:
            parts.append(f"keeps the {kept:,} B of kernel scratch goal {current_goal} gives up")
        figures = [f"constants {-const:+,} B", f"scratch {-scratch + kept:+,} B at most"]
        if code:
            figures.append(f"code {-code:+,} B")
        measured = ""
        if instructions:
            measured = f"; measured on the bench models ({cpu}): " + ", ".join(
                f"{k} {v:+,} instructions" for k, v in sorted(instructions.items())
            )
        members = sorted(
            {index_of[id(op)] for pairs in changes.values() for op, _ in pairs}
            | {index_of[id(op)] for op, _, _ in reshaped}
        )
        total_macs = sum(operator_macs(op) or 0 for op in operators)
        macs = sum(operator_macs(operators[i]) or 0 for i in members)
        hints.append(
            {
                "setting": "goal",
                "message": f"goal: {goal}: {'; '.join(parts)}: {', '.join(figures)}{measured}",
                "current": current_goal,
                "alternative": goal,
                "yaml": f"optimization:\n  goal: {goal}\n",
                "operators": [ids[i][0] for i in members],
                "mac_share": round(macs / total_macs, 4) if total_macs else None,
                "facts": {
                    "const_bytes_saved": const,
                    "scratch_bytes_saved": scratch - kept,
                    "code_bytes_saved": code,
                    "instructions_delta": instructions,
                    "cpu": cpu,
                },
            }
        )
    return hints


def placeholder_shape_hint(inputs: list[dict[str, Any]]) -> dict[str, Any] | None:
    """``model.input_shapes``: the model converted with inputs of unknown size (a -1 in their
    signature) at the shapes the file stores, which are often placeholders; the module runs
    only those shapes, so if the model is fed other sizes they must be given."""
    if not inputs:
        return None
    named = "; ".join(
        f"input {i['position']} {i['name']!r}: signature {i['signature']}, converted at {i['shape']}"
        for i in inputs
    )
    flags = ";".join(f"{i['name']}={','.join(str(d) for d in i['shape'])}" for i in inputs)
    yaml = "model:\n  input_shapes:\n" + "".join(f"    {i['name']}: {list(i['shape'])}\n" for i in inputs)
    return {
        "setting": "model.input_shapes",
        "message": (
            f"model.input_shapes: {named}: the module was converted at the shape the file stores, "
            "often a placeholder for a dynamic input, and runs only that shape; if the model is fed "
            f"other sizes, convert with --model.input-shapes '{flags}' (with your sizes)"
        ),
        "current": "stored shapes",
        "alternative": flags,
        "yaml": yaml,
        "operators": [],
        "mac_share": None,
        "facts": {"inputs": [dict(i) for i in inputs]},
    }


def placement_hint(placement: dict[str, Any] | None, platform: SocPlatform) -> dict[str, Any] | None:
    """``constant_placement``: the constants read from outside TCM fit in the DTCM left free, so a
    staging rule would have the kernels read them at TCM speed for that many bytes of DTCM. Its
    speed is quoted from ``measurements.json`` when a record covers this target (instruction
    counts do not change: the same code reads other memory)."""
    if not placement or placement.get("id_specific_constant_rules"):
        return None
    outside = {m: int(n) for m, n in (placement.get("constant_bytes_outside_tcm") or {}).items() if n}
    total = sum(outside.values())
    free = int(placement.get("dtcm_free_bytes") or 0)
    if not total or total > free:
        return None
    source = max(outside, key=lambda m: outside[m])
    target, cpu = platform.name, platform.cpu
    quotes = [r for r in measurements_for("constant_placement", target, cpu) if r.value.upper() == "DTCM"]
    gain = f"; measured: {quotes[0].gain} ({quotes[0].source})" if quotes else ""
    return {
        "setting": "constant_placement",
        "message": (
            f"constant_placement: DTCM: the {total:,} B of constants read from {', '.join(sorted(outside))} "
            f"fit in the {free:,} B of DTCM left free: staged there at init, the kernels read them "
            f"at TCM speed (costs {total:,} B of DTCM, instructions unchanged){gain}"
        ),
        "current": source,
        "alternative": "DTCM",
        "yaml": (
            "memory:\n  tensors:\n    - type: constant\n      attributes:\n"
            f"        memory: {source.lower()}\n        constant_destination_memory: dtcm\n"
        ),
        "operators": [],
        "mac_share": None,
        "facts": {"const_bytes_moved": total, "dtcm_free_bytes": free, "measured": bool(quotes)},
    }


__all__ = [
    "goal_hints",
    "knob_hints",
    "placeholder_shape_hint",
    "placement_hint",
    "quoted_measurements",
    "setting_hints",
]
