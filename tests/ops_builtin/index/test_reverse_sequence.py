"""REVERSE_SEQUENCE: the first lengths[b] elements of each batch's sequence reversed.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const, options

CASES = {
    "float32": SingleOp(
        "REVERSE_SEQUENCE",
        [T((3, 4, 5), "float32"), T((5,), "int32", low=0, high=4)],
        [T((3, 4, 5), "float32")],
        options("ReverseSequenceOptionsT", seqDim=1, batchDim=2),
    ),
    "int32": SingleOp(
        "REVERSE_SEQUENCE",
        [T((3, 4, 5), "int32"), const((3,), "int64", [3, 0, 5])],
        [T((3, 4, 5), "int32")],
        options("ReverseSequenceOptionsT", seqDim=2, batchDim=0),
    ),
}
"""Case name -> its one-operator model."""


def test_reverse_sequence_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
