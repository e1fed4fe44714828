"""UNIDIRECTIONAL_SEQUENCE_RNN: a float32 sequence RNN with a variable hidden state, against
LiteRT's reference run after run (the golden is one interpreter invoked once per sample; the
module runs the samples in order on one context, so each checks the state the earlier ones
left). float32 within 1e-6: the kernels sum in LiteRT's order, the reference's matrix-vector
products may not.
"""

from __future__ import annotations

import pytest

from ops_builtin.support.recurrent_models import check_streamed, rnn_model


@pytest.mark.parametrize("time_major", [False, True])
@pytest.mark.parametrize(
    ("activation", "batch", "steps"), [("TANH", 2, 3), ("RELU", 1, 5), ("NONE", 3, 1), ("RELU_N1_TO_1", 2, 2)]
)
def test_sequence_rnn_matches_reference(tmp_path, time_major, activation, batch, steps):
    model = rnn_model(
        tmp_path / "rnn.tflite",
        batch=batch,
        steps=steps,
        inputs=4,
        units=5,
        time_major=time_major,
        activation=activation,
    )
    check_streamed(model, tmp_path, tolerance=1e-6)
