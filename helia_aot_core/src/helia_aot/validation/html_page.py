"""A validation run as HTML: a section for notebooks and a page beside the module report.

Built with the module report's table helper and styles (``helia_aot.pipeline.html_report``), so
``--html validation.html`` next to ``<prefix>_report.html`` reads as one more page of it: self-
contained, no scripts, no date, so the same run gives the same bytes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from helia_aot.pipeline.html_report import _CSS, _e, _table

if TYPE_CHECKING:
    from helia_aot.validation.report import ValidationReport


def _cell(value: float | None, form: str) -> tuple[str, bool]:
    return ("n/a" if value is None else _e(form.format(value))), True


def validation_section(report: ValidationReport) -> str:
    """The run's facts, one row per output and interpreter, and the notes, as an HTML fragment."""
    facts = [
        ("Model", report.model),
        ("Platform", report.platform),
        ("Target", report.target),
        ("Samples", report.samples),
        ("Inputs", report.inputs),
        ("Tolerance", f"{report.tolerance:g}"),
        ("Verdict (reference kernels)", report.verdict),
    ]
    headers = [
        "output",
        "against",
        "max abs error",
        "mean abs error",
        "relative L2",
        "cosine",
        "exact match",
        "top-1",
        "verdict",
    ]
    rows = []
    for out in report.outputs:
        for metrics, verdict in ((out.reference, f"{out.verdict} ({out.bound})"), (out.optimized, "-")):
            unit = " steps" if out.error_unit == "step" else ""
            rows.append(
                [
                    (_e(f"{out.index} {out.name}"), False),
                    (_e(metrics.against), False),
                    (_e(f"{metrics.max_abs_error:.4g}{unit}"), True),
                    (_e(f"{metrics.mean_abs_error:.4g}{unit}"), True),
                    _cell(metrics.relative_l2, "{:.3e}"),
                    _cell(metrics.cosine, "{:.6f}"),
                    (_e(f"{metrics.exact_match:.2%}"), True),
                    _cell(metrics.top1_agreement, "{:.2%}"),
                    (_e(verdict), False),
                ]
            )
    notes = "".join(f'<li class="hint">{_e(note)}</li>' for note in report.notes())
    return (
        '<div class="helia-aot-validation">\n<h2>Validation</h2>\n'
        + _table([], [[(_e(k), False), (_e(v), False)] for k, v in facts], "facts")
        + _table(headers, rows, "validation")
        + (f"<ul>{notes}</ul>\n" if notes else "")
        + "</div>\n"
    )


def validation_page(report: ValidationReport) -> str:
    """The whole page ``helia-aot validate --html PATH`` writes."""
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{_e(report.model)}: validation</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        + validation_section(report)
        + "</body>\n</html>\n"
    )


__all__ = ["validation_page", "validation_section"]
