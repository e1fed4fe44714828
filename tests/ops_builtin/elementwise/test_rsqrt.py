"""RSQRT: the reciprocal square root of positive inputs.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

import pytest

from ops_builtin.support import float16_cases
from ops_builtin.support.single_op import check_against_reference, unary

CASES = {
    "float32": unary("RSQRT", "float32", low=0.01, high=9.0),
}
"""Case name -> its one-operator model."""


def test_rsqrt_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)


FLOAT16 = float16_cases.named("rsqrt")
"""The float16 cases (support/float16_cases.py): the float16 model against its float32 twin run by
the reference, within the bound docs/float16.md states."""


@pytest.mark.parametrize("case", FLOAT16, ids=[c.name for c in FLOAT16])
def test_rsqrt_float16_matches_its_float32_twin(case, tmp_path):
    float16_cases.check_on_host(case, tmp_path)
