"""PRELU: x for x >= 0, alpha * x otherwise, alpha a broadcast constant.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

import numpy as np
import pytest

from ops_builtin.support import float16_cases
from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const

CASES = {
    "float32": SingleOp(
        "PRELU",
        [T((1, 3, 4, 5), "float32"), const((4, 5), "float32", np.linspace(-0.5, 0.5, 20))],
        [T((1, 3, 4, 5), "float32")],
    ),
    "int8": SingleOp(
        "PRELU",
        [T((1, 3, 4, 5), "int8", (0.05, 3)), const((4, 5), "int8", np.arange(-60, 100, 8), (0.005, 0))],
        [T((1, 3, 4, 5), "int8", (0.04, -10))],
    ),
}
"""Case name -> its one-operator model."""


def test_prelu_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)


FLOAT16 = float16_cases.named("prelu")
"""The float16 cases (support/float16_cases.py): the float16 model against its float32 twin run by
the reference, within the bound docs/float16.md states."""


@pytest.mark.parametrize("case", FLOAT16, ids=[c.name for c in FLOAT16])
def test_prelu_float16_matches_its_float32_twin(case, tmp_path):
    float16_cases.check_on_host(case, tmp_path)
