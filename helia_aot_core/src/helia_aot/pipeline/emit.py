"""Emit: render the module's C sources, build files and records into a work directory.

Layout (the C contract): ``includes-api/`` holds the public headers (``<prefix>_model.h``,
``_context.h``, ``_tensors.h``, ``_common.h``, ``_platform.h`` and one header per operator);
``src/`` the model, constants and operator sources, and ``src/kernels/`` the kernel library files
the operators use, renamed to the module's prefix so two modules can link into one image.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from helia_aot.air import AirModel, AirTensorKind, c_comment
from helia_aot.codegen import c_float, c_hex_bytes, render_template
from helia_aot.pipeline.plan import MemoryPlan

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
    id: int
    role: str
    memory: str
    total_size: int
    alignment: int
    symbol: str


def plan_hash(model: AirModel, plan: MemoryPlan, operators: list[Any]) -> str:
    """16 hex digits over the schedule and every placement: a change says the layout changed."""
    digest = hashlib.sha256()
    for op in operators:
        digest.update(f"{op.op.op_type}:{op.op.id};".encode())
    for tid, tensor in model.tensors.items():
        p = plan.placements.get(tid)
        digest.update(f"{tensor.name}:{p.region if p else -1}:{p.offset if p else -1}:"
                      f"{tensor.nbytes};".encode())
    for r in plan.regions:
        digest.update(f"{r.role}:{r.memory}:{r.total_size}:{r.alignment};".encode())
    return digest.hexdigest()[:16]


def region_symbol(prefix: str, region: Any) -> str:
    return f"{prefix}_arena_{region.role}_{region.memory.lower()}"


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
) -> str:
    """Write the module into ``out_dir`` (created) and return the plan hash."""
    prefix = config.module.prefix
    inc, src = out_dir / "includes-api", out_dir / "src"
    inc.mkdir(parents=True)
    src.mkdir(parents=True)
    allocate = bool(config.memory.allocate_arenas)
    schedule = str(getattr(config.module.schedule, "value", config.module.schedule))

    regions = [_RegionRow(r.id, r.role, r.memory, r.total_size, r.alignment, region_symbol(prefix, r))
               for r in plan.regions]
    tensor_rows = []
    for tid, tensor in model.tensors.items():
        p = plan.placements.get(tid)
        comment = c_comment(f"{tensor.kind} {tensor.dtype}{list(tensor.shape)} {tensor.source_name}")
        tensor_rows.append(_TensorRow(tensor.name, comment, f"{p.region}u" if p else NOT_PLACED,
                                      p.offset if p else 0))

    def io_row(tid: str) -> _IoRow:
        t = model.tensors[tid]
        return _IoRow(t.name, t.nbytes, t.zero_point(), c_float(t.scale()))

    memories = sorted({r.memory for r in plan.regions} | _platform_memories(platform))
    hash_ = plan_hash(model, plan, operators)
    values = dict(
        prefix=prefix, PREFIX=prefix.upper(), model_comment=c_comment(model.name),
        platform_name=c_comment(getattr(platform, "name", "custom")), memories=memories,
        tensors=tensor_rows, inputs=[model.tensors[t] for t in model.inputs],
        outputs=[model.tensors[t] for t in model.outputs], regions=regions,
        num_operators=len(operators), operators=operators, allocate_arenas=allocate,
        schedule=schedule, plan_hash=hash_,
    )
    io_values = dict(values, inputs=[io_row(t) for t in model.inputs],
                     outputs=[io_row(t) for t in model.outputs])

    def write(path: Path, text: str) -> None:
        path.write_text(text, encoding="utf-8", newline="\n")

    write(inc / f"{prefix}_platform.h", render_template("platform.h.mako", **values))
    write(inc / f"{prefix}_tensors.h", render_template("tensors.h.mako", **values))
    write(inc / f"{prefix}_context.h", render_template("context.h.mako", **values))
    write(inc / f"{prefix}_common.h", render_template("common.h.mako", **values))
    write(inc / f"{prefix}_model.h", render_template("model.h.mako", **values))
    write(src / f"{prefix}_model.c", render_template("model.c.mako", **io_values))
    for region in plan.regions:
        if region.role != "constant":
            continue
        blob = plan.constant_blobs[region.id]
        blob = blob + b"\0" * (region.total_size - len(blob))
        write(src / f"{prefix}_constants_{region.memory.lower()}.c", render_template(
            "constants.c.mako", prefix=prefix, PREFIX=prefix.upper(),
            model_comment=c_comment(model.name), nbytes=region.used, total_size=region.total_size,
            symbol=region_symbol(prefix, region), alignment=region.alignment, memory=region.memory,
            data=c_hex_bytes(blob)))
    for op in operators:
        op.emit(out_dir)
    copy_kernels(operators, src / "kernels", prefix)
    if test_case is not None:
        write(inc / f"{prefix}_test_case.h", render_template("test_case.h.mako", **values))
        write(src / f"{prefix}_test_case.c", render_template("test_case.c.mako", **values, **test_case))
    module_name = config.module.name
    write(out_dir / "CMakeLists.txt", render_template(
        "CMakeLists.txt.mako", module_name=module_name, PREFIX=prefix.upper(),
        model_comment=c_comment(model.name)))
    for name, record in records.items():
        write(out_dir / f"{prefix}_{name}.json", json.dumps(record, indent=2, sort_keys=False) + "\n")
    write(out_dir / "README.md", render_template(
        "README.md.mako", module_name=module_name, prefix=prefix, model=model, regions=plan.regions,
        platform_name=getattr(platform, "name", "custom"), plan_hash=hash_,
        io=[(i, "input", model.tensors[t]) for i, t in enumerate(model.inputs)]
        + [(i, "output", model.tensors[t]) for i, t in enumerate(model.outputs)]))
    return hash_


def _platform_memories(platform: Any) -> set[str]:
    memories = getattr(platform, "memories", ())
    try:
        keys = list(memories.keys())
    except AttributeError:
        keys = [m for m, _ in memories]
    return {str(getattr(m, "value", m)).upper() for m in keys}


def scrub(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


__all__ = ["AirTensorKind", "emit_module", "plan_hash", "region_symbol", "scrub"]
