"""MEAN: the average over constant axes (int8 requantized).

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

import pytest

from ops_builtin.support import float16_cases
from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const, options

CASES = {
    "float32": SingleOp(
        "MEAN",
        [T((2, 3, 4, 5), "float32"), const((2,), "int32", [1, 2])],
        [T((2, 1, 1, 5), "float32")],
        options("ReducerOptionsT", keepDims=True),
    ),
    "int8": SingleOp(
        "MEAN",
        [T((1, 4, 6, 3), "int8", (0.05, 3)), const((2,), "int32", [1, 2])],
        [T((1, 3), "int8", (0.03, -2))],
        options("ReducerOptionsT", keepDims=False),
    ),
    "int16": SingleOp(
        "MEAN",
        [T((2, 5, 4), "int16", (0.001, 0)), const((1,), "int32", [1])],
        [T((2, 1, 4), "int16", (0.001, 0))],
        options("ReducerOptionsT", keepDims=True),
    ),
}
"""Case name -> its one-operator model."""


def test_mean_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)


FLOAT16 = float16_cases.named("mean_hw")
"""The float16 cases (support/float16_cases.py): the float16 model against its float32 twin run by
the reference, within the bound docs/float16.md states."""


@pytest.mark.parametrize("case", FLOAT16, ids=[c.name for c in FLOAT16])
def test_mean_float16_matches_its_float32_twin(case, tmp_path):
    float16_cases.check_on_host(case, tmp_path)
