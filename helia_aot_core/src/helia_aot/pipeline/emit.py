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
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from helia_aot.air import (
    AirModel,
    AirTensor,
    AirTensorKind,
    AirTensorType,
    TensorId,
    c_comment,
    region_layout,
)
from helia_aot.codegen import c_float, c_hex_bytes, render_template
from helia_aot.codegen.files import write_text_file
from helia_aot.codegen.json_text import dumps_indented
from helia_aot.exporters.base import ModuleExporter, ModuleLayout
from helia_aot.pack.kernel_library import kernel_text, scan_once
from helia_aot.pipeline.arena_planner import bound_outputs
from helia_aot.pipeline.bound_regions import is_bound, shared_scratch
from helia_aot.pipeline.plan_records import ArenaRegion, MemoryPlan
from helia_aot.registry.registry import Registry
from helia_aot.version import __version__

if TYPE_CHECKING:
    from helia_aot.aot.operators.base import AotOperator
    from helia_aot.config.args import ConvertArgs
    from helia_aot.platforms.model import SocPlatform

NOT_PLACED = "0xffffu"
# Memories whose placement hooks every module defines, whatever its platform has.
_HOOK_MEMORIES = frozenset({"PSRAM", "DRAM", "MRAM", "SRAM", "DTCM", "ITCM"})


# Never compared or printed: no generated __eq__/__repr__ (each costs start-up time).
@dataclass(slots=True, eq=False, repr=False)
class _TensorRow:
    name: str
    ident: str
    comment: str
    kind: str
    region: int | None
    offset: int
    size: int


# Never compared or printed: no generated __eq__/__repr__ (each costs start-up time).
@dataclass(slots=True, eq=False, repr=False)
class _IoRow:
    name: str
    length: int
    zero_point: int
    scale: str


# Never compared or printed: no generated __eq__/__repr__ (each costs start-up time).
@dataclass(slots=True, eq=False, repr=False)
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


_ROLE_ORDER = {"scratch": 0, "persistent": 1, "constant": 2}
_ROLE_STEM = {"scratch": "", "persistent": "persistent_", "constant": "const_"}


# Never compared or printed: no generated __eq__/__repr__ (each costs start-up time).
@dataclass(slots=True, eq=False, repr=False)
class CRegion:
    """One arena region of the C API (``<prefix>_arena_region_t``), in the C API's order.

    Regions come in role order (scratch, persistent, constant), then by memory name. A cold constant
    region that only stores the sources of staged regions is not a C region: each staged region
    carries its own ``__source`` array instead, so the application binds the same regions as with
    the product's module.
    """

    index: int
    plan_id: int
    enum: str
    role: str
    memory: str
    used: int
    total_size: int
    alignment: int
    cold: bool
    staged: bool
    macro: str
    source_memory: str | None
    source_plan_id: int | None
    source_offset: int
    bound: bool = False
    """Whether the application binds the region (``bound_regions.is_bound``) instead of the module
    defining its buffer; set by Emit, which knows the configuration."""

    @property
    def buffer(self) -> str:
        """The module's storage of a writable region (internal arenas)."""
        return f"{self.enum}_buffer"

    @property
    def blob(self) -> str:
        """The constant bytes of a cold region (and ``<blob>.bin``, its sidecar file)."""
        return f"{self.enum}__blob"

    @property
    def source(self) -> str:
        """The constant bytes a staged region is filled from (and ``<source>.bin``)."""
        return f"{self.enum}__source"


def c_regions(prefix: str, plan: MemoryPlan) -> list[CRegion]:
    """The plan's regions as the C API numbers and names them (see ``CRegion``)."""
    placed = {p.region for p in plan.placements.values()}
    kept = [r for r in plan.regions if not (r.role == "constant" and not r.staged and r.id not in placed)]
    kept.sort(key=lambda r: (_ROLE_ORDER.get(r.role, 3), r.memory.lower(), r.staged, r.id))
    rows: list[CRegion] = []
    taken: set[str] = set()
    for r in kept:
        name = f"{prefix}_arena_{_ROLE_STEM.get(r.role, r.role + '_')}{r.memory.lower()}"
        if name in taken and r.staged and r.source_memory:
            name = f"{name}_from_{r.source_memory.lower()}"
        base, n = name, 1
        while name in taken:
            n += 1
            name = f"{base}_{n}"
        taken.add(name)
        rows.append(
            CRegion(
                index=len(rows),
                plan_id=r.id,
                enum=name,
                role=r.role,
                memory=r.memory.upper(),
                used=r.used,
                total_size=r.total_size,
                alignment=r.alignment,
                cold=r.role == "constant" and not r.staged,
                staged=r.staged,
                macro=f"{prefix.upper()}_ARENA_{r.tag.upper()}",
                source_memory=r.source_memory.upper() if r.source_memory else None,
                source_plan_id=r.source_region,
                source_offset=r.source_offset,
            )
        )
    return rows


def tensor_ident(tensor: AirTensor) -> str:
    """The tail of a tensor's C API identifier ``<prefix>_tensor_<ident>``: the model's tensor index,
    or for a tensor an operator added its name without the ``t<N>_`` head (``conv_2d_0_scratch``)."""
    if str(tensor.id).isdigit():
        return str(tensor.id)
    return re.sub(r"^t\d+_", "", tensor.name)


def plan_hash(model: AirModel, plan: MemoryPlan, operators: list[AotOperator]) -> str:
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
        if r.source_region is not None:
            digest.update(f"staged:{r.source_region}:{r.source_offset};".encode())
    return digest.hexdigest()[:16]


def region_symbol(prefix: str, region: ArenaRegion) -> str:
    """The C storage of a region, as the C API names it: ``<prefix>_arena_const_<mem>__blob`` for a
    cold constant region, ``<enum>_buffer`` for the others (``<prefix>_arena_dtcm_buffer``)."""
    role = str(region.role)
    enum = f"{prefix}_arena_{_ROLE_STEM.get(role, role + '_')}{str(region.memory).lower()}"
    cold = role == "constant" and region.source_region is None
    return f"{enum}__blob" if cold else f"{enum}_buffer"


def source_symbol(prefix: str, plan: MemoryPlan, region: ArenaRegion) -> str | None:
    """The constant array a staged region is filled from (``<enum>__source``), None otherwise."""
    if region.source_region is None:
        return None
    return f"{prefix}_arena_const_{str(region.memory).lower()}__source"


KERNEL_NAME_PATTERNS = (re.compile(r"hk_(?<!\whk_)"), re.compile(r"HK_(?<!\wHK_)"))
"""``\bhk_`` and ``\bHK_`` (the kernel library's names, renamed to the module's prefix), written
literal-first: a pattern that starts with ``\b`` is tried at every character, one that starts with
a literal jumps between its occurrences (16 times faster; over every kernel file a module copies
this was a twentieth of a small model's conversion)."""


def copy_kernels(operators: list[AotOperator], dest: Path, prefix: str) -> list[str]:
    """Copy each kernel file the operators need once, renaming ``hk_`` identifiers to the prefix."""
    files: dict[str, Path] = {}
    with scan_once():  # the texts the scan read are the ones copied: each file is read once
        for op in operators:
            for path in op.kernel_sources():
                files.setdefault(path.name, path)
        if not files:
            return []
        dest.mkdir(parents=True, exist_ok=True)
        lower, upper = KERNEL_NAME_PATTERNS
        names = []
        for name in sorted(files):
            text = upper.sub(f"{prefix.upper()}_HK_", lower.sub(f"{prefix}_hk_", kernel_text(files[name])))
            target = dest / f"{prefix}_{name}"
            write_text_file(target, text)
            names.append(target.name)
        return names


def _region_rows(prefix: str, plan: MemoryPlan) -> list[_RegionRow]:
    rows = []
    for r in plan.regions:
        staged = r.source_region is not None
        rows.append(
            _RegionRow(
                r.id,
                r.role,
                r.memory,
                r.used,
                r.total_size,
                r.alignment,
                region_symbol(prefix, r),
                f"{prefix.upper()}_ARENA_{r.tag.upper()}",
                cold=r.role == "constant" and not staged,
                staged=staged,
                source_symbol=source_symbol(prefix, plan, r),
                source_offset=r.source_offset,
                peak_live=r.peak_live,
                capacity=r.capacity,
                source_memory=r.source_memory,
            )
        )
    return rows


def model_summary(model: AirModel, config: ConvertArgs) -> dict[str, str]:
    """The model's description and version as the module's docs show them, sanitized.

    ``model.description`` / ``model.version`` of the configuration win; otherwise the file's own
    description and its LiteRT schema version. Both come from the user or the model file, so they
    pass ``c_comment`` (one printable ASCII line that cannot end a C comment) and lose backticks,
    which would end the Markdown code span the README shows them in.
    """
    description = config.model.description
    if description is None:
        description = str(model.metadata.get("source_description", model.description) or "")
    version = config.model.version
    if version is None:
        schema = model.metadata.get("source_schema_version")
        version = "" if schema is None else str(schema)

    def clean(text: str) -> str:
        return c_comment(str(text)).replace("`", "'")

    return {"model_description": clean(description), "model_version": clean(version)}


def _model_file_name(config: ConvertArgs) -> str:
    """The model's file name for the README's commands (a placeholder when it has none, or one a
    shell command could not hold literally)."""
    name = config.model.path.name
    return name if re.fullmatch(r"[A-Za-z0-9_.+-]+", name) else "model.tflite"


def itcm_operators(operators: list[AotOperator], platform: SocPlatform) -> list[AotOperator]:
    """Operators whose run code goes to ITCM; a request the platform cannot honour is a warning."""
    placed = []
    for op in operators:
        if op.attributes.code_placement != "ITCM":
            continue
        if op.code_in_itcm:
            placed.append(op)
        else:
            warnings.warn(
                f"operator {op.id} ({op.op.op_type}) asks for code_placement: ITCM, but platform "
                f"{platform.name!r} has no ITCM; its code stays in the "
                "default text section",
                UserWarning,
                stacklevel=3,
            )
    return placed


# Never compared or printed: no generated __eq__/__repr__ (each costs start-up time).
@dataclass(slots=True, eq=False, repr=False)
class StateInit:
    """A persistent tensor that does not start from zero: where it lives and the bytes it starts
    from (a resource variable's CALL_ONCE value, a variable tensor's buffer)."""

    symbol: str
    comment: str
    region_enum: str
    offset: int
    nbytes: int
    data: str


def _initial_state(tensor: AirTensor) -> bytes | None:
    """The bytes a persistent tensor starts from, or None for zeros.

    A tensor with data starts from it. An int8 variable tensor without data starts at its zero
    point, as LiteRT's ResetVariableTensor fills it (the value an integer LSTM's output state
    holds before the first run); every other type starts at zero.
    """
    if tensor.data is not None:
        return np.asarray(tensor.data).astype(tensor.dtype.numpy, copy=False).tobytes(order="C")
    q = tensor.quantization
    if (
        tensor.dtype is AirTensorType.INT8
        and q is not None
        and not q.per_channel
        and tensor.zero_point() != 0
    ):
        return np.full(tensor.size, tensor.zero_point(), dtype=np.int8).tobytes()
    return None


def state_inits(prefix: str, model: AirModel, plan: MemoryPlan, cregions: list[CRegion]) -> list[StateInit]:
    """Every placed persistent tensor with a nonzero initial value (see :func:`_initial_state`), in
    tensor order.

    ``<prefix>_model_init`` and ``<prefix>_model_reset_state`` zero the persistent arenas and then
    copy these, so all-zero initial values need no copy and no bytes in the module.
    """
    by_plan_id = {r.plan_id: r for r in cregions}
    rows: list[StateInit] = []
    for tid, tensor in model.tensors.items():
        if tensor.kind is not AirTensorKind.PERSISTENT:
            continue
        payload = _initial_state(tensor)
        if payload is None:
            continue
        placement = plan.placements.get(tid)
        region = by_plan_id.get(placement.region) if placement is not None else None
        if region is None or not any(payload):
            continue
        rows.append(
            StateInit(
                symbol=f"{prefix}_state_init_{len(rows)}",
                comment=c_comment(f"tensor {tid} {tensor.source_name or tensor.name}"),
                region_enum=region.enum,
                offset=placement.offset if placement is not None else 0,
                nbytes=len(payload),
                data=c_hex_bytes(payload),
            )
        )
    return rows


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
    operators: list[AotOperator],
    plan: MemoryPlan,
    platform: SocPlatform,
    config: ConvertArgs,
    *,
    records: dict[str, Any],
    test_case: dict[str, Any] | None = None,
    exporters: Registry[type[ModuleExporter]],
) -> str:
    """Write the module into ``out_dir`` (created) and return the plan hash.

    ``exporters`` is the context's ``module_exporters``: the class registered under
    ``config.module.type`` adds its lines to the platform header and writes the build files.
    """
    prefix = config.module.prefix
    module_type, exporter_class = exporters.select(config.module.type, setting="module.type")
    exporter = exporter_class()
    inc, src = out_dir / "includes-api", out_dir / "src"
    out_dir.mkdir(parents=True, exist_ok=True)  # first: a mkdir that fails for want of it is a call lost
    inc.mkdir()
    src.mkdir()
    cregions = c_regions(prefix, plan)
    hash_ = plan_hash(model, plan, operators)
    values = _template_values(model, operators, plan, platform, config, cregions, hash_)
    values["platform_hooks"] = exporter.platform_hooks(prefix)
    _write_sources(out_dir, model, operators, plan, config, cregions, values, test_case)
    for name, record in records.items():
        write_text_file(out_dir / f"{prefix}_{name}.json", dumps_indented(record) + "\n")
    layout = ModuleLayout.scan(
        out_dir,
        name=config.module.name,
        prefix=prefix,
        model_name=model.name,
        platform=platform,
        plan_hash=hash_,
        version=__version__,
    )
    if config.documentation.readme:
        write_text_file(
            out_dir / "README.md", _readme(model, config, values, layout, module_type, exporter, test_case)
        )
    exporter.write(layout)
    return hash_


def _readme(
    model: AirModel,
    config: ConvertArgs,
    values: dict[str, Any],
    layout: ModuleLayout,
    module_type: str,
    exporter: ModuleExporter,
    test_case: dict[str, Any] | None,
) -> str:
    """The module's README: what it holds, its API and the exporter's integration section."""
    return render_template(
        "README.md.mako",
        **values,
        layout=layout,
        module_type=module_type,
        exporter_title=exporter.TITLE,
        integration=exporter.integration(layout),
        test_enabled=test_case is not None,
        model_file=_model_file_name(config),
        io=[(i, "input", model.tensors[t]) for i, t in enumerate(model.inputs)]
        + [(i, "output", model.tensors[t]) for i, t in enumerate(model.outputs)],
        quantization=_quantization_text,
    )


def _tensor_rows(model: AirModel, plan: MemoryPlan, cregions: list[CRegion]) -> list[_TensorRow]:
    """One row per tensor for the tensor table: a unique C identifier, its kind and its place."""
    c_index = {r.plan_id: r.index for r in cregions}
    rows = []
    idents: set[str] = set()
    for tid, tensor in model.tensors.items():
        p = plan.placements.get(tid)
        comment = c_comment(f"{tensor.kind} {tensor.dtype}{list(tensor.shape)} {tensor.source_name}")
        ident = base = tensor_ident(tensor)
        n = 1
        while ident in idents:
            n += 1
            ident = f"{base}_{n}"
        idents.add(ident)
        kind = str(tensor.kind.value)
        region = c_index.get(p.region) if p else None
        if region is not None and cregions[region].role == "constant":
            kind = "constant"
        rows.append(
            _TensorRow(
                tensor.name,
                ident,
                comment,
                kind,
                region,
                p.offset if p and region is not None else 0,
                tensor.nbytes if p and region is not None else 0,
            )
        )
    return rows


def _template_values(
    model: AirModel,
    operators: list[AotOperator],
    plan: MemoryPlan,
    platform: SocPlatform,
    config: ConvertArgs,
    cregions: list[CRegion],
    hash_: str,
) -> dict[str, Any]:
    """What the module's templates read: names, tensors, regions, operators and the schedule."""
    prefix = config.module.prefix
    memories = sorted(
        {r.memory.upper() for r in plan.regions} | _platform_memories(platform) | _HOOK_MEMORIES
    )
    # With IF/WHILE, region operators run only when their owner calls <prefix>_run_range.
    next_index = list(region_layout(model).next_index) if model.regions else []
    for r in cregions:
        r.bound = is_bound(config, r.role)
    own = {r.memory.lower(): r.total_size for r in cregions if r.role == "scratch"}
    return {
        "prefix": prefix,
        "PREFIX": prefix.upper(),
        "model_comment": c_comment(model.name),
        **model_summary(model, config),
        "subgraph": config.model.subgraph,
        "platform_name": c_comment(platform.name),
        "memories": memories,
        "tensors": _tensor_rows(model, plan, cregions),
        "inputs": [model.tensors[t] for t in model.inputs],
        "outputs": [model.tensors[t] for t in model.outputs],
        "regions": _region_rows(prefix, plan),
        "c_regions": cregions,
        "staged_regions": [r for r in cregions if r.staged],
        "persistent_regions": [r for r in cregions if r.role == "persistent"],
        "state_inits": state_inits(prefix, model, plan, cregions),
        "num_operators": len(operators),
        "operators": operators,
        "allocate_arenas": bool(config.memory.allocate_arenas),
        "bound_regions": [r for r in cregions if r.bound],
        "shared_scratch": shared_scratch(config, own),
        "shared_modules": list(config.memory.shared_arena.modules) or [config.module.name],
        "bound_inputs": bool(config.memory.bind_inputs),
        "bound_outputs": [i for i, t in enumerate(model.outputs) if t in bound_outputs(model, config)],
        "schedule": str(config.module.schedule),  # the word: ScheduleMode prints its value
        "plan_hash": hash_,
        "itcm_operators": itcm_operators(operators, platform),
        "control_flow": bool(model.regions),
        "schedule_next": next_index,
    }


def _io_row(model: AirModel, tid: TensorId) -> _IoRow:
    t = model.tensors[tid]
    if t.quantization is None:
        return _IoRow(t.name, t.size, 0, c_float(1.0))
    return _IoRow(t.name, t.size, t.zero_point(), c_float(t.scale()))


def _write_sources(
    out_dir: Path,
    model: AirModel,
    operators: list[AotOperator],
    plan: MemoryPlan,
    config: ConvertArgs,
    cregions: list[CRegion],
    values: dict[str, Any],
    test_case: dict[str, Any] | None,
) -> None:
    """The module's C: headers, sources, constants, each operator's files, the kernels, the test."""
    prefix = config.module.prefix
    inc, src = out_dir / "includes-api", out_dir / "src"
    allocate = values["allocate_arenas"]
    io_values = dict(
        values,
        inputs=[_io_row(model, t) for t in model.inputs],
        outputs=[_io_row(model, t) for t in model.outputs],
    )
    write = write_text_file
    for header in ("platform", "tensors", "context", "common", "model"):
        write(inc / f"{prefix}_{header}.h", render_template(f"{header}.h.mako", **values))
    for source in ("tensors", "context", "model"):
        write(src / f"{prefix}_{source}.c", render_template(f"{source}.c.mako", **io_values))
    _write_constants(out_dir, src, prefix, model, plan, cregions, allocate, write)
    for op in operators:
        op.emit(out_dir)
    copy_kernels(operators, src / "kernels", prefix)
    if test_case is not None:
        write(inc / f"{prefix}_test_case.h", render_template("test_case.h.mako", **values, **test_case))
        blobs = {r.blob: c_hex_bytes(_region_bytes(plan, r)) for r in cregions if r.cold and not allocate}
        write(
            src / f"{prefix}_test_case.c",
            render_template("test_case.c.mako", **values, **test_case, test_blobs=blobs),
        )


def _region_bytes(plan: MemoryPlan, region: CRegion) -> bytes:
    """A cold region's blob padded to its size, or a staged region's source bytes."""
    if region.staged:
        assert region.source_plan_id is not None
        blob = plan.constant_blobs[region.source_plan_id]
        return blob[region.source_offset : region.source_offset + region.used]
    blob = plan.constant_blobs[region.plan_id]
    return blob + b"\0" * (region.total_size - len(blob))


def _write_constants(
    out_dir: Path,
    src: Path,
    prefix: str,
    model: AirModel,
    plan: MemoryPlan,
    cregions: list[CRegion],
    allocate: bool,
    write: Any,
) -> None:
    """One ``<prefix>_constants_<memory>.c`` per memory holding constant bytes.

    Cold blobs are C arrays with internal arenas; with external arenas they are sidecar files
    (``<blob>.bin`` at the module root) the application binds. A staged region's source is a C
    array in its source memory either way, and with external arenas also ``<source>.bin``.
    """
    arrays: dict[str, list[tuple[CRegion, str, bytes]]] = {}
    for r in cregions:
        if r.cold:
            data = _region_bytes(plan, r)
            if allocate:
                arrays.setdefault(r.memory, []).append((r, r.blob, data))
            else:
                (out_dir / f"{r.blob}.bin").write_bytes(data)
        elif r.staged:
            data = _region_bytes(plan, r)
            arrays.setdefault(r.source_memory or r.memory, []).append((r, r.source, data))
            if not allocate:
                (out_dir / f"{r.source}.bin").write_bytes(data)
    for memory, items in sorted(arrays.items()):
        values = {
            "prefix": prefix,
            "PREFIX": prefix.upper(),
            "model_comment": c_comment(model.name),
            "memory": memory,
        }
        hexes = [c_hex_bytes(data) for _, _, data in items]
        write(src / f"{prefix}_constants_{memory.lower()}.c", _constants_text(values, items, hexes))


def _constants_text(values: dict[str, Any], items: list[tuple[CRegion, str, bytes]], hexes: list[str]) -> str:
    """``constants.c.mako`` rendered over ``items`` whose bytes ``hexes`` spells.

    The bytes are most of a module's text (1.5 MB of the 2.0 MB of VWW's C files), and rendering
    ends by stripping every line (``render_template``), which over them cost more than formatting
    them.
    ``c_hex_bytes`` text needs no stripping (no line ends in white space), so the template is
    rendered with a short placeholder per array and the text put in its place afterwards: the
    same bytes. A placeholder holds a NUL, which nothing else rendered into the file can (the
    names are C identifiers, the model's name a printable comment); should one not appear exactly
    once, the text is rendered whole as before.
    """
    marks = [f"\0constants {i}\0" for i in range(len(items))]
    rows = [(r, symbol, len(data), mark) for (r, symbol, data), mark in zip(items, marks, strict=True)]
    text = render_template("constants.c.mako", **values, items=rows)
    if all(text.count(mark) == 1 for mark in marks):
        for mark, hex_text in zip(marks, hexes, strict=True):
            text = text.replace(mark, hex_text)
        return text
    rows = [
        (r, symbol, len(data), hex_text) for (r, symbol, data), hex_text in zip(items, hexes, strict=True)
    ]
    return render_template("constants.c.mako", **values, items=rows)


def _platform_memories(platform: SocPlatform) -> set[str]:
    return {m.value.upper() for m, _ in platform.memories}


__all__ = [
    "ArenaRegion",
    "CRegion",
    "KERNEL_NAME_PATTERNS",
    "c_regions",
    "tensor_ident",
    "emit_module",
    "itcm_operators",
    "model_summary",
    "plan_hash",
    "region_symbol",
    "source_symbol",
]
