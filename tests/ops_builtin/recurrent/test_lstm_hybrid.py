"""Hybrid UNIDIRECTIONAL_SEQUENCE_LSTM (float32 activations, int8 weights) against LiteRT.

One model comes from TensorFlow's converter with dynamic-range quantization (a Keras LSTM and a
dense layer, tests/data/hybrid/make_lstm_hybrid_model.py: asymmetric input quantization, cell
clip), with golden data from LiteRT's reference kernels; the others are builder-made layers with
every variant the reference's hybrid kernel has (CIFG, peephole, projection with bias and clip,
layer normalization, time-major input, several batch rows, symmetric and asymmetric input
quantization). Each golden carries the LSTM's state from sample to sample (one reference
interpreter), and its first sample is all zero, where the reference skips the products.

The integer parts (row quantization, int8 products, row-sum offsets) are the reference's
operations in its order; the gates' sigmoid and tanh are the float LSTM's expf / tanhf, not
LiteRT's vectorised ones, so the outputs agree within HYBRID_LSTM_TOLERANCE of the largest
expected magnitude rather than to the bit.
"""

from __future__ import annotations

from pathlib import Path

import flatbuffers
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import UnsupportedModelError
from helia_aot.litert import schema_py_generated as litert
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ops_builtin.support.hybrid_models import hybrid_samples, reference_golden
from ops_builtin.support.linked_host import run_linked
from ops_builtin.support.lstm_models import LstmSpec, lstm_model

HYBRID_LSTM_TOLERANCE = 2e-6
"""Largest difference allowed, as a fraction of the largest expected output magnitude (worst
measured on the host: 4.0e-7, a RELU6 cell activation; 1.7e-7 on the TensorFlow-made model)."""

DATA = Path(__file__).resolve().parents[2] / "data" / "hybrid"

VARIANTS = {
    "plain": LstmSpec(dtype="hybrid"),
    "asymmetric_batches": LstmSpec(dtype="hybrid", asymmetric=True, batch=2),
    "cifg_peephole": LstmSpec(dtype="hybrid", cifg=True, peephole=True),
    "projection_asymmetric": LstmSpec(
        dtype="hybrid", n_output=4, projection_bias=True, proj_clip=0.3, asymmetric=True
    ),
    "layer_norm_peephole": LstmSpec(dtype="hybrid", layer_norm=True, n_cell=8, peephole=True),
    "time_major_asymmetric_clip": LstmSpec(
        dtype="hybrid", time_major=True, batch=3, cell_clip=0.5, asymmetric=True
    ),
    "relu6_projection_time_major": LstmSpec(
        dtype="hybrid", activation="RELU6", batch=2, time_major=True, n_output=3, peephole=True
    ),
}


def _check(cases: dict[str, Path], tmp_path: Path, seed: int) -> None:
    linked = {}
    for name, model in cases.items():
        golden = reference_golden(model, hybrid_samples(model, 5, seed), tmp_path / f"{name}.npz")
        linked[name] = (model, golden, HYBRID_LSTM_TOLERANCE)
    sections = run_linked(linked, tmp_path / "linked")
    for name in cases:
        assert "PASS" in sections[name], sections[name]


def test_tensorflow_converted_hybrid_lstm_matches_the_reference(tmp_path):
    model, golden = DATA / "lstm_hybrid.tflite", DATA / "lstm_hybrid.npz"
    sections = run_linked({"keras_lstm": (model, golden, HYBRID_LSTM_TOLERANCE)}, tmp_path)
    assert "within tolerance" in sections["keras_lstm"], sections["keras_lstm"]
    config = {"model": {"path": str(model)}, "module": {"path": str(tmp_path / "plan"), "name": "m"}}
    result = AotConverter(ConvertArgs.model_validate(config)).convert()
    (lstm,) = [op for op in result.plan.operators if op.op_type == "UNIDIRECTIONAL_SEQUENCE_LSTM"]
    assert "lstm_hybrid" in str(lstm.kernel), lstm.kernel


def test_hybrid_lstm_variants_match_the_reference_run_after_run(tmp_path):
    cases = {name: lstm_model(spec, tmp_path / f"{name}.tflite") for name, spec in VARIANTS.items()}
    _check(cases, tmp_path, seed=1)


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    sizes=st.tuples(st.integers(1, 3), st.integers(1, 4), st.integers(1, 9), st.integers(1, 9)),
    flags=st.tuples(st.booleans(), st.booleans(), st.booleans(), st.booleans(), st.booleans()),
    projection=st.one_of(st.none(), st.integers(1, 6)),
    seed=st.integers(0, 1000),
)
def test_random_hybrid_lstm_layers(sizes, flags, projection, seed, tmp_path_factory):
    batch, time, n_input, n_cell = sizes
    cifg, peephole, layer_norm, time_major, asymmetric = flags
    spec = LstmSpec(
        dtype="hybrid",
        batch=batch,
        time=time,
        n_input=n_input,
        n_cell=n_cell,
        n_output=projection,
        cifg=cifg,
        peephole=peephole,
        layer_norm=layer_norm and n_cell > 1,
        time_major=time_major,
        asymmetric=asymmetric,
        projection_bias=projection is not None,
        seed=seed,
    )
    root = tmp_path_factory.mktemp("hybrid_lstm")
    _check({"random": lstm_model(spec, root / "random.tflite")}, root, seed=seed)


def test_per_channel_hybrid_lstm_weights_are_refused(tmp_path):
    """LiteRT's hybrid LSTM reads one scale per weight tensor: per-channel weights are named."""
    path = lstm_model(LstmSpec(dtype="hybrid"), tmp_path / "model.tflite")
    model = litert.ModelT.InitFromPackedBuf(path.read_bytes(), 0)
    (graph,) = model.subgraphs
    weights = next(t for t in graph.tensors if t.name in (b"w_x_forget", "w_x_forget"))
    weights.quantization.scale = [0.01] * 6
    weights.quantization.zeroPoint = [0] * 6
    weights.quantization.quantizedDimension = 0
    builder = flatbuffers.Builder(0)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    path.write_bytes(bytes(builder.Output()))
    config = {"model": {"path": str(path)}, "module": {"path": str(tmp_path / "out"), "name": "m"}}
    with pytest.raises(UnsupportedModelError, match="need one scale"):
        AotConverter(ConvertArgs.model_validate(config)).convert()
