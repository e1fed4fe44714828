"""AVERAGE_POOL_2D: the average of each window.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

import pytest
from helia_aot.litert import schema_py_generated as litert

from ops_builtin.support import float16_cases
from ops_builtin.support.single_op import SingleOp, T, check_against_reference, options

SAME, VALID = litert.Padding.SAME, litert.Padding.VALID

CASES = {
    "float32_same": SingleOp(
        "AVERAGE_POOL_2D",
        [T((1, 7, 6, 4), "float32")],
        [T((1, 4, 3, 4), "float32")],
        options("Pool2DOptionsT", padding=SAME, strideW=2, strideH=2, filterWidth=3, filterHeight=3),
    ),
    "int8_valid": SingleOp(
        "AVERAGE_POOL_2D",
        [T((2, 6, 6, 3), "int8", (0.05, 3))],
        [T((2, 3, 3, 3), "int8", (0.05, 3))],
        options("Pool2DOptionsT", padding=VALID, strideW=2, strideH=2, filterWidth=2, filterHeight=2),
    ),
    "int16": SingleOp(
        "AVERAGE_POOL_2D",
        [T((1, 4, 5, 2), "int16", (0.001, 0))],
        [T((1, 2, 4, 2), "int16", (0.001, 0))],
        options("Pool2DOptionsT", padding=VALID, strideW=1, strideH=2, filterWidth=2, filterHeight=2),
    ),
}
"""Case name -> its one-operator model."""


def test_average_pool_2d_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)


FLOAT16 = float16_cases.named("avg_pool_3x3_s2")
"""The float16 cases (support/float16_cases.py): the float16 model against its float32 twin run by
the reference, within the bound docs/float16.md states."""


@pytest.mark.parametrize("case", FLOAT16, ids=[c.name for c in FLOAT16])
def test_average_pool_2d_float16_matches_its_float32_twin(case, tmp_path):
    float16_cases.check_on_host(case, tmp_path)
