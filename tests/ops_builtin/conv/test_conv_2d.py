"""CONV_2D: 2-D convolution, float32 and int8 with per-channel weights.

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
    "float32_same": SingleOp(
        "CONV_2D",
        [
            T((1, 6, 7, 5), "float32"),
            const((4, 3, 3, 5), "float32", seeded_uniform(34465, -1, 1, 180)),
            const((4,), "float32", [0.5, -1, 0, 2]),
        ],
        [T((1, 6, 7, 4), "float32")],
        options("Conv2DOptionsT", padding=SAME, strideW=1, strideH=1),
    ),
    "int8_valid_stride2_relu": SingleOp(
        "CONV_2D",
        [
            T((1, 7, 6, 3), "int8", (0.05, 3)),
            const(
                (4, 2, 2, 3),
                "int8",
                seeded_integers(34466, -127, 128, 48),
                (np.array([0.01, 0.02, 0.005, 0.03]), np.zeros(4, np.int64), 0),
            ),
            const(
                (4,),
                "int32",
                [100, -50, 0, 300],
                (np.array([0.0005, 0.001, 0.00025, 0.0015]), np.zeros(4, np.int64), 0),
            ),
        ],
        [T((1, 3, 3, 4), "int8", (0.1, -20))],
        options("Conv2DOptionsT", padding=VALID, strideW=2, strideH=2, fusedActivationFunction=1),
    ),
}
"""Case name -> its one-operator model."""


def test_conv_2d_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)


FLOAT16 = float16_cases.named(
    "conv_3x3_same", "conv_2x2_s2_valid", "conv_1x1", "conv_3x3_same_fast", "conv_1x1_fast"
)
"""The float16 cases (support/float16_cases.py): the float16 model against its float32 twin run by
the reference, within the bound docs/float16.md states."""


@pytest.mark.parametrize("case", FLOAT16, ids=[c.name for c in FLOAT16])
def test_conv_2d_float16_matches_its_float32_twin(case, tmp_path):
    float16_cases.check_on_host(case, tmp_path)
