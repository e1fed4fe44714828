"""DIV: the broadcast quotient (divisors kept away from zero).

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

import pytest

from ops_builtin.support import float16_cases
from ops_builtin.support.single_op import binary, check_against_reference

CASES = {
    "float32": binary("DIV", "float32", second=(0.5, 4.0)),
    "int8": binary("DIV", "int8", quants=((0.05, 3), (0.03, -7), (0.1, 2)), second=(-6, 127)),
    "int16": binary("DIV", "int16", quants=((0.001, 0), (0.0005, 0), (0.004, 0)), second=(1, 32767)),
    "int32": binary("DIV", "int32", second=(1, 100)),
}
"""Case name -> its one-operator model."""


def test_div_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)


FLOAT16 = float16_cases.named("div_relu")
"""The float16 cases (support/float16_cases.py): the float16 model against its float32 twin run by
the reference, within the bound docs/float16.md states."""


@pytest.mark.parametrize("case", FLOAT16, ids=[c.name for c in FLOAT16])
def test_div_float16_matches_its_float32_twin(case, tmp_path):
    float16_cases.check_on_host(case, tmp_path)
