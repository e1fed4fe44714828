"""The records a conversion writes beside the C: plan, report, residency, and the golden test case.

The plan says what the compiler decided per operator (kernel, knob values, attributes), the report
the figures behind it (MACs, parameters, kernel calls, arenas) and the hints a person should read,
and the residency report the memory layout. Their shapes are the contract tools gate builds on, so
each is built in one function here and read back through ``helia_aot.optimization``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import TypeAdapter

from helia_aot.air import AirModel
from helia_aot.codegen import c_float, c_float_list, c_int_list
from helia_aot.errors import InvalidConfigError
from helia_aot.golden import load_golden, reference_golden
from helia_aot.optimization import (
    PLAN_SCHEMA_VERSION,
    REPORT_SCHEMA_VERSION,
    HintKind,
    OptimizationPlan,
    OptimizationReport,
)
from helia_aot.optimization.figures import operator_macs, operator_parameters
from helia_aot.pipeline.emit import plan_hash
from helia_aot.pipeline.html_report import render_module_report
from helia_aot.pipeline.occupancy import RegionOccupancy, scratch_occupancy
from helia_aot.pipeline.plan import MemoryPlan
from helia_aot.pipeline.resolve import _matches as rule_matches  # the rule reach Resolve applies
from helia_aot.pipeline.result_views import build_views

RESIDENCY_SCHEMA_VERSION = 5
ARENA_ROLES = ("scratch", "persistent", "constant")

# What the core does when a knob is left on auto or asks for something no kernel offers: the
# built-in kernels are one shared, reference-exact implementation per operator type.
DEFAULT_KNOBS = {"kernel": "generic", "accumulation": "precise"}


def arena_row(region: Any) -> dict[str, Any]:
    """One arena for the report and the CLI's results panel."""
    return {
        "region": region.id,
        "role": region.role,
        "memory": region.memory,
        "used": region.used,
        "total_size": region.total_size,
        "capacity": region.capacity,
        "peak_live": region.peak_live,
        "alignment": region.alignment,
        "fragmentation": region.fragmentation if region.role == "scratch" else None,
    }


def _platform_name(platform: Any) -> str:
    return str(getattr(platform, "name", "custom"))


def _kernel_choice(op: Any) -> dict[str, Any] | None:
    families = list(getattr(op, "kernel_families", lambda: ())())
    calls = dict(op.kernel_calls() or {})
    if not families and not calls:
        return None
    return {
        "family": families[0] if families else None,
        "entry": next(iter(calls.values()), None),
        "families": families,
        "calls": calls,
    }


def requested_knobs(config: Any, op: Any) -> dict[str, str]:
    """The knob values the configuration asks of ``op``: global values, then the rules in order."""
    optimization = config.optimization
    requested = {"kernel": str(optimization.kernel), "accumulation": str(optimization.accumulation)}
    for rule in config.operators or ():
        if not rule_matches(rule, op):
            continue
        for name in requested:
            value = getattr(rule.optimization, name, None)
            if value is not None:
                requested[name] = str(value)
    return requested


def decided_knobs(aot_op: Any) -> dict[str, str]:
    """The knob values the operator runs with: its own resolved values over the core's defaults."""
    return {**DEFAULT_KNOBS, **{str(k): str(v) for k, v in aot_op.resolved_knobs.items()}}


def _attributes(aot_op: Any) -> dict[str, Any]:
    attributes = aot_op.attributes
    try:
        dumped: dict[str, Any] = TypeAdapter(type(attributes)).dump_python(attributes, mode="json")
        return dumped
    except (TypeError, ValueError):  # an attributes class pydantic cannot serialize still plans
        return {}


def plan_record(model: AirModel, operators: list[Any], platform: Any, config: Any) -> dict[str, Any]:
    """``<prefix>_plan.json``: each operator's id, layer index, type, kernel and knob values."""
    return {
        "schema_version": PLAN_SCHEMA_VERSION,
        "model": model.name,
        "platform": _platform_name(platform),
        "goal": str(config.optimization.goal),
        "operators": [
            {
                "id": op.id,
                "index": i,
                "op_type": op.op.op_type,
                "source_indices": list(op.op.source_indices),
                "kernel": _kernel_choice(op),
                "knobs": decided_knobs(op),
                "attributes": _attributes(op),
            }
            for i, op in enumerate(operators)
        ],
    }


def _hint(kind: HintKind, message: str) -> dict[str, str]:
    return {"kind": kind.value, "message": message}


def _operator_hints(aot_op: Any, config: Any) -> list[dict[str, str]]:
    hints = []
    decided = decided_knobs(aot_op)
    for name, wanted in requested_knobs(config, aot_op.op).items():
        if wanted not in ("auto", decided[name]):
            hints.append(
                _hint(
                    HintKind.KNOB_NOT_HONOURED,
                    f"optimization {name}: {wanted} was asked for, but {aot_op.op.op_type} "
                    f"has no {wanted} kernel; it runs {decided[name]}",
                )
            )
    if getattr(aot_op.attributes, "code_placement", None) == "ITCM" and not aot_op.code_in_itcm:
        hints.append(
            _hint(
                HintKind.CODE_PLACEMENT_IGNORED,
                f"code_placement: ITCM was asked for, but platform "
                f"{_platform_name(aot_op.platform)} has no ITCM; the code stays in default "
                "memory",
            )
        )
    return hints


def _peak_hint(occupancy: RegionOccupancy, index: int) -> dict[str, str]:
    live = sorted(occupancy.live_at(index), key=lambda t: (-t.size, t.offset))
    names = ", ".join(f"{t.name} ({t.size} B)" for t in live[:4]) + (", ..." if len(live) > 4 else "")
    return _hint(
        HintKind.SCRATCH_PEAK,
        f"{occupancy.peak_bytes} of the {occupancy.used} bytes of {occupancy.memory} scratch are "
        f"live here, the most at any operator: {names}",
    )


def _arena_hints(plan: MemoryPlan) -> list[dict[str, str]]:
    hints = []
    for region in plan.regions:
        if region.role != "scratch" or region.peak_live is None or region.used <= region.peak_live:
            continue
        advice = "" if region.planner == "hill_climb" else "; memory.planner: hill_climb may pack it tighter"
        hints.append(
            _hint(
                HintKind.FRAGMENTATION,
                f"the {region.memory} scratch arena needs {region.used} bytes, "
                f"{region.used - region.peak_live} more than the {region.peak_live} bytes "
                f"live at its peak{advice}",
            )
        )
    return hints


def report_record(
    model: AirModel, operators: list[Any], platform: Any, plan: MemoryPlan, config: Any
) -> dict[str, Any]:
    """``<prefix>_report.json``: per-operator figures and hints, the arenas, and the totals."""
    peaks: dict[int, list[dict[str, str]]] = {}
    for occupancy in scratch_occupancy(model, plan, len(operators)):
        index = occupancy.peak_index
        if index is not None and occupancy.peak_bytes:
            peaks.setdefault(index, []).append(_peak_hint(occupancy, index))
    rows = []
    for i, op in enumerate(operators):
        calls = op.kernel_calls()
        rows.append(
            {
                "id": op.id,
                "index": i,
                "op_type": op.op.op_type,
                "macs": operator_macs(op),
                "parameters": operator_parameters(op),
                "kernel_calls": None if calls is None else dict(calls),
                "hints": _operator_hints(op, config) + peaks.get(i, []),
            }
        )
    return {
        "schema_version": REPORT_SCHEMA_VERSION,
        "model": model.name,
        "platform": _platform_name(platform),
        "operators": rows,
        "arenas": [arena_row(r) for r in plan.regions],
        "hints": _arena_hints(plan),
        "total_macs": sum(r["macs"] or 0 for r in rows),
        "total_parameters": sum(r["parameters"] or 0 for r in rows),
    }


def tensor_layout_hash(model: AirModel, plan: MemoryPlan) -> str:
    """16 hex digits over the tensor enumeration and where each tensor lives.

    The plan hash also covers the schedule; this one changes only when a tensor is added, renamed,
    reshaped, retyped or moved, which is what code reading ``ctx->tensor_ptrs`` depends on.
    """
    digest = hashlib.sha256()
    for tid, tensor in model.tensors.items():
        p = plan.placements.get(tid)
        if p is None:
            where = "-"
        else:
            region = plan.regions[p.region]
            where = f"{region.role}:{region.memory}:{p.offset}:{p.size}"
        digest.update(f"{tensor.name}:{tensor.dtype}:{list(tensor.shape)}:{where};".encode())
    return digest.hexdigest()[:16]


def residency_record(model: AirModel, operators: list[Any], plan: MemoryPlan) -> dict[str, Any]:
    """``<prefix>_residency.json`` (schema_version 5): the arenas per role and every placed tensor."""
    arenas: dict[str, list[dict[str, Any]]] = {role: [] for role in ARENA_ROLES}
    for region in plan.regions:
        row = {
            "region_id": region.id,
            "memory": region.memory,
            "used": region.used,
            "total_size": region.total_size,
            "alignment": region.alignment,
        }
        if region.role == "scratch":
            row.update(peak_live=region.peak_live, fragmentation=region.fragmentation)
        if getattr(region, "staged", False):
            # A staged constant region is a RAM copy made at init; say where its bytes come from.
            row.update(
                source_region_id=region.source_region,
                source_memory=region.source_memory,
                source_offset=region.source_offset,
            )
        arenas.setdefault(region.role, []).append(row)
    tensors = []
    for tid, tensor in model.tensors.items():
        p = plan.placements.get(tid)
        if p is None:
            continue  # never read by the module, so never placed
        region = plan.regions[p.region]
        tensors.append(
            {
                "id": str(tid),
                "name": tensor.name,
                "role": region.role,
                "region_id": region.id,
                "memory": region.memory,
                "offset": p.offset,
                "size": p.size,
            }
        )
    return {
        "schema_version": RESIDENCY_SCHEMA_VERSION,
        "model": model.name,
        "plan_hash": plan_hash(model, plan, operators),
        "tensor_layout_hash": tensor_layout_hash(model, plan),
        "arenas": arenas,
        "tensors": tensors,
    }


@dataclass(slots=True)
class _Array:
    symbol: str
    ctype: str
    size: int
    nbytes: int
    role: str
    index: int
    samples: list[str]


@dataclass(slots=True)
class _OutputCheck:
    index: int
    ctype: str
    size: int
    symbol: str
    is_float: bool


def _c_values(array: np.ndarray, is_float: bool) -> str:
    flat = array.reshape(-1)
    if is_float:
        return c_float_list(flat.astype(np.float32).tolist())
    if flat.dtype == np.float16:
        return c_int_list(flat.view(np.uint16).tolist())
    return c_int_list(flat.astype(np.int64).tolist())


def test_case_values(model: AirModel, config: Any) -> dict[str, Any]:
    """Template values of ``<prefix>_test_case.c``: stimulus, expected outputs, tolerance."""
    test = config.test
    iterations = int(getattr(test, "num_iterations", 1) or 1)
    feedback = state_feedback_pairs(model, getattr(test, "state_feedback", None) or [])
    if test.golden_data:
        golden = load_golden(Path(test.golden_data), model)
    else:
        golden = reference_golden(
            Path(config.model.path),
            model,
            samples=int(test.samples or 1),
            iterations=iterations,
            feedback=feedback,
        )
    limit = int(test.samples) if test.samples else golden.num_samples
    prefix = config.module.prefix
    arrays, checks = [], []
    for role, ids, data in (
        ("input", model.inputs, golden.inputs),
        ("output", model.outputs, golden.outputs),
    ):
        for i, tid in enumerate(ids):
            tensor = model.tensors[tid]
            is_float = tensor.dtype.value == "float32"
            symbol = f"{prefix}_test_{role}_{i}"
            arrays.append(
                _Array(
                    symbol,
                    tensor.ctype,
                    tensor.size,
                    tensor.nbytes,
                    role,
                    i,
                    [_c_values(s, is_float) for s in data[i][:limit]],
                )
            )
            if role == "output":
                checks.append(_OutputCheck(i, tensor.ctype, tensor.size, symbol, tensor.dtype.is_float))
    tolerance = float(test.tolerance or 0.0)
    if tolerance < 0:
        raise InvalidConfigError("test.tolerance must not be negative")
    return {
        "arrays": arrays,
        "outputs_check": checks,
        "num_samples": min(limit, golden.num_samples),
        "tolerance_c": repr(tolerance),
        "num_iterations": iterations,
        "feedback": feedback,
        "fed_inputs": {i for _, i in feedback},
    }


def state_feedback_pairs(model: AirModel, pairs: Any) -> list[tuple[int, int]]:
    """``test.state_feedback`` checked against the model: each ``(output, input)`` pair in range,
    the two tensors of one shape and dtype, and no input fed by two outputs."""
    checked: list[tuple[int, int]] = []
    fed: set[int] = set()
    for pair in pairs:
        out_index, in_index = (int(v) for v in pair)
        if not 0 <= out_index < len(model.outputs) or not 0 <= in_index < len(model.inputs):
            raise InvalidConfigError(
                f"test.state_feedback pair {[out_index, in_index]} is out of range",
                hint=f"the model has {len(model.outputs)} output(s) and {len(model.inputs)} input(s); "
                "write [output_index, input_index] with indices counted from 0",
            )
        out_t = model.tensors[model.outputs[out_index]]
        in_t = model.tensors[model.inputs[in_index]]
        if tuple(out_t.shape) != tuple(in_t.shape) or out_t.dtype != in_t.dtype:
            raise InvalidConfigError(
                f"test.state_feedback pair {[out_index, in_index]} joins output {out_index} "
                f"({out_t.dtype}{list(out_t.shape)}) and input {in_index} ({in_t.dtype}{list(in_t.shape)})",
                hint="feed an output back only into an input of the same shape and dtype",
            )
        if in_index in fed:
            raise InvalidConfigError(
                f"test.state_feedback feeds input {in_index} from more than one output",
                hint="keep one pair per input",
            )
        fed.add(in_index)
        checked.append((out_index, in_index))
    return checked


def write_module_extras(
    module_dir: Path,
    model: AirModel,
    operators: list[Any],
    plan: MemoryPlan,
    platform: Any,
    config: Any,
    *,
    views: dict[str, Any] | None = None,
    records: dict[str, Any] | None = None,
) -> None:
    """Optional files: the residency report and the HTML report (``documentation.html``)."""
    prefix = config.module.prefix
    if config.memory.dump_residency_json:
        (module_dir / f"{prefix}_residency.json").write_text(
            json.dumps(residency_record(model, operators, plan), indent=2) + "\n", encoding="utf-8"
        )
    if getattr(config.documentation, "html", False):
        records = records or {
            "plan": plan_record(model, operators, platform, config),
            "report": report_record(model, operators, platform, plan, config),
        }
        views = views or result_views(model, operators, plan, config)
        text = render_module_report(
            prefix=prefix,
            views=views,
            plan=OptimizationPlan.model_validate(records["plan"]),
            report=OptimizationReport.model_validate(records["report"]),
            occupancy=scratch_occupancy(model, plan, len(operators)),
            plan_hash=plan_hash(model, plan, operators),
        )
        (module_dir / f"{prefix}_report.html").write_text(text, encoding="utf-8", newline="\n")


def result_views(model: AirModel, operators: list[Any], plan: MemoryPlan, config: Any) -> dict[str, Any]:
    """The ConversionResult's operators, tensors, regions and placements (``result_views: true``)."""
    return build_views(model, operators, plan, config)


__all__ = [
    "ARENA_ROLES",
    "DEFAULT_KNOBS",
    "RESIDENCY_SCHEMA_VERSION",
    "arena_row",
    "c_float",
    "decided_knobs",
    "plan_record",
    "report_record",
    "requested_knobs",
    "residency_record",
    "result_views",
    "tensor_layout_hash",
    "test_case_values",
    "write_module_extras",
]
