"""``helia-aot profile --html PATH``: the profile as a page of per-operator cycle bars.

A table of forty operators says which one is slow only after reading every number; a bar per
operator says it at a glance. The page draws one horizontal bar per operator (and one for the
runtime) whose length is its modeled cycles against the largest, with its cycles, instructions,
cycles per instruction and share beside it, then the totals and the module's bytes. Like the
conversion's HTML report (``helia_aot.pipeline.html_report``) it is one self-contained file:
inline CSS and SVG, no scripts, fonts or links to fetch, no date, so profiling twice gives the
same bytes.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from helia_aot.testing.profiling import RUNTIME, ModuleProfile

BAR_WIDTH = 420.0
"""Pixels of the longest bar (the operator, or the runtime, with the most cycles)."""

_ROW, _LABEL, _TOP = 18, 300, 8

_CSS = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f2f2f2; }
svg { background: #fff; border: 1px solid #ddd; }
svg text { font-size: 11px; fill: #333; }
svg .bar { fill: #1976d2; }
svg .runtime { fill: #9e9e9e; }
"""


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _rows(profile: ModuleProfile) -> list[tuple[str, str, int, int]]:
    """(label, css class, cycles, instructions) per bar: the operators in run order, then the runtime."""
    rows = [
        (f"{op.index} {op.op_type} {op.id}", "bar", op.cycles, op.instructions) for op in profile.operators
    ]
    rows.append((RUNTIME, "runtime", profile.runtime_cycles, profile.runtime_instructions))
    return rows


def bar_width(cycles: int, longest: int) -> float:
    """The bar length in pixels of ``cycles`` when ``longest`` cycles fill :data:`BAR_WIDTH`."""
    return round(BAR_WIDTH * cycles / longest, 2) if longest else 0.0


def cycle_bars_svg(profile: ModuleProfile) -> str:
    """One labelled bar per operator and the runtime, lengths proportional to modeled cycles."""
    rows = _rows(profile)
    longest = max(cycles for _, _, cycles, _ in rows)
    total = profile.total_cycles or 1
    width = int(_LABEL + BAR_WIDTH + 330)
    height = _TOP * 2 + _ROW * len(rows)
    parts = [
        f'<svg class="cycle-bars" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        'role="img" aria-label="modeled cycles per operator" xmlns="http://www.w3.org/2000/svg">'
    ]
    for n, (label, cls, cycles, instructions) in enumerate(rows):
        y = _TOP + n * _ROW
        short = label if len(label) <= 48 else label[:45] + "..."
        bar = bar_width(cycles, longest)
        cpi = cycles / instructions if instructions else 0.0
        parts.append(
            f'<g data-operator="{_e(label)}" data-cycles="{cycles}" data-instructions="{instructions}">'
            f"<title>{_e(label)}: {cycles:,} cycles, {instructions:,} instructions</title>"
            f'<text x="{_LABEL - 6}" y="{y + 12}" text-anchor="end">{_e(short)}</text>'
            f'<rect class="{cls}" x="{_LABEL}" y="{y + 2}" width="{bar}" height="{_ROW - 4}"/>'
            f'<text x="{_LABEL + bar + 6:.2f}" y="{y + 12}">{cycles:,} cycles · {instructions:,} instr · '
            f"{cpi:.2f} cpi · {100 * cycles / total:.1f}%</text></g>"
        )
    parts.append("</svg>")
    return "\n".join(parts)


def render_profile_html(profile: ModuleProfile) -> str:
    """The whole page: the facts, the bars, the totals and the module's linked bytes."""
    ms = profile.milliseconds
    facts = [
        ("model", profile.model),
        ("target", f"{profile.target} ({profile.cpu}, {profile.opt})"),
        ("cycles modeled for", f"{profile.platform} at {profile.clock_mhz:g} MHz"),
    ]
    totals = [
        (
            "operators",
            sum(op.cycles for op in profile.operators),
            sum(op.instructions for op in profile.operators),
        ),
        (RUNTIME, profile.runtime_cycles, profile.runtime_instructions),
        ("total (profiled run)", profile.total_cycles, profile.total_instructions),
        ("inference without the callback", profile.inference_cycles, profile.inference_instructions),
    ]
    fact_rows = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>\n" for k, v in facts)
    total_rows = "".join(
        f'<tr><td>{_e(name)}</td><td class="n">{cycles:,}</td><td class="n">{count:,}</td>'
        f'<td class="n">{ms(cycles):.3f}</td></tr>\n'
        for name, cycles, count in totals
    )
    sizes = (
        f"<p>Module bytes (link map; runtime and C library excluded): code {profile.code_bytes:,}, "
        f"constants {profile.constant_bytes:,}, RAM {profile.ram_bytes:,}.</p>\n"
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>helia-aot profile: {_e(profile.model)} on {_e(profile.target)}</title>\n"
        f"<style>{_CSS}</style>\n</head>\n<body>\n"
        f"<h1>Profile: {_e(profile.model)} on {_e(profile.target)}</h1>\n"
        f'<table class="facts">\n{fact_rows}</table>\n'
        "<h2>Modeled cycles per operator</h2>\n"
        "<p>One bar per operator in run order, then the runtime (model_run's loop and the "
        "profiling callback); the longest bar is the operator with the most cycles. Instructions "
        "are counted exactly by QEMU; cycles are modeled (timing tables per core, wait states per "
        "memory), not measured.</p>\n"
        f"{cycle_bars_svg(profile)}\n"
        "<h2>Totals</h2>\n"
        '<table class="totals">\n<thead><tr><th></th><th>cycles</th><th>instructions</th>'
        f"<th>ms</th></tr></thead>\n<tbody>\n{total_rows}</tbody></table>\n"
        f"{sizes}</body>\n</html>\n"
    )


def write_profile_html(profile: ModuleProfile, path: Path) -> Path:
    """Write :func:`render_profile_html` to ``path`` (folders created); return ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_profile_html(profile), encoding="utf-8")
    return path


__all__ = ["BAR_WIDTH", "bar_width", "cycle_bars_svg", "render_profile_html", "write_profile_html"]
