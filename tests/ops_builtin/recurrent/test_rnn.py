"""RNN: one step of a float32 basic RNN cell with a variable hidden state.

The operator's own cases: one single-operator model per activation, its inputs seeded, compared
with LiteRT's reference kernels on the host over consecutive runs (the state carried from run to
run; tests/ops_builtin/support/single_op.py, all cases of this file in one linked build).
Within 1e-6 of the largest output, as UNIDIRECTIONAL_SEQUENCE_RNN: the kernel sums in LiteRT's
order, the reference's matrix-vector products may not.
"""

from __future__ import annotations

from ops_builtin.support.single_op import (
    SingleOp,
    T,
    check_against_reference,
    const,
    options,
    seeded_uniform,
)


def _rnn(activation: int, batch: int = 2, inputs: int = 4, units: int = 5) -> SingleOp:
    return SingleOp(
        "RNN",
        [
            T((batch, inputs), "float32", low=-1.0, high=1.0),
            const((units, inputs), "float32", seeded_uniform(2719, -0.8, 0.8, units * inputs)),
            const((units, units), "float32", seeded_uniform(2720, -0.6, 0.6, units * units)),
            const((units,), "float32", seeded_uniform(2721, -0.5, 0.5, units)),
            T((batch, units), "float32", variable=True),
        ],
        [T((batch, units), "float32")],
        options("RNNOptionsT", fusedActivationFunction=activation),
        tolerance=1e-6,
        samples=4,
    )


CASES = {"tanh": _rnn(4), "relu": _rnn(1, batch=1), "none": _rnn(0, batch=3)}
"""Case name -> its one-operator model (fused activation codes: 4 TANH, 1 RELU, 0 NONE)."""


def test_rnn_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
