"""DEPTHWISE_CONV_2D: per-channel 2-D convolution, float32 and int8 with per-channel weights.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

import numpy as np
import pytest
from helia_aot.litert import schema_py_generated as litert

from ops_builtin.support import float16_cases
from ops_builtin.support.single_op import (
    SingleOp,
    T,
    check_against_reference,
    const,
    options,
    seeded_integers,
    seeded_uniform,
)

SAME, VALID = litert.Padding.SAME, litert.Padding.VALID

CASES = {
    "float32_m2": SingleOp(
        "DEPTHWISE_CONV_2D",
        [
            T((1, 5, 6, 3), "float32"),
            const((1, 3, 3, 6), "float32", seeded_uniform(32327, -1, 1, 54)),
            const((6,), "float32", np.arange(6) * 0.25),
        ],
        [T((1, 5, 6, 6), "float32")],
        options("DepthwiseConv2DOptionsT", padding=SAME, strideW=1, strideH=1, depthMultiplier=2),
    ),
    "int8_stride2": SingleOp(
        "DEPTHWISE_CONV_2D",
        [
            T((1, 7, 7, 4), "int8", (0.05, -3)),
            const(
                (1, 3, 3, 4),
                "int8",
                seeded_integers(32328, -127, 128, 36),
                (np.array([0.01, 0.02, 0.005, 0.03]), np.zeros(4, np.int64), 3),
            ),
            const(
                (4,),
                "int32",
                [10, -50, 0, 30],
                (np.array([0.0005, 0.001, 0.00025, 0.0015]), np.zeros(4, np.int64), 0),
            ),
        ],
        [T((1, 3, 3, 4), "int8", (0.05, 5))],
        options("DepthwiseConv2DOptionsT", padding=VALID, strideW=2, strideH=2, depthMultiplier=1),
    ),
}
"""Case name -> its one-operator model."""


def test_depthwise_conv_2d_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)


FLOAT16 = float16_cases.named("depthwise_3x3_m1", "depthwise_3x3_m2_s2", "depthwise_3x3_m1_fast")
"""The float16 cases (support/float16_cases.py): the float16 model against its float32 twin run by
the reference, within the bound docs/float16.md states."""


@pytest.mark.parametrize("case", FLOAT16, ids=[c.name for c in FLOAT16])
def test_depthwise_conv_2d_float16_matches_its_float32_twin(case, tmp_path):
    float16_cases.check_on_host(case, tmp_path)
