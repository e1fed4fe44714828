"""How far the module's outputs are from an interpreter's, per output, over every sample.

Absolute errors are in the output's own units: quantization steps for an integer output (one
step is the smallest difference its values can have, what "off by one" counts) and values for a
float output. Relative L2 and cosine similarity are taken on the real values an integer output
stands for (``q - zero_point``; the scale cancels), so a zero point does not pass for signal.
Exact match counts equal elements. Top-1 agreement, for a classifier's output, counts the
positions (every index but the last axis, per sample) whose module argmax is one of the
interpreter's highest classes: a tie in the interpreter's scores is not held against the module.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

CLASSIFIER_OPERATORS = frozenset({"SOFTMAX", "LOG_SOFTMAX"})
"""Operators whose output is class scores: an output they write gets top-1 agreement."""


@dataclass(frozen=True, slots=True)
class OutputMetrics:
    """One output of the module compared with one interpreter over every sample.

    ``relative_l2`` is ``||module - expected|| / ||expected||`` (None when the expected values are
    all zero and the module's are not); ``cosine`` the cosine similarity (None when one side is all
    zero and the other is not; 1 when both are). ``top1_agreement`` is None for an output that is
    not a classifier's.
    """

    output: int
    against: str
    compared: int
    max_abs_error: float
    mean_abs_error: float
    relative_l2: float | None
    cosine: float | None
    exact_match: float
    top1_agreement: float | None = None

    def to_json(self) -> dict[str, Any]:
        """The fields as JSON values."""
        return asdict(self)


def is_classifier(producer: str | None, shape: tuple[int, ...]) -> bool:
    """Whether an output holds class scores: written by a softmax, more than one class on its
    last axis."""
    return producer in CLASSIFIER_OPERATORS and len(shape) >= 1 and shape[-1] > 1


def compare_output(
    output: int,
    against: str,
    actual: np.ndarray,
    expected: np.ndarray,
    *,
    zero_point: int = 0,
    classifier: bool = False,
) -> OutputMetrics:
    """The metrics of ``actual`` against ``expected`` (same shape: samples first)."""
    if actual.shape != expected.shape:
        raise ValueError(f"output {output}: shapes {actual.shape} and {expected.shape} differ")
    a = actual.astype(np.float64).reshape(-1)
    e = expected.astype(np.float64).reshape(-1)
    compared = int(a.size)
    diff = np.abs(a - e)
    if compared and np.isnan(diff).any():
        diff = np.where(np.isnan(a) & np.isnan(e), 0.0, diff)  # NaN where both are NaN: equal
        diff = np.where(np.isnan(diff), math.inf, diff)
    real_a, real_e = a - zero_point, e - zero_point
    return OutputMetrics(
        output=output,
        against=against,
        compared=compared,
        max_abs_error=float(diff.max()) if compared else 0.0,
        mean_abs_error=float(diff.mean()) if compared else 0.0,
        relative_l2=_relative_l2(real_a, real_e),
        cosine=_cosine(real_a, real_e),
        exact_match=float(np.mean(diff == 0.0)) if compared else 1.0,
        top1_agreement=_top1(actual, expected) if classifier else None,
    )


def _relative_l2(actual: np.ndarray, expected: np.ndarray) -> float | None:
    error = float(np.linalg.norm(actual - expected))
    scale = float(np.linalg.norm(expected))
    if scale == 0.0:
        return 0.0 if error == 0.0 else None
    return error / scale


def _cosine(actual: np.ndarray, expected: np.ndarray) -> float | None:
    norm_a, norm_e = float(np.linalg.norm(actual)), float(np.linalg.norm(expected))
    if norm_a == 0.0 or norm_e == 0.0:
        return 1.0 if norm_a == norm_e else None
    return float(np.dot(actual, expected) / (norm_a * norm_e))


def _top1(actual: np.ndarray, expected: np.ndarray) -> float:
    classes = actual.shape[-1]
    rows_a = actual.astype(np.float64).reshape(-1, classes)
    rows_e = expected.astype(np.float64).reshape(-1, classes)
    picked = rows_a.argmax(axis=1)
    best = rows_e.max(axis=1)
    agree = rows_e[np.arange(rows_e.shape[0]), picked] == best
    return float(agree.mean()) if agree.size else 1.0


__all__ = ["CLASSIFIER_OPERATORS", "OutputMetrics", "compare_output", "is_classifier"]
