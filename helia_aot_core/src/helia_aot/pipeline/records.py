"""The records a conversion writes beside the C: plan, report, residency, and the golden test case.

The plan says what the compiler decided per operator (kernel, knob values, attributes), the report
the figures behind it (MACs, parameters, kernel calls, arenas) and the hints a person should read,
and the residency report the memory layout. Their shapes are the contract tools gate builds on, so
each is built in one function here and read back through ``helia_aot.optimization``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter

from helia_aot.air import AirModel
from helia_aot.codegen import c_float
from helia_aot.codegen.json_text import dumps_indented
from helia_aot.optimization.figures import operator_macs, operator_parameters
from helia_aot.optimization.knobs import KNOBS
from helia_aot.optimization.record_constants import PLAN_SCHEMA_VERSION, REPORT_SCHEMA_VERSION, HintKind
from helia_aot.pack.template_operator import TemplateOperator
from helia_aot.pipeline import access_cost
from helia_aot.pipeline.arena_planner import bound_outputs
from helia_aot.pipeline.bound_regions import is_bound, shared_arena_record
from helia_aot.pipeline.emit import CRegion, c_regions, plan_hash
from helia_aot.pipeline.knob_hints import placeholder_shape_hint, quoted_measurements, setting_hints
from helia_aot.pipeline.occupancy import RegionOccupancy, scratch_occupancy
from helia_aot.pipeline.operator_ids import plan_operator_id_sources
from helia_aot.pipeline.plan_records import ArenaRegion, MemoryPlan
from helia_aot.pipeline.resolve import _matches as rule_matches  # the rule reach Resolve applies
from helia_aot.version import __version__

if TYPE_CHECKING:
    from helia_aot.air import AirOperator
    from helia_aot.aot.operators.base import AotOperator
    from helia_aot.config.args import ConvertArgs
    from helia_aot.platforms.model import SocPlatform

RESIDENCY_SCHEMA_VERSION = 5
ARENA_ROLES = ("scratch", "persistent", "constant")

# What the core does when a knob is left on auto or asks for something no kernel offers: the
# built-in kernels are one shared, reference-exact implementation per operator type.
DEFAULT_KNOBS = {"kernel": "generic", "accumulation": "precise"}

# The knobs the plan and report record, and the operator types each exists for, read from the
# built-in knob specs (helia_aot.optimization.knobs); a knob value in APPROXIMATE_KNOB_VALUES
# changes numerics against the knob's default.
KNOB_NAMES = tuple(spec.name for spec in KNOBS)
KNOB_APPLIES_TO: dict[str, frozenset[str]] = {spec.name: spec.applies_to for spec in KNOBS}
KNOB_VALUES: dict[str, tuple[str, ...]] = {spec.name: spec.values for spec in KNOBS}
APPROXIMATE_KNOB_VALUES: dict[str, frozenset[str]] = {spec.name: spec.approximate_values for spec in KNOBS}

# The plan's ``generator.cmsis_nn_required``: empty, because the module carries its own kernels
# and needs no CMSIS-NN release.
CMSIS_NN_REQUIRED = ""


def arena_row(region: ArenaRegion) -> dict[str, Any]:
    """One arena for the report and the CLI's results panel."""
    return {
        "region": region.id,
        "role": region.role,
        "memory": region.memory,
        "used": region.used,
        "total_size": region.total_size,
        "capacity": region.capacity,
        "peak_live": region.peak_live,
        "tensor_peak_live": region.tensor_peak_live,
        "alignment": region.alignment,
        "fragmentation": region.fragmentation if region.role == "scratch" else None,
    }


def _platform_name(platform: SocPlatform) -> str:
    return platform.name


def _kernel_choice(op: AotOperator) -> dict[str, Any] | None:
    """The plan's ``kernel``: the main entry (null when the operator calls none) and our extras;
    the kernel families are a :class:`TemplateOperator`'s (it copies kernels by family)."""
    families = list(op.kernel_families()) if isinstance(op, TemplateOperator) else []
    calls = dict(op.kernel_calls() or {})
    entry = next(iter(calls.values()), None)
    if entry is None:
        return None
    return {
        "entry": entry,
        "provider": None,
        "local_scratch_bytes": None,
        # Our kernel library has one reference-exact implementation per operator type, so the
        # entry is the only candidate.
        "candidates": [entry],
        "requantization": None,
        "family": families[0] if families else None,
        "families": families,
        "calls": calls,
    }


def _requests(config: ConvertArgs, op: AirOperator) -> dict[str, tuple[str, dict[str, Any]]]:
    """Each knob's requested value for ``op`` and its source, as the plan's ``KnobSource`` says it.

    The model-wide ``optimization`` section first (source ``model`` when not ``auto``, else
    ``default``), then every ``operators[]`` rule reaching ``op`` in order (source ``operator``).
    """
    optimization = config.optimization
    requested: dict[str, tuple[str, dict[str, Any]]] = {}
    for name in KNOB_NAMES:
        value = str(getattr(optimization, name, "auto") or "auto")
        requested[name] = (value, {"kind": "default" if value == "auto" else "model", "rule": None})
    for index, rule in enumerate(config.operators or ()):
        if not rule_matches(rule, op):
            continue
        for name in requested:
            asked = getattr(rule.optimization, name, None)
            if asked is not None:
                rule_ref = {"index": index, "type": str(rule.type), "id": rule.id}
                requested[name] = (str(asked), {"kind": "operator", "rule": rule_ref})
    return requested


def requested_knobs(config: ConvertArgs, op: AirOperator) -> dict[str, str]:
    """The knob values the configuration asks of ``op``: global values, then the rules in order."""
    return {name: value for name, (value, _source) in _requests(config, op).items()}


def decided_knobs(aot_op: AotOperator) -> dict[str, str]:
    """The knob values the operator runs with: its own resolved values over the core's defaults."""
    return {**DEFAULT_KNOBS, **{str(k): str(v) for k, v in aot_op.resolved_knobs.items()}}


def operator_knobs(aot_op: AotOperator) -> tuple[str, ...]:
    """The knobs that exist for the operator's type: those resolved for it (a pack may add some),
    else the built-in knobs whose ``applies_to`` names its type, in ``KNOB_NAMES`` order."""
    choices = getattr(aot_op, "knob_choices", None) or {}
    if choices:
        return tuple(choices)
    return tuple(name for name in KNOB_NAMES if aot_op.op.op_type in KNOB_APPLIES_TO[name])


def plan_knobs(aot_op: AotOperator, config: ConvertArgs) -> dict[str, dict[str, Any]]:
    """The plan's ``knobs`` of one operator: value used, value asked for, and how and where from."""
    choices = getattr(aot_op, "knob_choices", None) or {}
    decided = decided_knobs(aot_op)
    requests = _requests(config, aot_op.op) if len(choices) < len(operator_knobs(aot_op)) else {}
    knobs = {}
    for name in operator_knobs(aot_op):
        if name in choices:
            knobs[name] = choices[name].plan_record()
            continue
        wanted, source = requests[name]
        knobs[name] = {
            "value": decided[name],
            "requested": wanted,
            "resolved_by": "auto_table" if wanted == "auto" else "explicit",
            "source": source,
            "approximate": decided[name] in APPROXIMATE_KNOB_VALUES.get(name, ()),
        }
    return knobs


def _attributes(aot_op: AotOperator) -> dict[str, Any]:
    attributes = aot_op.attributes
    try:
        dumped: dict[str, Any] = TypeAdapter(type(attributes)).dump_python(attributes, mode="json")
        return dumped
    except (TypeError, ValueError):  # an attributes class pydantic cannot serialize still plans
        return {}


def plan_operator_ids(model: AirModel, operators: list[AotOperator]) -> list[tuple[str, str]]:
    """Each operator's plan id and how it was made (``id_source``), in execution order; the ids
    ``operators[].id`` rules match (:mod:`helia_aot.pipeline.operator_ids`)."""
    subgraph = int(getattr(model, "subgraph", 0) or 0)
    ids = plan_operator_id_sources(model, subgraph)
    return [ids[str(aot_op.op.id)] for aot_op in operators]


def _model_identity(config: ConvertArgs) -> dict[str, Any]:
    path = Path(str(config.model.path))
    try:
        sha256: str | None = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:  # a model given as bytes or removed since; the plan still says which file
        sha256 = None
    return {"file": path.name, "sha256": sha256, "subgraph": config.model.subgraph}


def _platform_identity(platform: SocPlatform) -> dict[str, Any]:
    capabilities = sorted(c.value.upper() for c in platform.capabilities)
    return {
        "name": _platform_name(platform),
        "cpu": platform.cpu,
        "capabilities": capabilities,
        "supports_fp16": "FP16" in capabilities,
    }


def _dropped_scratch(op: AotOperator) -> list[dict[str, Any]]:
    """``dropped_scratch`` (ours): each kernel buffer the memory-aware choice gave up, its bytes
    and the goal's reason, so the plan shows what the arena saving cost (empty: every kept)."""
    reasons = op.scratch_drop_reasons
    return [
        {"buffer": name, "bytes": nbytes, "reason": reasons.get(name, "")}
        for name, nbytes in sorted(op.dropped_scratch.items())
    ]


def plan_record(
    model: AirModel, operators: list[AotOperator], platform: SocPlatform, config: ConvertArgs
) -> dict[str, Any]:
    """``<prefix>_plan.json``: who wrote it, for which model and target, and each operator's choices.

    The shared fields come first in the order the heliaAOT 1.1 plan has them; ``source_indices``,
    ``attributes``, the kernel's ``family``/``families``/``calls`` and ``model_name`` are ours.
    """
    ids = plan_operator_ids(model, operators)
    plan: dict[str, Any] = {
        "schema_version": PLAN_SCHEMA_VERSION,
        "generator": {"helia_aot": __version__, "cmsis_nn_required": CMSIS_NN_REQUIRED},
        "model": _model_identity(config),
        "module_prefix": str(config.module.prefix),
        "platform": _platform_identity(platform),
        "optimization": {
            "goal": str(config.optimization.goal),
            "allow_approximate": bool(getattr(config.optimization, "allow_approximate", False)),
            "knobs": {},
        },
        "operators": [
            {
                "id": plan_id,
                "id_source": id_source,
                "index": i,
                "node_id": str(op.op.id),
                "op_type": op.op.op_type,
                "knobs": plan_knobs(op, config),
                "fixed": {},
                "kernel": _kernel_choice(op),
                "source_indices": list(op.op.source_indices),
                "attributes": _attributes(op),
                "dropped_scratch": _dropped_scratch(op),
            }
            for i, (op, (plan_id, id_source)) in enumerate(zip(operators, ids, strict=True))
        ],
        "tensors": [],
        "model_name": model.name,
        **requantization_record(model),
    }
    source = source_record(model)
    if source is not None:  # only for a model another front end laid out: LiteRT plans keep their bytes
        plan["source"] = source
    return plan


def source_record(model: AirModel) -> dict[str, Any] | None:
    """The front end and the layout changes it made, for a model whose inputs or outputs the
    module holds in another layout than the file (``metadata["source_layouts"]``, see
    :func:`helia_aot.golden.source_layout`): golden data and test inputs in the file's layout
    are transposed by these perms (``module = transpose(file, perm)``). None otherwise."""
    layouts = model.metadata.get("source_layouts")
    if not layouts:
        return None
    return {
        "format": str(model.metadata.get("source_format", "")),
        "layouts": {
            role: [list(p) if p else None for p in layouts.get(role, [])] for role in ("inputs", "outputs")
        },
    }


def _hint(kind: HintKind, message: str) -> dict[str, str]:
    return {"kind": kind.value, "message": message}


def _operator_hints(aot_op: AotOperator, config: ConvertArgs) -> list[dict[str, str]]:
    hints = []
    for name, choice in (getattr(aot_op, "knob_choices", None) or {}).items():
        if not choice.honoured:
            hints.append(
                _hint(
                    HintKind.KNOB_NOT_HONOURED,
                    f"optimization {name}: {choice.wanted} was asked for, but {choice.reason}; "
                    f"{aot_op.op.op_type} runs {choice.value}",
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


def _report_knobs(aot_op: AotOperator) -> dict[str, dict[str, Any]]:
    """Per knob of the operator: the other values, and whether choosing one changes the operator.

    Applicable when the operator's kernels offer more than one value of the knob; otherwise the
    reason names the one value offered.
    """
    decided = decided_knobs(aot_op)
    choices = getattr(aot_op, "knob_choices", None) or {}
    rows = {}
    for name in operator_knobs(aot_op):
        values = KNOB_VALUES.get(name, (decided.get(name, ""),))
        offered = choices[name].offered if name in choices else (decided.get(name, ""),)
        applicable = len(offered) > 1
        rows[name] = {
            "alternatives": [v for v in values if v != decided.get(name)],
            "applicable": applicable,
            "reason": None
            if applicable
            else f"{aot_op.op.op_type} has one {offered[0]} kernel for these tensors",
        }
    return rows


def _kernel_calls(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Every kernel entry the module calls (sorted) and the plan ids calling it, in execution order."""
    by_symbol: dict[str, list[str]] = {}
    unrecorded = []
    for row in rows:
        calls = row["kernel_calls"]
        if calls is None:
            unrecorded.append(row["id"])
            continue
        for symbol in dict.fromkeys(calls.values()):
            by_symbol.setdefault(symbol, []).append(row["id"])
    return {
        "calls": [{"symbol": s, "operator_ids": ids} for s, ids in sorted(by_symbol.items())],
        "unrecorded_operator_ids": unrecorded,
    }


TCM_MEMORIES = ("DTCM", "ITCM")


def constant_placement(plan: MemoryPlan, platform: SocPlatform, config: ConvertArgs) -> dict[str, Any] | None:
    """The report's ``constant_placement``: constant bytes per memory against the DTCM left free.

    Null on a platform without DTCM. ``dtcm_free_bytes`` is the DTCM budget less every arena the
    module puts there; ``cold_source`` the memory outside TCM the kernels read cold constants from
    (the one holding most of them; null when every constant is read from TCM), as heliaAOT 1.1 says.
    """
    budgets = {m.value.upper(): n for m, n in platform.memories}
    if "DTCM" not in budgets:
        return None
    outside: dict[str, int] = {}
    inside = 0
    dtcm_used = 0
    cold_source: str | None = None
    for region in plan.regions:
        memory = str(region.memory).upper()
        if memory == "DTCM":
            dtcm_used += region.total_size
        if region.role != "constant" or (not region.staged and _is_staging_source(plan, region)):
            continue
        if memory in TCM_MEMORIES:
            inside += region.used
        else:
            outside[memory] = outside.get(memory, 0) + region.used
    if outside:
        cold_source = max(outside, key=lambda m: (outside[m], m))
    rules = [r for r in getattr(config.memory, "tensors", None) or () if str(r.type) == "constant" and r.id]
    return {
        "constant_bytes_outside_tcm": outside,
        "constant_bytes_in_tcm": inside,
        "dtcm_budget_bytes": budgets["DTCM"],
        "dtcm_free_bytes": max(0, budgets["DTCM"] - dtcm_used),
        "id_specific_constant_rules": len(rules),
        "cold_source": cold_source,
    }


def _is_staging_source(plan: MemoryPlan, region: ArenaRegion) -> bool:
    """Whether every byte of a cold constant region is only the source of staged regions."""
    staged_from = [r for r in plan.regions if r.staged and r.source_region == region.id]
    return bool(staged_from) and sum(r.used for r in staged_from) >= region.used


def placement_record(plan: MemoryPlan, platform: SocPlatform, prefix: str) -> dict[str, Any]:
    """The report's ``placement`` (:func:`helia_aot.pipeline.access_cost.placement_record`)."""
    names = {r.id: region_enum_name(prefix, r) for r in plan.regions}
    return access_cost.placement_record(plan, platform, names)


def report_record(
    model: AirModel,
    operators: list[AotOperator],
    platform: SocPlatform,
    plan: MemoryPlan,
    config: ConvertArgs,
) -> dict[str, Any]:
    """``<prefix>_report.json``: per-operator figures, kernel calls, constant placement and hints.

    The shared fields come first in the order the heliaAOT 1.1 report has them. ``measurements``
    quotes, per setting, the packaged ``measurements.json`` records for this target and CPU;
    ``hints`` says what another knob value would save (:mod:`helia_aot.pipeline.knob_hints`).
    Ours follow: the arenas, ``arena_hints`` (``{kind, message}``, the earlier top-level hints),
    the per-operator ``index``, ``op_type``, ``parameters``, ``kernel_calls`` and ``hints``, and
    the model and platform names.
    """
    peaks: dict[int, list[dict[str, str]]] = {}
    for occupancy in scratch_occupancy(model, plan, len(operators)):
        index = occupancy.peak_index
        if index is not None and occupancy.peak_bytes:
            peaks.setdefault(index, []).append(_peak_hint(occupancy, index))
    ids = plan_operator_ids(model, operators)
    placement = constant_placement(plan, platform, config)
    rows = []
    for i, (op, (plan_id, _source)) in enumerate(zip(operators, ids, strict=True)):
        calls = op.kernel_calls()
        calls = None if calls is None else dict(calls)
        macs = operator_macs(op)
        rows.append(
            {
                "id": plan_id,
                "macs": macs or 0,
                "entry": next(iter(calls.values()), None) if calls else None,
                "knobs": _report_knobs(op),
                "index": i,
                "op_type": op.op.op_type,
                "parameters": operator_parameters(op),
                "kernel_calls": calls,
                "hints": _operator_hints(op, config) + peaks.get(i, []),
                **_memory_technique(op),
            }
        )
    by_air = {str(op.op.id): pid for op, (pid, _) in zip(operators, ids, strict=True)}
    for row in rows:
        if row.get("patch_stage") is not None:
            row["patch_stage"] = by_air.get(row["patch_stage"], row["patch_stage"])
    report: dict[str, Any] = {
        "schema_version": REPORT_SCHEMA_VERSION,
        "plan_file": f"{config.module.prefix}_plan.json",
        "kernel_calls": _kernel_calls(rows),
        "total_macs": sum(r["macs"] for r in rows),
        "operators": rows,
        "measurements": quoted_measurements(platform),
        "constant_placement": placement,
        "hints": setting_hints(operators, ids, platform, config, placement)
        + [h for h in [placeholder_shape_hint(model.metadata.get("placeholder_inputs", []))] if h],
        "fp16_overflow": [],
        # What FOLD_INVARIANT_VARIABLES (an operator pack's transform) recorded on the model.
        "folded_variables": [dict(v) for v in model.metadata.get("folded_variables", [])],
        "arenas": [arena_row(r) for r in plan.regions],
        "arena_hints": _arena_hints(plan),
        "schedule": _schedule_row(
            plan, {str(op.op.id): pid for op, (pid, _) in zip(operators, ids, strict=True)}
        ),
        "model_name": model.name,
        "platform_name": _platform_name(platform),
        "total_parameters": sum(r["parameters"] or 0 for r in rows),
        "placement": placement_record(plan, platform, config.module.prefix),
    }
    source = source_record(model)
    if source is not None:  # the layout the golden path transposes from (see source_record)
        report["source"] = source
    # Only in modules that ask for them, so every other report keeps its bytes.
    own = {str(r.memory).lower(): r.total_size for r in plan.regions if r.role == "scratch"}
    shared = shared_arena_record(config, own)
    if shared is not None:
        report["shared_arena"] = shared
    if config.memory.bind_inputs:
        report["bound_inputs"] = [model.tensors[t].name for t in model.inputs]
    if config.memory.bind_outputs:
        report["bound_outputs"] = [
            model.tensors[t].name for t in model.outputs if t in bound_outputs(model, config)
        ]
    report.update(requantization_record(model))
    return report


def requantization_record(model: AirModel) -> dict[str, str]:
    """``{"requantization": mode}`` when a front end chose a mode other than LiteRT's (the ONNX
    front end records ``"onnx"`` in the model's metadata); empty otherwise, so every LiteRT
    module's plan and report keep their bytes."""
    mode = model.metadata.get("requantization", "litert")
    return {} if mode == "litert" else {"requantization": str(mode)}


def _memory_technique(aot_op: AotOperator) -> dict[str, Any]:
    """How the operator goes under the layer-by-layer bound (goal size), when it does."""
    stage = getattr(aot_op, "patch_stage", None)
    if stage is not None:
        return {"memory_technique": "patch", "ring_bytes": 0, "patch_stage": stage.operators[0]}
    if getattr(aot_op, "rows_in_place", False):
        ring = aot_op.get_local_tensor("rows").nbytes
        return {"memory_technique": "in_place", "ring_bytes": int(ring), "patch_stage": None}
    return {"memory_technique": None, "ring_bytes": 0, "patch_stage": None}


def _schedule_row(plan: MemoryPlan, plan_ids: dict[str, str]) -> dict[str, Any] | None:
    """The operator order the module runs and the two bounds: the tensors' peak in the model's
    layer-by-layer order and in the chosen order (equal unless ``goal: size`` reordered)."""
    schedule = plan.schedule
    if schedule is None:
        return None
    return {
        "method": schedule.method,
        "reordered": schedule.reordered,
        "layer_bound": schedule.layer_bound,
        "schedule_bound": schedule.schedule_bound,
        "order": [plan_ids.get(op_id, op_id) for op_id in schedule.order],
        "patches": [
            {
                "operators": [plan_ids.get(op_id, op_id) for op_id in stage.operators],
                "rows_per_band": stage.rows_per_band,
                "bands": stage.bands,
                "mode": stage.mode,
                "halo_rows": list(stage.halo_rows),
                "extra_macs": stage.extra_macs,
                "buffer_bytes": stage.buffer_bytes,
                "in_place": stage.in_place,
                "bound": stage.bound,
            }
            for stage in plan.patches
        ],
        "extra_macs": sum(stage.extra_macs for stage in plan.patches),
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


def pictured_occupancy(
    model: AirModel, operators: list[AotOperator], plan: MemoryPlan, platform: SocPlatform, prefix: str
) -> list[RegionOccupancy]:
    """The scratch regions as the memory picture draws them: each with its memory's wait states
    and its ``<prefix>_arena_region_t`` enumerator."""
    names = {r.id: region_enum_name(prefix, r) for r in plan.regions}
    return scratch_occupancy(model, plan, len(operators), platform.wait_states_of, names)


def region_enum_name(prefix: str, region: ArenaRegion) -> str:
    """The region's name in the module's arena region enumeration (``<prefix>_arena_<memory>``).

    Constant regions are ``<prefix>_arena_const_<memory>``, persistent ones
    ``<prefix>_arena_persistent_<memory>``.
    """
    memory = str(region.memory).lower()
    infix = {"scratch": "", "constant": "const_", "persistent": "persistent_"}.get(region.role, "")
    return f"{prefix}_arena_{infix}{memory}"


def _storage(region: CRegion, allocate: bool, bound: bool) -> dict[str, Any]:
    """Who provides a C region's bytes at run time and, for a staged region, where they come from.

    With the module's own arenas every region is its array (a cold constant region its
    ``__blob``); with ``allocate_arenas: false`` the application binds every region, and a
    constant region's bytes are also a sidecar file (the cold blob the application binds, the
    staged source it may place itself). ``bound``: the application binds this region (every
    region without the module's own arenas, the scratch regions with ``memory.shared_arena``).
    """
    source = None
    if region.staged:
        source = {
            "data_offset_bytes": 0,
            "memory": str(region.source_memory or region.memory).lower(),
            "owner": "generated",
            "size_bytes": region.used,
            "symbol": region.source,
        }
    sidecar = None
    if not allocate and region.role == "constant":
        payload = region.source if region.staged else region.blob
        size = region.used if region.staged else region.total_size
        sidecar = {"filename": f"{payload}.bin", "size_bytes": size}
    symbol = region.blob if region.cold else region.buffer
    return {
        "enum_name": region.enum,
        "runtime": {
            "data_offset_bytes": 0,
            "memory": region.memory.lower(),
            "owner": "application" if bound else "generated",
            "size_bytes": region.used,
            "symbol": None if bound else symbol,
        },
        "sidecar": sidecar,
        "source": source,
    }


def _budget(plan: MemoryPlan, region: ArenaRegion) -> int:
    """Bytes available to a scratch or persistent arena: its memory's cap less the other arenas there."""
    if region.capacity is None:
        return int(region.total_size)
    others = sum(r.total_size for r in plan.regions if r.memory == region.memory and r.id != region.id)
    return max(int(region.capacity) - others, int(region.total_size))


def residency_record(
    model: AirModel, operators: list[AotOperator], plan: MemoryPlan, config: ConvertArgs | None = None
) -> dict[str, Any]:
    """``<prefix>_residency.json`` (schema_version 5): the arenas per role and every placed tensor.

    The arenas are the regions an application binds: ``region_id`` is the region's value in the
    module's ``<prefix>_arena_region_t`` and ``storage.enum_name`` its enumerator, so a cold
    region that only stores the sources of staged regions is no arena here (each staged arena
    names its ``__source`` array instead), as in the C API. Memory names are lower case.
    ``total_size`` of a scratch or persistent arena is the bytes its memory leaves it (the cap less
    the other arenas there), of a constant arena its size; ``fragmentation`` is the bytes the arena
    holds beyond its peak of live bytes. Ours on top: ``reserved_size`` (the bytes the arena
    reserves), ``fragmentation_ratio``, ``capacity``, and each tensor's ``name`` and
    ``region_id``.
    """
    prefix = str(config.module.prefix) if config is not None else "aot"
    allocate = bool(config.memory.allocate_arenas) if config is not None else True
    counts: dict[int, int] = {}
    for placement in plan.placements.values():
        counts[placement.region] = counts.get(placement.region, 0) + 1
    cregions = c_regions(prefix, plan)
    c_index = {c.plan_id: c.index for c in cregions}
    arenas: dict[str, list[dict[str, Any]]] = {role: [] for role in ARENA_ROLES}
    for c in cregions:
        region = plan.regions[c.plan_id]
        row: dict[str, Any] = {
            "alignment": region.alignment,
            "memory": str(region.memory).lower(),
            "region_id": c.index,
            "storage": _storage(c, allocate, is_bound(config, c.role)),
            "used": region.used,
        }
        if region.role == "constant":
            row.update(
                kind="staged" if c.staged else "cold",
                source_memory=str(c.source_memory or c.memory).lower(),
                tensor_count=counts.get(region.id, 0),
                total_size=region.total_size,
            )
        else:
            peak = region.peak_live if region.peak_live is not None else region.used
            row.update(
                fragmentation=max(0, region.used - peak),
                fragmentation_ratio=region.fragmentation,
                peak_live=peak,
                total_size=_budget(plan, region),
            )
        row.update(reserved_size=region.total_size, capacity=region.capacity)
        arenas.setdefault(region.role, []).append(row)
    tensors = []
    for tid, tensor in model.tensors.items():
        p = plan.placements.get(tid)
        if p is None:
            continue  # never read by the module, so never placed
        placed = plan.regions[p.region]
        origin = plan.regions[placed.source_region] if placed.source_region is not None else placed
        tensors.append(
            {
                "id": str(tid),
                "memory": str(placed.memory).lower(),
                "offset": p.offset,
                "role": placed.role,
                "size": p.size,
                "source_memory": str(origin.memory).lower(),
                "name": tensor.name,
                "region_id": c_index[placed.id],
            }
        )
    return {
        "arenas": arenas,
        "compiler_version": __version__,
        "module_prefix": prefix,
        "plan_hash": plan_hash(model, plan, operators),
        "schema_version": RESIDENCY_SCHEMA_VERSION,
        "tensor_layout_hash": tensor_layout_hash(model, plan),
        "tensors": tensors,
        "model": model.name,
    }


def write_module_extras(
    module_dir: Path,
    model: AirModel,
    operators: list[AotOperator],
    plan: MemoryPlan,
    platform: SocPlatform,
    config: ConvertArgs,
    *,
    views: dict[str, Any] | None = None,
    records: dict[str, Any] | None = None,
) -> None:
    """Optional files: the residency report and the HTML report (``documentation.html``)."""
    prefix = config.module.prefix
    if config.memory.dump_residency_json:
        (module_dir / f"{prefix}_residency.json").write_text(
            dumps_indented(residency_record(model, operators, plan, config)) + "\n", encoding="utf-8"
        )
    if getattr(config.documentation, "html", False):
        records = records or {
            "plan": plan_record(model, operators, platform, config),
            "report": report_record(model, operators, platform, plan, config),
        }
        views = views or result_views(model, operators, plan, config)
        from helia_aot.optimization.records import OptimizationPlan, OptimizationReport
        from helia_aot.pipeline.html_report import render_module_report  # documentation.html only

        text = render_module_report(
            prefix=prefix,
            views=views,
            plan=OptimizationPlan.model_validate(records["plan"]),
            report=OptimizationReport.model_validate(records["report"]),
            occupancy=pictured_occupancy(model, operators, plan, platform, prefix),
            plan_hash=plan_hash(model, plan, operators),
        )
        (module_dir / f"{prefix}_report.html").write_text(text, encoding="utf-8", newline="\n")


def result_views(
    model: AirModel, operators: list[AotOperator], plan: MemoryPlan, config: ConvertArgs
) -> dict[str, Any]:
    """The ConversionResult's operators, tensors, regions and placements (``result_views: true``)."""
    # Imported here: only a conversion that asks for views (or the HTML report) builds them.
    from helia_aot.pipeline.result_views import build_views

    return build_views(model, operators, plan, config)


__all__ = [
    "ARENA_ROLES",
    "APPROXIMATE_KNOB_VALUES",
    "CMSIS_NN_REQUIRED",
    "DEFAULT_KNOBS",
    "KNOB_APPLIES_TO",
    "KNOB_NAMES",
    "KNOB_VALUES",
    "RESIDENCY_SCHEMA_VERSION",
    "arena_row",
    "c_float",
    "constant_placement",
    "decided_knobs",
    "operator_knobs",
    "plan_knobs",
    "plan_operator_ids",
    "pictured_occupancy",
    "region_enum_name",
    "plan_record",
    "report_record",
    "requested_knobs",
    "residency_record",
    "result_views",
    "tensor_layout_hash",
    "write_module_extras",
]
