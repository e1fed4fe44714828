"""The records a conversion writes beside the C: plan, report, residency, and the golden test case."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from helia_aot.air import AirModel
from helia_aot.codegen import c_float, c_float_list, c_int_list
from helia_aot.errors import InvalidConfigError
from helia_aot.optimization import PLAN_SCHEMA_VERSION, REPORT_SCHEMA_VERSION
from helia_aot.pipeline.plan import MemoryPlan


def arena_row(region: Any) -> dict[str, Any]:
    return {"region": region.id, "role": region.role, "memory": region.memory, "used": region.used,
            "total_size": region.total_size, "capacity": region.capacity, "peak_live": region.peak_live,
            "alignment": region.alignment}


def _kernel_choice(op: Any) -> dict[str, Any] | None:
    families = list(getattr(op, "kernel_families", lambda: ())())
    calls = op.kernel_calls() or {}
    if not families and not calls:
        return None
    return {"family": ",".join(families) or None, "entry": ",".join(sorted(set(calls.values()))) or None}


def plan_record(model: AirModel, operators: list[Any], platform: Any) -> dict[str, Any]:
    return {
        "schema_version": PLAN_SCHEMA_VERSION,
        "model": model.name,
        "platform": getattr(platform, "name", "custom"),
        "operators": [
            {"id": op.id, "index": i, "op_type": op.op.op_type, "kernel": _kernel_choice(op),
             "knobs": dict(op.resolved_knobs), "source_indices": list(op.op.source_indices)}
            for i, op in enumerate(operators)
        ],
    }


def report_record(model: AirModel, operators: list[Any], platform: Any, plan: MemoryPlan) -> dict[str, Any]:
    rows = []
    for i, op in enumerate(operators):
        rows.append({"id": op.id, "index": i, "op_type": op.op.op_type, "macs": op.macs(),
                     "parameters": op.parameters(), "kernel_calls": op.kernel_calls(), "hints": []})
    return {
        "schema_version": REPORT_SCHEMA_VERSION,
        "model": model.name,
        "platform": getattr(platform, "name", "custom"),
        "operators": rows,
        "arenas": [arena_row(r) for r in plan.regions],
        "total_macs": sum(r["macs"] or 0 for r in rows),
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
    from helia_aot.golden import load_golden, reference_golden

    test = config.test
    if test.golden_data:
        golden = load_golden(Path(test.golden_data), model)
    else:
        golden = reference_golden(Path(config.model.path), model, samples=int(test.samples or 1))
    limit = int(test.samples) if test.samples else golden.num_samples
    prefix = config.module.prefix
    arrays, checks = [], []
    for role, ids, data in (("input", model.inputs, golden.inputs), ("output", model.outputs, golden.outputs)):
        for i, tid in enumerate(ids):
            tensor = model.tensors[tid]
            is_float = tensor.dtype.value == "float32"
            symbol = f"{prefix}_test_{role}_{i}"
            arrays.append(_Array(symbol, tensor.ctype, tensor.size, tensor.nbytes, role, i,
                                 [_c_values(s, is_float) for s in data[i][:limit]]))
            if role == "output":
                checks.append(_OutputCheck(i, tensor.ctype, tensor.size, symbol, tensor.dtype.is_float))
    tolerance = float(test.tolerance or 0.0)
    if tolerance < 0:
        raise InvalidConfigError("test.tolerance must not be negative")
    return {"arrays": arrays, "outputs_check": checks, "num_samples": min(limit, golden.num_samples),
            "tolerance_c": repr(tolerance)}


def write_module_extras(module_dir: Path, model: AirModel, operators: list[Any], plan: MemoryPlan,
                        platform: Any, config: Any) -> None:
    """Optional files: the residency report."""
    if config.memory.dump_residency_json:
        from helia_aot.pipeline.emit import plan_hash

        record = {
            "schema_version": 5,
            "plan_hash": plan_hash(model, plan, operators),
            "arenas": {},
            "tensors": [],
        }
        for region in plan.regions:
            row = {"region_id": region.id, "memory": region.memory, "used": region.used,
                   "total_size": region.total_size, "alignment": region.alignment}
            if region.role == "scratch":
                row.update(peak_live=region.peak_live, fragmentation=region.fragmentation)
            record["arenas"].setdefault(region.role, []).append(row)
        for tid, tensor in model.tensors.items():
            p = plan.placements.get(tid)
            if p is None:
                continue
            region = plan.regions[p.region]
            record["tensors"].append({"id": tid, "name": tensor.name, "role": region.role,
                                      "memory": region.memory, "offset": p.offset, "size": p.size})
        (module_dir / f"{config.module.prefix}_residency.json").write_text(
            json.dumps(record, indent=2) + "\n", encoding="utf-8")


def result_views(model: AirModel, operators: list[Any], plan: MemoryPlan, config: Any) -> dict[str, Any]:
    raise InvalidConfigError("result_views is not available in this release",
                             hint="read the module's plan, report and residency files instead")


__all__ = ["arena_row", "c_float", "plan_record", "report_record", "result_views", "test_case_values",
           "write_module_extras"]
