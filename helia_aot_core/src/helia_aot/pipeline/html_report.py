"""The offline HTML report (``documentation.html: true``) and a ConversionResult's notebook summary.

The page is one self-contained file (inline CSS and SVG, no scripts, no fonts or links to fetch) so
it opens from a module directory or an archive on a machine without network access, and it holds
no date or path, so converting twice gives the same bytes. Its memory picture has one lane per
scratch arena, headed by its memory, capacity and wait states, so a model that spills shows what
went where; it draws each scratch tensor as one rectangle spanning the operators that need it (x)
at the bytes it occupies (y); each lane's column with the most bytes live is outlined, which is
where shrinking a tensor shrinks that arena.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from helia_aot.optimization import OptimizationPlan, OptimizationReport
from helia_aot.pipeline.occupancy import RegionOccupancy

_CSS = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f2f2f2; }
.hint { color: #7a4b00; }
svg { background: #fff; border: 1px solid #ddd; }
svg .peak { fill: #ffd54f; fill-opacity: 0.25; stroke: #e65100; stroke-width: 2; }
svg text { font-size: 10px; fill: #444; }
svg .axis { stroke: #666; stroke-width: 1; }
svg .top { stroke: #c62828; stroke-dasharray: 4 3; }
"""

_WIDTH, _HEIGHT = 880, 360
_LEFT, _RIGHT, _TOP, _BOTTOM = 72, 12, 22, 40


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _num(value: Any) -> str:
    return "-" if value is None else f"{value:,}" if isinstance(value, int) else _e(value)


def _table(headers: Sequence[str], rows: Iterable[Sequence[tuple[str, bool]]], cls: str) -> str:
    """A table (no header row when ``headers`` is empty); cells are (html, numeric) pairs so numbers
    align right."""
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    thead = f"<thead><tr>{head}</tr></thead>\n" if headers else ""
    body = "".join(
        "<tr>"
        + "".join(f'<td class="n">{c}</td>' if numeric else f"<td>{c}</td>" for c, numeric in row)
        + "</tr>\n"
        for row in rows
    )
    return f'<table class="{cls}">\n{thead}<tbody>\n{body}</tbody></table>\n'


def arena_table(report: OptimizationReport, regions: Sequence[Any] | None = None) -> str:
    """The arenas: bytes used against capacity and the planner's lower bound."""
    symbols = {r.id: r.symbol for r in regions or ()}
    rows = []
    for a in report.arenas:
        frag = "-" if a.fragmentation is None else f"{a.fragmentation:.1%}"
        rows.append(
            [
                (_e(a.region), True),
                (_e(a.role), False),
                (_e(a.memory), False),
                (_num(a.used), True),
                (_num(a.total_size), True),
                (_num(a.capacity), True),
                (_num(a.peak_live), True),
                (frag, True),
                (_e(symbols.get(a.region) or "-"), False),
            ]
        )
    return _table(
        [
            "Region",
            "Role",
            "Memory",
            "Used (B)",
            "Total size (B)",
            "Capacity (B)",
            "Lower bound (B)",
            "Fragmentation",
            "Symbol",
        ],
        rows,
        "arenas",
    )


def _tensor_cell(ids: Iterable[str | None], tensors: Mapping[str, Any]) -> str:
    parts = []
    for tid in ids:
        if not tid:
            continue
        t = tensors.get(tid)
        if t is None:
            parts.append(_e(tid))
            continue
        size = f"{t.nbytes:,} B" if t.nbytes else "not stored"
        parts.append(f"{_e(t.name)}: {_e(t.dtype)}{_e(list(t.shape))}, {size}")
    return "<br>".join(parts) or "-"


def operator_table(
    plan: OptimizationPlan,
    report: OptimizationReport,
    operator_views: Sequence[Any] | None = None,
    tensor_views: Sequence[Any] | None = None,
) -> str:
    """One row per operator: type, MACs, parameters, kernel, the tensor sizes (with views), hints."""
    tensors = {t.id: t for t in tensor_views or ()}
    views = {v.layer_index: v for v in operator_views or ()}
    reported = {r.index: r for r in report.operators}
    headers = ["#", "Id", "Type", "Source", "MACs", "Parameters", "Kernel"]
    if views:
        headers += ["Inputs", "Outputs", "Local tensors"]
    headers.append("Hints")
    rows = []
    for p in plan.operators:
        r = reported.get(p.index)
        kernel = (
            ", ".join(sorted(set(p.kernel.calls.values())))
            if p.kernel and p.kernel.calls
            else (p.kernel.family if p.kernel and p.kernel.family else "-")
        )
        row = [
            (_e(p.index), True),
            (_e(p.id), False),
            (_e(p.op_type), False),
            (_e(", ".join(str(i) for i in p.source_indices)) or "-", False),
            (_num(r.macs if r else None), True),
            (_num(r.parameters if r else None), True),
            (_e(kernel), False),
        ]
        view = views.get(p.index)
        if views:
            row += [
                (_tensor_cell(view.input_ids if view else (), tensors), False),
                (_tensor_cell(view.output_ids if view else (), tensors), False),
                (_tensor_cell(view.local_tensor_ids if view else (), tensors), False),
            ]
        hints = "<br>".join(f'<span class="hint">{_e(h.message)}</span>' for h in (r.hints if r else ()))
        if r is not None and r.memory_technique == "in_place":
            note = f"goal size: output written over the input row by row (ring {r.ring_bytes:,} B)"
            hints = f'<span class="technique">{_e(note)}</span>' + ("<br>" + hints if hints else "")
        elif r is not None and r.memory_technique == "patch":
            note = f"goal size: runs in patches, in the band loop of operator {r.patch_stage}"
            hints = f'<span class="technique">{_e(note)}</span>' + ("<br>" + hints if hints else "")
        row.append((hints or "-", False))
        rows.append(row)
    return _table(headers, rows, "operators")


def _color(k: int) -> str:
    # Golden-angle hues: neighbouring tensors get clearly different colours, deterministically.
    return f"hsl({(k * 137.508) % 360:.1f}, 62%, 58%)"


_LANE_GAP = 34
"""Pixels between two lanes: room for the lower lane's heading."""


def lane_heading(occupancy: RegionOccupancy) -> str:
    """What a lane says of its region: memory, bytes, the memory's capacity and its wait states."""
    capacity = "no known cap" if occupancy.capacity is None else f"capacity {occupancy.capacity:,} B"
    waits = occupancy.wait_states
    which = occupancy.name or f"region {occupancy.region}"
    return (
        f"{occupancy.memory} ({which}): {occupancy.used:,} B, peak "
        f"{occupancy.peak_bytes:,} B live; {capacity}; {waits} wait state{'s' if waits != 1 else ''}"
    )


def memory_svg(
    occupancy: RegionOccupancy | Sequence[RegionOccupancy],
    op_types: Sequence[str],
    techniques: Mapping[int, str] | None = None,
    patches: Sequence[tuple[int, int, int, str]] = (),
) -> str:
    """The scratch picture: one lane per scratch region (one memory each, fastest first as the
    plan orders them), one ``<rect>`` per tensor and nothing else as a rect.

    Each lane is headed by its memory, bytes, the memory's capacity and its wait states
    (``<text class="lane">``), so a model that spills shows what went where; its y axis is its
    own region's bytes. ``techniques`` (operator index -> what goal size did there) marks those
    columns with a ``<text class="technique">`` above the plot: "ip" where the output overwrites
    the input. ``patches`` (first index, last index, bands, description) brackets each stage run
    in patches with a ``<path class="patch">`` cut by one tick per band, labelled with its bands.
    """
    lanes = [occupancy] if isinstance(occupancy, RegionOccupancy) else list(occupancy)
    n = max(len(op_types), 1)
    plot_w = _WIDTH - _LEFT - _RIGHT
    lane_h = _HEIGHT - _TOP - _BOTTOM if len(lanes) <= 1 else 200
    height = _TOP + 14 + len(lanes) * lane_h + max(len(lanes) - 1, 0) * _LANE_GAP + _BOTTOM
    col = plot_w / n
    label = "scratch arena region " + ", ".join(str(o.region) for o in lanes)
    out = [
        f'<svg width="{_WIDTH}" height="{height}" viewBox="0 0 {_WIDTH} {height}" role="img" '
        f'aria-label="{label}">'
    ]
    k = 0
    bottom = _TOP + 14
    for number, lane in enumerate(lanes):
        top = _TOP + 14 + number * (lane_h + _LANE_GAP)
        bottom = top + lane_h
        top_byte = max([lane.used, 1] + [t.offset + t.size for t in lane.tensors])

        def y(byte: float, top: int = top, top_byte: int = top_byte) -> float:
            return top + lane_h - byte / top_byte * lane_h

        out.append(
            f'<text class="lane" x="{_LEFT}" y="{top - 4}" data-region="{lane.region}">'
            f"{_e(lane_heading(lane))}</text>"
        )
        for t in sorted(lane.tensors, key=lambda t: (t.first, t.offset, t.id)):
            x, w = _LEFT + t.first * col, (t.last - t.first + 1) * col
            h = max(t.size / top_byte * lane_h, 2.0)
            what = (
                f"{t.name}: {t.size:,} B at offset {t.offset:,} of {lane.memory}, "
                f"operators {t.first}-{t.last}"
                f" ({op_types[t.first] if t.first < len(op_types) else '?'} to "
                f"{op_types[t.last] if t.last < len(op_types) else '?'})"
            )
            out.append(
                f'<rect data-tensor="{_e(t.id)}" data-region="{lane.region}" x="{x:.2f}" '
                f'y="{y(t.offset + t.size):.2f}" width="{w:.2f}" height="{h:.2f}" fill="{_color(k)}" '
                f'fill-opacity="0.85" stroke="#333" stroke-width="0.5"><title>{_e(what)}</title></rect>'
            )
            k += 1
        peak = lane.peak_index
        if peak is not None:
            # Drawn over the tensors as an outline, so the column stays visible however full it is.
            x0 = _LEFT + peak * col
            out.append(
                f'<path class="peak" d="M{x0:.2f} {top} h{col:.2f} v{lane_h} h{-col:.2f} Z">'
                f"<title>peak: {lane.peak_bytes:,} bytes live at operator {peak}</title></path>"
            )
        out.append(
            f'<line class="top" x1="{_LEFT}" y1="{y(lane.used):.2f}" x2="{_LEFT + plot_w}" '
            f'y2="{y(lane.used):.2f}"><title>arena size {lane.used:,} B</title></line>'
        )
        out.append(f'<line class="axis" x1="{_LEFT}" y1="{bottom}" x2="{_LEFT + plot_w}" y2="{bottom}"/>')
        out.append(f'<line class="axis" x1="{_LEFT}" y1="{top}" x2="{_LEFT}" y2="{bottom}"/>')
        for value in sorted({0, lane.used // 2, lane.used}):
            out.append(f'<text x="{_LEFT - 4}" y="{y(value) + 3:.2f}" text-anchor="end">{value:,}</text>')
    first_top = _TOP + 14
    for first, last, bands, what in patches:
        x0, x1 = _LEFT + first * col, _LEFT + (last + 1) * col
        ticks = "".join(f" M{x0 + (x1 - x0) * b / bands:.2f} {first_top + 2} v6" for b in range(1, bands))
        out.append(
            f'<path class="patch" d="M{x0:.2f} {first_top + 10} v-8 H{x1:.2f} v8{ticks}" fill="none" '
            f'stroke="#2a6" stroke-width="1.5"><title>{_e(what)}</title></path>'
        )
        out.append(
            f'<text class="patch" x="{(x0 + x1) / 2:.2f}" y="{first_top + 20}" text-anchor="middle">'
            f"{bands} patches<title>{_e(what)}</title></text>"
        )
    for index, technique in sorted((techniques or {}).items()):
        out.append(
            f'<text class="technique" x="{_LEFT + (index + 0.5) * col:.2f}" y="{_TOP - 4}" '
            f'text-anchor="middle">ip<title>operator {index}: {_e(technique)}</title></text>'
        )
    step = max(1, -(-n // 24))
    for i in range(0, len(op_types), step):
        out.append(
            f'<text x="{_LEFT + (i + 0.5) * col:.2f}" y="{bottom + 13}" text-anchor="middle">'
            f"{i}<title>{_e(op_types[i])}</title></text>"
        )
    out.append(
        f'<text x="{_LEFT + plot_w / 2:.2f}" y="{height - 6}" text-anchor="middle">operator index</text>'
    )
    middle = (_TOP + bottom) / 2
    out.append(
        f'<text x="12" y="{middle:.2f}" transform="rotate(-90 12 {middle:.2f})" '
        'text-anchor="middle">offset in the region (bytes)</text>'
    )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _peak_section(occupancy: RegionOccupancy, op_types: Sequence[str]) -> str:
    peak = occupancy.peak_index
    if peak is None:
        return "<p>The schedule is empty.</p>\n"
    live = occupancy.live_at(peak)
    rows = [
        [
            (_e(t.name), False),
            (_num(t.offset), True),
            (_num(t.size), True),
            (_e(f"{t.first}-{t.last}"), False),
        ]
        for t in live
    ]
    return (
        f"<p>Peak: <b>{occupancy.peak_bytes:,}</b> of {occupancy.used:,} bytes live at operator "
        f"{peak} ({_e(op_types[peak])}); what lives there:</p>\n"
        + _table(["Tensor", "Offset (B)", "Size (B)", "Operators"], rows, "peak")
    )


def render_module_report(
    *,
    prefix: str,
    views: Mapping[str, Any],
    plan: OptimizationPlan,
    report: OptimizationReport,
    occupancy: Sequence[RegionOccupancy],
    plan_hash: str,
) -> str:
    """The whole ``<prefix>_report.html`` page."""
    op_types = [p.op_type for p in plan.operators]
    facts = [
        ("Model", plan.model_name or plan.model.file),
        ("Platform", plan.platform.name),
        ("Prefix", prefix),
        ("Plan hash", plan_hash),
        ("Operators", len(plan.operators)),
        ("MACs per inference", f"{report.total_macs:,}"),
        ("Parameters", f"{report.total_parameters:,}"),
    ]
    parts = [
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
        f"<title>{_e(prefix)}: {_e(plan.model_name or plan.model.file)} module report</title>\n",
        f"<style>{_CSS}</style>\n</head>\n<body>\n",
        f"<h1>{_e(plan.model_name or plan.model.file)}</h1>\n",
        _table([], [[(_e(k), False), (_e(v), False)] for k, v in facts], "facts"),
    ]
    if report.arena_hints or report.hints:
        messages = [h.message for h in report.arena_hints] + [h.message for h in report.hints]
        items = "".join(f'<li class="hint">{_e(m)}</li>' for m in messages)
        parts.append(f"<ul>{items}</ul>\n")
    parts += ["<h2>Arenas</h2>\n", arena_table(report, views.get("regions"))]
    techniques = {
        r.index: f"in place, ring {r.ring_bytes:,} B"
        for r in report.operators
        if r.index is not None and r.memory_technique == "in_place"
    }
    index_of = {r.id: r.index for r in report.operators if r.index is not None}
    stages = report.schedule.patches if report.schedule is not None else []
    patches = [
        (
            index_of.get(stage.operators[0], 0),
            index_of.get(stage.operators[-1], 0),
            stage.bands,
            f"patches: operators {index_of.get(stage.operators[0], 0)}-"
            f"{index_of.get(stage.operators[-1], 0)} run in {stage.bands} bands of "
            f"{stage.rows_per_band} row(s) ({stage.mode}); halo rows {stage.halo_rows}, "
            f"{stage.extra_macs:,} extra MACs, "
            f"patch buffer {stage.buffer_bytes:,} B",
        )
        for stage in stages
    ]
    if report.schedule is not None and (report.schedule.method != "stored" or techniques or stages):
        order = report.schedule
        parts.append(
            f"<p>Goal size: the tensors' layer-by-layer bound is <b>{order.layer_bound:,}</b> B; "
            f"the operator order ({_e(order.method)} search"
            f"{', reordered' if order.reordered else ', stored order kept'}) needs "
            f"<b>{order.schedule_bound:,}</b> B; {len(techniques)} operator(s) write their output "
            "over their input (marked ip above their column)"
            + "".join(f"; {_e(what)} (bracketed above the picture)" for *_, what in patches)
            + ".</p>\n"
        )
    if occupancy:
        memories = ", ".join(f"{_e(r.memory)} ({_e(r.name or f'region {r.region}')})" for r in occupancy)
        parts.append(f"<h2>Scratch memory: {memories}</h2>\n")
        parts.append(
            "<p>One lane per scratch region, headed by its memory, its capacity and the wait states "
            "one access there pays. Each rectangle is one tensor: it spans the operators that need "
            "it (x) at the bytes it occupies in its region (y). The outlined column of each lane is "
            "its peak.</p>\n"
        )
        parts.append(memory_svg(occupancy, op_types, techniques, patches))
        for region in occupancy:
            parts.append(f"<h3>{_e(lane_heading(region))}</h3>\n")
            parts.append(_peak_section(region, op_types))
    parts += [
        "<h2>Operators</h2>\n",
        operator_table(plan, report, views.get("operators"), views.get("tensors")),
        "</body>\n</html>\n",
    ]
    return "".join(parts)


def render_result_summary(result: Any) -> str:
    """A ConversionResult as an HTML fragment for notebooks (``_repr_html_``)."""
    facts = [
        ("Output", result.output),
        ("Prefix", result.prefix),
        ("Model", result.plan.model_name or result.plan.model.file),
        ("Platform", result.plan.platform.name),
        ("Operators", len(result.plan.operators)),
        ("MACs per inference", f"{result.report.total_macs:,}"),
        ("Parameters", f"{result.report.total_parameters:,}"),
    ]
    if result.work_dir is not None:
        facts.append(("Work dir", result.work_dir))
    if getattr(result, "dry_run", False):
        facts.append(("Dry run", "nothing was written"))
    return (
        '<div class="helia-aot-result">\n<style>.helia-aot-result td.n { text-align: right; }'
        + _SUMMARY_SVG_CSS
        + "</style>\n<b>helia-aot conversion</b>\n"
        + _table([], [[(_e(k), False), (_e(v), False)] for k, v in facts], "facts")
        + arena_table(result.report, result.regions)
        + memory_pictures(getattr(result, "occupancy", ()), [p.op_type for p in result.plan.operators])
        + operator_table(result.plan, result.report, result.operators, result.tensors)
        + "</div>\n"
    )


_SUMMARY_SVG_CSS = (
    " .helia-aot-result svg .peak { fill: #ffd54f; fill-opacity: 0.25; stroke: #e65100; stroke-width: 2; }"
    " .helia-aot-result svg text { font-size: 10px; fill: #444; }"
    " .helia-aot-result svg .axis { stroke: #666; stroke-width: 1; }"
    " .helia-aot-result svg .top { stroke: #c62828; stroke-dasharray: 4 3; }"
)
"""The report page's SVG styles, scoped to the summary so a notebook's own styles are untouched."""


def memory_pictures(occupancy: Sequence[RegionOccupancy], op_types: Sequence[str]) -> str:
    """Each scratch arena's occupancy over the schedule (the report page's picture) with a caption;
    inline SVG only, so a notebook shows it offline and the same result gives the same bytes."""
    if not occupancy:
        return ""
    return (
        "<p><b>Scratch memory</b>: one lane per region (its memory, capacity and wait states). Each "
        "rectangle is one tensor over the operators that need it.</p>\n" + memory_svg(occupancy, op_types)
    )


__all__ = [
    "arena_table",
    "lane_heading",
    "memory_pictures",
    "memory_svg",
    "operator_table",
    "render_module_report",
    "render_result_summary",
]
