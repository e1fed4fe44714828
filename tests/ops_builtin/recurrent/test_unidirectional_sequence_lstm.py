"""UNIDIRECTIONAL_SEQUENCE_LSTM end to end on builder-made models, against LiteRT's reference.

Every variant LiteRT's kernel accepts is covered in float32 and as the 8x8_16 integer LSTM (bit
exact): CIFG, peephole, projection with bias and clip, layer normalization, cell clip, time-major
input and several batch rows. Each model runs several samples one after another on one context,
checked against one interpreter invoked once per sample, so the output and cell state must carry
from one run to the next exactly as in the reference; the test also shows the state matters (a
fresh interpreter per sample answers differently). A hypothesis test draws random integer layers.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helia_aot.errors import UnsupportedModelError
from helia_aot.interpreters import create_interpreter
from helia_aot.testing import run_module_test_case
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ops_builtin.support.lstm_models import LstmSpec, convert_lstm, lstm_model

VARIANTS = [
    LstmSpec(),
    LstmSpec(cifg=True, peephole=True),
    LstmSpec(n_output=4, projection_bias=True, proj_clip=0.3, hidden_zero_point=7),
    LstmSpec(n_output=3, peephole=True),
    LstmSpec(layer_norm=True, n_cell=8),
    LstmSpec(time_major=True, batch=3, cell_clip=0.5),
    LstmSpec(batch=2, peephole=True, n_output=4, layer_norm=True, n_cell=8),
    LstmSpec(batch=2, time_major=True, cifg=True, peephole=True, n_output=3, layer_norm=True, n_cell=8),
]
CASES = [
    *(LstmSpec(**{**spec.__dict__, "dtype": "int8"}) for spec in VARIANTS),
    LstmSpec(dtype="int8", cell_scale_log2=-15, time=6),
    # The output state starts at its zero point (LiteRT's ResetVariableTensor), not at zero.
    LstmSpec(dtype="int8", output_zero_point=-5),
    *VARIANTS,
    LstmSpec(activation="RELU6", cell_clip=2.0, batch=2),
    LstmSpec(activation="RELU_N1_TO_1", time_major=True, batch=2),
]


def _reference_runs(path: Path, inputs: list[np.ndarray], *, fresh: bool) -> list[np.ndarray]:
    """The reference's outputs for each input, from one interpreter or a fresh one per input."""
    interpreter = create_interpreter(path)
    outputs = []
    for value in inputs:
        if fresh:
            interpreter = create_interpreter(path)
        outputs.append(np.asarray(interpreter.run([value])[0]))
    return outputs


def _check(spec: LstmSpec, tmp_path: Path) -> None:
    path = lstm_model(spec, tmp_path / "model.tflite")
    result = convert_lstm(path, tmp_path, spec)
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{spec}\n{run.stdout}\n{run.stderr[-4000:]}"


@pytest.mark.parametrize("spec", CASES, ids=[s.label + f"_{s.activation.lower()}" for s in CASES])
def test_lstm_matches_reference_over_consecutive_runs(spec, tmp_path):
    _check(spec, tmp_path)


@pytest.mark.parametrize("dtype", ["float32", "int8"])
def test_state_carries_between_runs_in_the_reference(dtype, tmp_path):
    """The checks above would pass without state handling if the state did not matter: it does,
    and the reference's outputs vary (so a constant module cannot pass either)."""
    spec = LstmSpec(dtype=dtype, peephole=True, batch=2)
    path = lstm_model(spec, tmp_path / "model.tflite")
    rng = np.random.default_rng(3)
    shape = (spec.batch, spec.time, spec.n_input)
    if dtype == "int8":
        inputs = [rng.integers(-128, 128, shape).astype(np.int8) for _ in range(3)]
    else:
        inputs = [rng.uniform(-1, 1, shape).astype(np.float32) for _ in range(3)]
    carried = _reference_runs(path, inputs, fresh=False)
    fresh = _reference_runs(path, inputs, fresh=True)
    np.testing.assert_array_equal(carried[0], fresh[0])
    assert not np.array_equal(carried[1], fresh[1]) and not np.array_equal(carried[2], fresh[2])
    assert len(np.unique(carried[2])) > carried[2].size // 3


@settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    sizes=st.tuples(st.integers(1, 3), st.integers(1, 4), st.integers(1, 7), st.integers(1, 9)),
    flags=st.tuples(st.booleans(), st.booleans(), st.booleans(), st.booleans(), st.booleans()),
    projection=st.one_of(st.none(), st.integers(1, 6)),
    cell_scale_log2=st.integers(-15, -9),
    clip=st.sampled_from([0.0, 0.8]),
    hidden_zero_point=st.integers(-20, 20),
    seed=st.integers(0, 1000),
)
def test_random_integer_lstm_layers_are_bit_exact(
    sizes, flags, projection, cell_scale_log2, clip, hidden_zero_point, seed, tmp_path_factory
):
    batch, time, n_input, n_cell = sizes
    cifg, peephole, layer_norm, time_major, projection_bias = flags
    if peephole and projection is not None and projection > n_cell:
        projection = n_cell  # the integer peephole with a wider projection is refused (see below)
    spec = LstmSpec(
        dtype="int8",
        batch=batch,
        time=time,
        n_input=n_input,
        n_cell=n_cell,
        n_output=projection,
        cifg=cifg,
        peephole=peephole,
        layer_norm=layer_norm,
        time_major=time_major,
        projection_bias=projection_bias and projection is not None,
        cell_clip=clip,
        proj_clip=clip / 2 if projection is not None else 0.0,
        cell_scale_log2=cell_scale_log2,
        hidden_zero_point=hidden_zero_point if projection is not None else 0,
        seed=seed,
    )
    _check(spec, tmp_path_factory.mktemp("lstm"))


@pytest.mark.parametrize(
    "spec, message",
    [
        (LstmSpec(activation="NONE"), "cell activation NONE"),
        (LstmSpec(dtype="int8", activation="RELU"), "always uses TANH"),
        (LstmSpec(dtype="int8", n_output=9, n_cell=6, peephole=True), "wider than the cell"),
        (LstmSpec(dtype="int16"), "int16 input has no LiteRT LSTM kernel"),
    ],
    ids=[
        "float_none_activation",
        "int8_relu",
        "int8_peephole_wide_projection",
        "int16_input",
    ],
)
def test_unsupported_variants_are_refused_with_a_reason(spec, message, tmp_path):
    path = lstm_model(spec, tmp_path / "model.tflite")
    with pytest.raises(UnsupportedModelError, match=message):
        convert_lstm(path, tmp_path, spec)
