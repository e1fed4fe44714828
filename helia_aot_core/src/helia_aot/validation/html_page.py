"""A validation run as HTML: a section for notebooks, a page of its own, and a section of the
module report.

Built with the module report's table helper and styles (``helia_aot.pipeline.html_report``), so
``--html validation.html`` next to ``<prefix>_report.html`` reads as one more page of it, and
``--module-report <prefix>_report.html`` puts the same section into that report, before its end:
self-contained, no scripts, no date, so the same run gives the same bytes. A later run replaces
the section an earlier one added (the section sits between two comments that say where it starts
and ends), and a report of another plan is refused, so the page never shows results of a module
other than the one it describes.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from helia_aot.errors import InvalidConfigError
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
        *([("Plan hash", report.plan_hash)] if report.plan_hash else []),
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


SECTION_START = "<!-- helia-aot validate: start -->"
SECTION_END = "<!-- helia-aot validate: end -->"
"""The comments around the section ``add_to_module_report`` adds, so a later run replaces it."""

_PLAN_HASH = re.compile(r"<td>Plan hash</td><td>([0-9a-f]+)</td>")


def read_module_report(path: Path) -> tuple[str, str]:
    """The module report at ``path`` and the plan hash it states; a missing file or another page
    is an InvalidConfigError (checked before validate runs, and again when the section is added)."""
    path = Path(path)
    hint = "give the <prefix>_report.html that convert --documentation.html wrote for this model"
    if not path.is_file():
        raise InvalidConfigError(f"--module-report {path} does not exist", hint=hint)
    page = path.read_text(encoding="utf-8")
    stated = _PLAN_HASH.search(page)
    if stated is None or "</body>" not in page:
        raise InvalidConfigError(f"--module-report {path} is not a helia-aot module report", hint=hint)
    return page, stated.group(1)


def add_to_module_report(report: ValidationReport, path: Path) -> Path:
    """Put ``report`` into the module report at ``path`` (``<prefix>_report.html``, which
    ``documentation.html`` writes) as its Validation section, before the page ends, replacing the
    section an earlier run added. The report must be of the plan that was validated."""
    path = Path(path)
    page, stated = read_module_report(path)
    if report.plan_hash is not None and stated != report.plan_hash:
        raise InvalidConfigError(
            f"--module-report {path} describes plan {stated}; validate converted plan "
            f"{report.plan_hash} (another model or configuration)",
            hint="validate with the configuration the module was converted with (for example "
            "--path convert.yaml), or convert again",
        )
    start, end = page.find(SECTION_START), page.find(SECTION_END)
    if start >= 0 and end > start:
        page = page[:start] + page[end + len(SECTION_END) + 1 :]
    section = f"{SECTION_START}\n{validation_section(report)}{SECTION_END}\n"
    at = page.rindex("</body>")
    path.write_text(page[:at] + section + page[at:], encoding="utf-8", newline="\n")
    return path


__all__ = [
    "SECTION_END",
    "SECTION_START",
    "add_to_module_report",
    "read_module_report",
    "validation_page",
    "validation_section",
]
