"""Hybrid FULLY_CONNECTED, CONV_2D, DEPTHWISE_CONV_2D, BATCH_MATMUL, UNIDIRECTIONAL_SEQUENCE_RNN,
SVDF and UNIDIRECTIONAL_SEQUENCE_LSTM on both cores under QEMU (the recurrent states carried
across the golden samples).

The builder-made hybrid models of tests/ops_builtin/support/hybrid_models.py (float32
activations, int8 weights, int4 ones for a FULLY_CONNECTED and a CONV_2D; symmetric and
asymmetric input quantization, per-tensor and per-unit scales), each with golden outputs from
LiteRT's reference kernels, and the hybrid corpus models (KWS DS-CNN and the AD autoencoder
quantized with ai-edge-quantizer's dynamic recipe), linked into one program per core. Float
outputs must be within the core's documented bound (CORE_FLOAT_ULP); the kernels call no libm
function here (no TANH), so the measured result is exact on both cores. The exception is the
LSTM made by TensorFlow's converter (tests/data/hybrid/lstm_hybrid.tflite), whose gates call
expf and tanhf: it is held to HYBRID_LSTM_TOLERANCE of its range, as on the host.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.testing import CORES, cross_build_program, run_qemu

from .corpus import CORE_FLOAT_ULP
from .linked import Module, check_verdicts, convert_models, write_main

pytestmark = [pytest.mark.cross]


def _builders():
    """tests/ops_builtin/support/hybrid_models.py (the e2e and ops_builtin folders are separate packages)."""
    path = Path(__file__).resolve().parents[1] / "ops_builtin" / "support" / "hybrid_models.py"
    spec = importlib.util.spec_from_file_location("hybrid_models_for_cross", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


H = _builders()
HYBRID_LSTM = Path(__file__).resolve().parents[1] / "data" / "hybrid" / "lstm_hybrid"
"""The hybrid LSTM TensorFlow's converter made (.tflite) and its reference golden (.npz)."""
HYBRID_LSTM_TOLERANCE = 2e-6
"""As tests/ops_builtin/recurrent/test_lstm_hybrid.py: a fraction of the largest expected value."""
CORPUS = ("mlperf_kws_dscnn_hybrid", "mlperf_ad_fc_autoencoder_hybrid")
"""The hybrid corpus models (tests/data/hybrid/make_hybrid_models.py)."""


def models(root: Path) -> dict[str, Path]:
    return {
        "fc_symmetric": H.fc_hybrid_model(root / "fc_s.tflite", batches=2, depth=37, units=9, seed=1),
        "fc_asymmetric_per_unit": H.fc_hybrid_model(
            root / "fc_a.tflite", batches=3, depth=48, units=8, per_channel=True, asymmetric=True, seed=2
        ),
        "conv_per_channel": H.conv_hybrid_model(root / "conv_c.tflite", stride=(2, 1), seed=3),
        # Int4 weights (unpacked once, then the same kernels), where LiteRT runs them hybrid.
        "fc_int4_asymmetric_per_unit": H.fc_hybrid_model(
            root / "fc_4.tflite",
            batches=2,
            depth=33,
            units=6,
            per_channel=True,
            asymmetric=True,
            int4=True,
            seed=9,
        ),
        "conv_int4_per_channel": H.conv_hybrid_model(
            root / "conv_4.tflite", activation="RELU", int4=True, seed=10
        ),
        "conv_per_tensor": H.conv_hybrid_model(
            root / "conv_t.tflite", per_channel=False, activation="RELU6", seed=4
        ),
        "depthwise": H.conv_hybrid_model(root / "dw.tflite", depthwise=True, out_channels=6, seed=5),
        "sequence_rnn_time_major_asymmetric": H.rnn_hybrid_model(
            root / "rnn.tflite",
            batch=2,
            steps=3,
            inputs=5,
            units=4,
            time_major=True,
            asymmetric=True,
            activation="RELU6",
            seed=7,
        ),
        "svdf_rank2_asymmetric": H.svdf_hybrid_model(
            root / "svdf.tflite", batch=2, inputs=7, units=3, rank=2, memory=3, asymmetric=True, seed=8
        ),
        "batch_matmul_adjoint_asymmetric": H.bmm_hybrid_model(
            root / "bmm.tflite",
            lhs_shape=(2, 10, 3),
            rhs_shape=(2, 6, 10),
            adj_x=True,
            adj_y=True,
            per_channel=True,
            asymmetric=True,
            seed=6,
        ),
    }


@pytest.mark.parametrize("core", sorted(CORES))
def test_hybrid_operators_pass_on_the_core(core, tmp_path):
    (tmp_path / "corpus").mkdir()
    modules = convert_models(CORPUS, tmp_path / "corpus", core=core)
    for i, (name, model) in enumerate(models(tmp_path).items()):
        golden = H.reference_golden(model, H.hybrid_samples(model, 4, seed=i), tmp_path / f"{name}.npz")
        config = ConvertArgs.model_validate(
            {
                "model": {"path": str(model)},
                "module": {"path": str(tmp_path / name), "name": "module", "prefix": f"h{i}"},
                "test": {
                    "enabled": True,
                    "golden_data": str(golden),
                    "tolerance": 0.0,
                    "tolerance_ulp": CORE_FLOAT_ULP[core],
                },
            }
        )
        result = AotConverter(config).convert()
        modules.append(Module(name, result.prefix, Path(result.output)))
    config = ConvertArgs.model_validate(
        {
            "model": {"path": str(HYBRID_LSTM.with_suffix(".tflite"))},
            "module": {"path": str(tmp_path / "lstm"), "name": "module", "prefix": "hlstm"},
            "test": {
                "enabled": True,
                "golden_data": str(HYBRID_LSTM.with_suffix(".npz")),
                "tolerance": HYBRID_LSTM_TOLERANCE,
            },
        }
    )
    result = AotConverter(config).convert()
    modules.append(Module("keras_lstm_hybrid", result.prefix, Path(result.output)))
    main = write_main(modules, tmp_path / "main.c")
    sources = [main, *(s for m in modules for s in m.sources)]
    elf = cross_build_program(
        sources, tmp_path, CORES[core], include_dirs=[d for m in modules for d in m.include_dirs]
    )
    run = run_qemu(elf, CORES[core], timeout=300, count=False)
    assert run.returncode == 0, run.stdout
    check_verdicts(run.stdout, modules)
    print(run.stdout)
