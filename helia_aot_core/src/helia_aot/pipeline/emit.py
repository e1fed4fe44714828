"""Emit: render the module's C sources, build files and records into a work directory.

Layout (the C contract): ``includes-api/`` holds the public headers (``<prefix>_model.h``,
``_context.h``, ``_tensors.h``, ``_common.h``, ``_platform.h`` and one header per operator);
``src/`` the model, constants and operator sources, and ``src/kernels/`` the kernel library files
the operators use, renamed to the module's prefix so two modules can link into one image. The
exporter registered for ``module.type`` then adds its build files, and the README describes the
module and how to integrate it with that build system.
"""

from __future__ import annotations

import hashlib
import json
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from helia_aot.air import AirModel, AirTensor, TensorId, c_comment
from helia_aot.codegen import c_float, c_hex_bytes, render_template
from helia_aot.exporters.base import ModuleExporter, ModuleLayout
from helia_aot.pipeline.plan import ArenaRegion, MemoryPlan
from helia_aot.registry.registry import Registry
from helia_aot.version import __version__

NOT_PLACED = "0xffffu"


@dataclass(slots=True)
class _TensorRow:
    name: str
    comment: str
    region_c: str
    offset: int


@dataclass(slots=True)
class _IoRow:
    name: str
    nbytes: int
    zero_point: int
    scale: str


@dataclass(slots=True)
class _RegionRow:
    """One arena as the C templates and the README see it."""

    id: int
    role: str
    memory: str
    used: int
    total_size: int
    alignment: int
    symbol: str
    macro: str
    cold: bool
    staged: bool
    source_symbol: str | None
    source_offset: int
    peak_live: int | None
    capacity: int | None
    source_memory: str | None


def plan_hash(model: AirModel, plan: MemoryPlan, operators: list[Any]) -> str:
    """16 hex digits over the schedule and every placement: a change says the layout changed."""
    digest = hashlib.sha256()
    for op in operators:
        digest.update(f"{op.op.op_type}:{op.op.id};".encode())
    for tid, tensor in model.tensors.items():
        p = plan.placements.get(tid)
        digest.update(
            f"{tensor.name}:{p.region if p else -1}:{p.offset if p else -1}:{tensor.nbytes};".encode()
        )
    for r in plan.regions:
        digest.update(f"{r.role}:{r.memory}:{r.total_size}:{r.alignment};".encode())
        if getattr(r, "source_region", None) is not None:
            digest.update(f"staged:{r.source_region}:{r.source_offset};".encode())
    return digest.hexdigest()[:16]


def region_symbol(prefix: str, region: Any) -> str:
    """The C object of a region: ``<prefix>_arena_<role>_<memory>`` (``_from_<source>`` if staged)."""
    tag = getattr(region, "tag", None) or f"{region.role}_{region.memory.lower()}"
    return f"{prefix}_arena_{tag}"


def source_symbol(prefix: str, plan: MemoryPlan, region: Any) -> str | None:
    """The constant array a staged region is copied from at init, or None for other regions."""
    source = getattr(region, "source_region", None)
    return None if source is None else region_symbol(prefix, plan.regions[source])


def copy_kernels(operators: list[Any], dest: Path, prefix: str) -> list[str]:
    """Copy each kernel file the operators need once, renaming ``hk_`` identifiers to the prefix."""
    files: dict[str, Path] = {}
    for op in operators:
        for path in op.kernel_sources():
            files.setdefault(path.name, path)
    if not files:
        return []
    dest.mkdir(parents=True, exist_ok=True)
    lower = re.compile(r"\bhk_")
    upper = re.compile(r"\bHK_")
    names = []
    for name in sorted(files):
        text = files[name].read_text(encoding="utf-8")
        text = upper.sub(f"{prefix.upper()}_HK_", lower.sub(f"{prefix}_hk_", text))
        target = dest / f"{prefix}_{name}"
        target.write_text(text, encoding="utf-8", newline="\n")
        names.append(target.name)
    return names


def _region_rows(prefix: str, plan: MemoryPlan) -> list[_RegionRow]:
    rows = []
    for r in plan.regions:
        staged = getattr(r, "source_region", None) is not None
        rows.append(
            _RegionRow(
                r.id,
                r.role,
                r.memory,
                r.used,
                r.total_size,
                r.alignment,
                region_symbol(prefix, r),
                f"{prefix.upper()}_ARENA_{getattr(r, 'tag', r.role + '_' + r.memory.lower()).upper()}",
                cold=r.role == "constant" and not staged,
                staged=staged,
                source_symbol=source_symbol(prefix, plan, r),
                source_offset=getattr(r, "source_offset", 0),
                peak_live=r.peak_live,
                capacity=r.capacity,
                source_memory=getattr(r, "source_memory", None),
            )
        )
    return rows


def itcm_operators(operators: list[Any], platform: Any) -> list[Any]:
    """Operators whose run code goes to ITCM; a request the platform cannot honour is a warning."""
    placed = []
    for op in operators:
        if getattr(op.attributes, "code_placement", "DEFAULT") != "ITCM":
            continue
        if op.code_in_itcm:
            placed.append(op)
        else:
            warnings.warn(
                f"operator {op.id} ({op.op.op_type}) asks for code_placement: ITCM, but platform "
                f"{getattr(platform, 'name', 'custom')!r} has no ITCM; its code stays in the "
                "default text section",
                UserWarning,
                stacklevel=3,
            )
    return placed


def _quantization_text(tensor: AirTensor) -> str:
    q = tensor.quantization
    if q is None:
        return "-"
    if q.per_channel:
        return f"per-channel, {q.scale.size} scales on axis {q.axis}"
    return f"scale {float(q.scale[0]):.9g}, zero point {int(q.zero_point[0])}"


def emit_module(
    out_dir: Path,
    model: AirModel,
    operators: list[Any],
    plan: MemoryPlan,
    platform: Any,
    config: Any,
    *,
    records: dict[str, Any],
    test_case: dict[str, Any] | None = None,
    exporters: Registry[type[ModuleExporter]],
) -> str:
    """Write the module into ``out_dir`` (created) and return the plan hash.

    ``exporters`` is the context's ``module_exporters``: the class registered under
    ``config.module.type`` writes the build files.
    """
    prefix = config.module.prefix
    module_type, exporter_class = exporters.select(config.module.type, setting="module.type")
    exporter = exporter_class()
    inc, src = out_dir / "includes-api", out_dir / "src"
    inc.mkdir(parents=True)
    src.mkdir(parents=True)
    allocate = bool(config.memory.allocate_arenas)
    schedule = str(getattr(config.module.schedule, "value", config.module.schedule))

    regions = _region_rows(prefix, plan)
    tensor_rows = []
    for tid, tensor in model.tensors.items():
        p = plan.placements.get(tid)
        comment = c_comment(f"{tensor.kind} {tensor.dtype}{list(tensor.shape)} {tensor.source_name}")
        tensor_rows.append(
            _TensorRow(tensor.name, comment, f"{p.region}u" if p else NOT_PLACED, p.offset if p else 0)
        )

    def io_row(tid: TensorId) -> _IoRow:
        t = model.tensors[tid]
        return _IoRow(t.name, t.nbytes, t.zero_point(), c_float(t.scale()))

    memories = sorted({r.memory for r in plan.regions} | _platform_memories(platform))
    hash_ = plan_hash(model, plan, operators)
    values: dict[str, Any] = {
        "prefix": prefix,
        "PREFIX": prefix.upper(),
        "model_comment": c_comment(model.name),
        "platform_name": c_comment(getattr(platform, "name", "custom")),
        "memories": memories,
        "tensors": tensor_rows,
        "inputs": [model.tensors[t] for t in model.inputs],
        "outputs": [model.tensors[t] for t in model.outputs],
        "regions": regions,
        "num_operators": len(operators),
        "operators": operators,
        "allocate_arenas": allocate,
        "schedule": schedule,
        "plan_hash": hash_,
        "itcm_operators": itcm_operators(operators, platform),
    }
    io_values = dict(
        values, inputs=[io_row(t) for t in model.inputs], outputs=[io_row(t) for t in model.outputs]
    )

    def write(path: Path, text: str) -> None:
        path.write_text(text, encoding="utf-8", newline="\n")

    write(inc / f"{prefix}_platform.h", render_template("platform.h.mako", **values))
    write(inc / f"{prefix}_tensors.h", render_template("tensors.h.mako", **values))
    write(inc / f"{prefix}_context.h", render_template("context.h.mako", **values))
    write(inc / f"{prefix}_common.h", render_template("common.h.mako", **values))
    write(inc / f"{prefix}_model.h", render_template("model.h.mako", **values))
    write(src / f"{prefix}_model.c", render_template("model.c.mako", **io_values))
    for region in regions:
        if not region.cold:
            continue
        blob = plan.constant_blobs[region.id]
        blob = blob + b"\0" * (region.total_size - len(blob))
        staged_here = [r for r in regions if r.staged and r.source_symbol == region.symbol]
        write(
            src / f"{prefix}_constants_{region.memory.lower()}.c",
            render_template(
                "constants.c.mako",
                prefix=prefix,
                PREFIX=prefix.upper(),
                model_comment=c_comment(model.name),
                region=region,
                staged=staged_here,
                data=c_hex_bytes(blob),
            ),
        )
    for op in operators:
        op.emit(out_dir)
    copy_kernels(operators, src / "kernels", prefix)
    if test_case is not None:
        write(inc / f"{prefix}_test_case.h", render_template("test_case.h.mako", **values))
        write(src / f"{prefix}_test_case.c", render_template("test_case.c.mako", **values, **test_case))
    for name, record in records.items():
        write(out_dir / f"{prefix}_{name}.json", json.dumps(record, indent=2, sort_keys=False) + "\n")

    module_name = config.module.name
    layout = ModuleLayout.scan(
        out_dir,
        name=module_name,
        prefix=prefix,
        model_name=model.name,
        platform=platform,
        plan_hash=hash_,
        version=__version__,
    )
    if getattr(getattr(config, "documentation", None), "readme", True):
        write(
            out_dir / "README.md",
            render_template(
                "README.md.mako",
                **values,
                layout=layout,
                module_type=module_type,
                exporter_title=exporter.TITLE,
                integration=exporter.integration(layout),
                io=[(i, "input", model.tensors[t]) for i, t in enumerate(model.inputs)]
                + [(i, "output", model.tensors[t]) for i, t in enumerate(model.outputs)],
                quantization=_quantization_text,
            ),
        )
    exporter.write(layout)
    return hash_


def _platform_memories(platform: Any) -> set[str]:
    memories: Any = getattr(platform, "memories", ())
    try:
        keys = list(memories.keys())
    except AttributeError:
        keys = [m for m, _ in memories]
    return {str(getattr(m, "value", m)).upper() for m in keys}


__all__ = [
    "ArenaRegion",
    "emit_module",
    "itcm_operators",
    "plan_hash",
    "region_symbol",
    "source_symbol",
]
