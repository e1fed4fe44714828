"""ARG_MAX: the index of the largest value along a constant axis.

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
        "ARG_MAX",
        [T((2, 5, 6), "float32"), const((), "int32", 1)],
        [T((2, 6), "int32")],
        options("ArgMaxOptionsT", outputType=2),
    ),
    "int8": SingleOp(
        "ARG_MAX",
        [T((3, 8), "int8", (0.05, 3)), const((), "int32", -1)],
        [T((3,), "int64")],
        options("ArgMaxOptionsT", outputType=4),
    ),
}
"""Case name -> its one-operator model."""


def test_arg_max_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)


FLOAT16 = float16_cases.named("arg_max")
"""The float16 cases (support/float16_cases.py): the float16 model against its float32 twin run by
the reference, within the bound docs/float16.md states."""


@pytest.mark.parametrize("case", FLOAT16, ids=[c.name for c in FLOAT16])
def test_arg_max_float16_matches_its_float32_twin(case, tmp_path):
    float16_cases.check_on_host(case, tmp_path)
