"""What ``helia-aot validate`` found: per output, the metrics against each interpreter, the
verdict against the reference kernels, and the known reasons the optimized interpreter differs.

The verdict follows ``helia-aot test``'s rules (``helia_aot.pipeline.test_case``): bool outputs,
integer outputs without quantization and index outputs must be equal; a quantized integer output
may be ``test.tolerance`` steps off; a float output ``test.tolerance`` times its largest expected
magnitude. ``bit-exact`` when every value is equal, ``within tolerance`` when none is beyond its
bound, ``mismatch`` otherwise. Only the reference decides it: the optimized interpreter is not
what helia-aot claims to match, and is shown so its differences are not mistaken for the module's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from helia_aot.validation.known_differences import COMPOUNDING, FLOAT_NOTE
from helia_aot.validation.metrics import OutputMetrics

BIT_EXACT, WITHIN, MISMATCH = "bit-exact", "within tolerance", "mismatch"
REFERENCE, OPTIMIZED = "reference", "optimized"
"""The two interpreters: LiteRT's reference kernels (the exactness claim) and its default,
optimized ones (what ``Interpreter()`` gives)."""


@dataclass(frozen=True, slots=True)
class OutputResult:
    """One module output: what it is, its metrics against both interpreters, and its verdict.

    ``error_unit`` is ``step`` (absolute errors count quantization steps) or ``value``;
    ``interpreters_agree`` the share of elements where the optimized interpreter equals the
    reference (below 1, the optimized column's differences are the interpreters' own).
    """

    index: int
    name: str
    shape: tuple[int, ...]
    dtype: str
    error_unit: str
    classifier: bool
    reference: OutputMetrics
    optimized: OutputMetrics
    verdict: str
    bound: str
    interpreters_agree: float

    def to_json(self) -> dict[str, Any]:
        """The output as JSON values (``reference`` and ``optimized``: the metric fields)."""
        return {
            "index": self.index,
            "name": self.name,
            "shape": list(self.shape),
            "dtype": self.dtype,
            "error_unit": self.error_unit,
            "classifier": self.classifier,
            "verdict": self.verdict,
            "bound": self.bound,
            "interpreters_agree": self.interpreters_agree,
            REFERENCE: _metrics_json(self.reference),
            OPTIMIZED: _metrics_json(self.optimized),
        }


def _metrics_json(metrics: OutputMetrics) -> dict[str, Any]:
    data = metrics.to_json()
    del data["output"], data["against"]
    return data


@dataclass(frozen=True, slots=True)
class ValidationReport:
    """A validation run: the module on ``target`` against LiteRT over ``samples`` samples.

    ``inputs`` says where the samples came from (``generated``, a path, ``callable``);
    ``known_differences`` holds ``(operator, note)`` for the model's operators whose optimized
    int8 kernels round differently, ``reference_bugs`` those whose reference kernel is known
    wrong. ``passed(exact=...)`` is what the command's exit code says.
    """

    model: str
    platform: str
    target: str
    samples: int
    inputs: str
    seed: int | None
    tolerance: float
    outputs: tuple[OutputResult, ...]
    known_differences: tuple[tuple[str, str], ...] = field(default=())
    reference_bugs: tuple[tuple[str, str], ...] = field(default=())
    plan_hash: str | None = None
    """The plan hash of the module that ran (``<PREFIX>_PLAN_HASH``): the module report it may
    join (:func:`helia_aot.validation.html_page.add_to_module_report`) must show the same."""
    runtime: str = "LiteRT"
    """Who computed the expected outputs: LiteRT, or the runtime of the model's front end
    (onnxruntime for ONNX models, whose ``ref`` runs with graph optimizations off)."""

    @property
    def verdict(self) -> str:
        """The worst output verdict against the reference kernels."""
        order = (BIT_EXACT, WITHIN, MISMATCH)
        return max((o.verdict for o in self.outputs), key=order.index, default=BIT_EXACT)

    def passed(self, *, exact: bool = False) -> bool:
        """No output beyond its bound (with ``exact``: every output bit-exact)."""
        return self.verdict == BIT_EXACT or (not exact and self.verdict == WITHIN)

    def notes(self) -> list[str]:
        """Why the optimized column differs, when it does: the known differences among the
        model's operators (or that none is known), compounding, and the float note."""
        notes: list[str] = []
        if self.verdict != BIT_EXACT:
            notes += [f"{op}: {note}" for op, note in self.reference_bugs]
        differs = [o for o in self.outputs if o.optimized.exact_match < 1.0]
        if not differs:
            return notes
        if any(o.error_unit == "step" for o in differs):
            if self.known_differences:
                notes += [f"{op}: {note}" for op, note in self.known_differences]
                notes.append(f"deeper models: {COMPOUNDING}")
            elif not self.reference_bugs:
                notes.append(
                    "the optimized interpreter differs, and none of this model's operators is a known "
                    "difference: compare the reference column, which is the exactness claim"
                )
        if any(o.error_unit == "value" for o in differs):
            notes.append(FLOAT_NOTE)
        return notes

    def summary_line(self, *, exact: bool = False) -> str:
        """``PASS: bit-exact ...`` or ``FAIL: ...``: the last line the command prints."""
        what = f"against the {self.runtime} reference kernels over {self.samples} sample(s) on {self.target}"
        if not self.passed(exact=exact):
            if self.verdict == MISMATCH:
                return f"FAIL: {MISMATCH} {what}"
            return f"FAIL: {self.verdict}, not bit-exact (--exact), {what}"
        return f"PASS: {self.verdict} {what}"

    def to_json(self, *, exact: bool = False) -> dict[str, Any]:
        """The report as one JSON document (what ``--json`` prints)."""
        return {
            "model": self.model,
            "platform": self.platform,
            "plan_hash": self.plan_hash,
            "runtime": self.runtime,
            "target": self.target,
            "samples": self.samples,
            "inputs": self.inputs,
            "seed": self.seed,
            "tolerance": self.tolerance,
            "verdict": self.verdict,
            "passed": self.passed(exact=exact),
            "outputs": [o.to_json() for o in self.outputs],
            "known_differences": [{"operator": op, "note": note} for op, note in self.known_differences],
            "reference_bugs": [{"operator": op, "note": note} for op, note in self.reference_bugs],
            "notes": self.notes(),
        }

    def table(self) -> Table:
        """Each output's rows, ``ref`` (reference kernels) and ``opt`` (optimized): short cells and
        headers, so the table fits 80 columns; a narrower terminal folds the cells."""
        table = Table(show_edge=False, pad_edge=False, expand=False)
        for name, justify in (
            ("out", "right"),
            ("vs", "left"),
            ("max err", "right"),
            ("mean err", "right"),
            ("rel L2", "right"),
            ("cosine", "right"),
            ("exact", "right"),
            ("top-1", "right"),
            ("verdict", "left"),
        ):
            table.add_column(name, justify=justify, overflow="fold")  # type: ignore[arg-type]
        for out in self.outputs:
            for metrics, verdict in ((out.reference, out.verdict), (out.optimized, "")):
                table.add_row(
                    str(out.index),
                    SHORT[metrics.against],
                    _number(metrics.max_abs_error),
                    _number(metrics.mean_abs_error),
                    _ratio(metrics.relative_l2, "{:.1e}"),
                    _ratio(metrics.cosine, "{:.5f}"),
                    _percent(metrics.exact_match),
                    "-" if metrics.top1_agreement is None else _percent(metrics.top1_agreement),
                    verdict,
                )
        return table

    def __rich__(self) -> RenderableType:
        parts: list[RenderableType] = [
            Text(
                f"{self.model} on {self.target} ({self.platform}): {self.samples} sample(s), "
                f"inputs {self.inputs}"
            ),
            self.table(),
            Text(
                (
                    "ref: LiteRT reference kernels (the exactness claim); opt: optimized kernels, as "
                    "Interpreter() runs them."
                    if self.runtime == "LiteRT"
                    else f"ref: {self.runtime} with graph optimizations off; opt: {self.runtime} as a "
                    "default session runs."
                )
                + " err: absolute error, in quantization steps for integer "
                "outputs; exact: equal elements; top-1: classifier agreement"
            ),
        ]
        parts += [Text(f"note: {note}") for note in self.notes()]
        return Group(*parts)

    def _repr_html_(self) -> str:
        from helia_aot.validation.html_page import validation_section  # notebooks only

        return validation_section(self)


SHORT = {REFERENCE: "ref", OPTIMIZED: "opt"}


def _number(value: float) -> str:
    return f"{value:.4g}"


def _percent(value: float) -> str:
    """A share as a percentage; 100% only when it is all (99.96% shows as 99.9%, not 100.0%)."""
    if value >= 1.0:
        return "100%"
    return f"{math.floor(value * 1000) / 10:.1f}%"


def _ratio(value: float | None, form: str) -> str:
    return "n/a" if value is None else form.format(value)


__all__ = ["BIT_EXACT", "MISMATCH", "OPTIMIZED", "REFERENCE", "WITHIN", "OutputResult", "ValidationReport"]
