"""Which corpus models the compiler must convert, and how to convert one for a test."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parents[1] / "data"

# The operators the built-in pack promises (issue: the main job). A corpus model made only of
# these must convert and match the reference; any other model must fail with a typed error.
PROMISED_OPS = frozenset(
    """
CONV_2D DEPTHWISE_CONV_2D FULLY_CONNECTED TRANSPOSE_CONV BATCH_MATMUL AVERAGE_POOL_2D MAX_POOL_2D
ADD SUB MUL SQUARED_DIFFERENCE MAXIMUM MINIMUM RESHAPE SQUEEZE EXPAND_DIMS SOFTMAX LOGISTIC TANH
RELU RELU6 LEAKY_RELU HARD_SWISH PRELU QUANTIZE DEQUANTIZE CONCATENATION PAD PADV2 MEAN SUM
REDUCE_MAX REDUCE_MIN REDUCE_PROD
TRANSPOSE STRIDED_SLICE SLICE SPLIT SPLIT_V PACK UNPACK ARG_MAX ARG_MIN GATHER
RESIZE_NEAREST_NEIGHBOR RESIZE_BILINEAR
UNIDIRECTIONAL_SEQUENCE_LSTM BIDIRECTIONAL_SEQUENCE_LSTM
SPACE_TO_DEPTH DEPTH_TO_SPACE SPACE_TO_BATCH_ND BATCH_TO_SPACE_ND MIRROR_PAD REVERSE_V2 TILE BROADCAST_TO
ABS NEG SQRT RSQRT SQUARE EXP LOG FLOOR CEIL ROUND SIGN SIN COS DIV POW FLOOR_DIV FLOOR_MOD ATAN2 ADD_N
EQUAL NOT_EQUAL GREATER GREATER_EQUAL LESS LESS_EQUAL LOGICAL_AND LOGICAL_OR LOGICAL_NOT SELECT SELECT_V2
SVDF UNIDIRECTIONAL_SEQUENCE_RNN RNN
GATHER_ND SCATTER_ND DYNAMIC_UPDATE_SLICE REVERSE_SEQUENCE WHERE FILL ZEROS_LIKE DILATE ONE_HOT CUMSUM
VAR_HANDLE READ_VARIABLE ASSIGN_VARIABLE CALL_ONCE
IF WHILE
GELU ELU RELU_0_TO_1 LOG_SOFTMAX L2_NORMALIZATION LOCAL_RESPONSE_NORMALIZATION
CAST SHAPE
""".split()
)

# Corpus models beyond the promise that must fail with UnsupportedModelError, written out by name
# (not derived from the operator lists) so a model that starts or stops converting is a visible
# change to this list. Each would fail for operators outside PROMISED_OPS, or for a tensor type
# (UNSUPPORTED_FOR_A_TENSOR_TYPE). Empty: every corpus model converts.
EXPECTED_UNSUPPORTED = frozenset(
    """
""".split()
)

# Unsupported for a tensor type no operator reads, before any operator is looked at: the message
# names the tensor type instead of operators.
UNSUPPORTED_FOR_A_TENSOR_TYPE = {}

# Golden files whose outputs are the same for every sample, so comparing with them cannot tell a
# correct module from a broken one. The MLPerf KWS int8 and VWW models carry untrained weights, and
# their class scores come out the same whatever the input (all-zero inputs included); their
# ``*_probe`` variants return every layer's output and check the same graphs layer by layer. These
# models stay in the corpus run (they must convert, build clean under the sanitizers and run), but
# no check that relies on the outputs may use them: the cross-build helpers refuse them, and
# tests/e2e/test_golden_informative.py fails for any other golden file that stops responding.
UNINFORMATIVE_GOLDEN = {
    "mlperf_kws_dscnn_int8": "mlperf_kws_dscnn_int8_probe",
    "mlperf_vww_mobilenetv1_025_int8": "mlperf_vww_mobilenetv1_025_int8_probe",
    "mlperf_vww_mobilenetv1_025_float32": "mlperf_vww_mobilenetv1_025_float32_probe",
}
"""Uninformative golden model -> the probe model that checks its graph."""


def require_informative(name: str) -> None:
    """Refuse a model whose golden outputs do not depend on the inputs, for checks that need them."""
    if name in UNINFORMATIVE_GOLDEN:
        raise ValueError(
            f"{name}'s golden outputs are the same for every input, so a check against them cannot "
            f"fail; use {UNINFORMATIVE_GOLDEN[name]}"
        )


# Models whose reference recording is known to be wrong, and the recording to trust instead.
# reduce_sum_int8: LiteRT's BUILTIN_REF int8 SUM reads signed data as unsigned (LiteRT issue
# #4079, see the manifest note), so its recording is off by up to 117 LSB. Our kernel follows the
# integer requantization the reference kernels intend, which TensorFlow Lite Micro's recording
# matches exactly (LiteRT's optimized kernel rounds through float and differs by 1 LSB).
KNOWN_REFERENCE_BUGS = {"reduce_sum_int8": "tflm_out"}

# small_unet_upsample_concat_int8 was recorded with LiteRT's optimized kernels (the reference
# resolver has no TILE version 3), whose LOGISTIC is 1 LSB off the reference kernels on a few
# values. Its expected outputs are the reference kernels' on a copy relabelled TILE version 2,
# checked against the recording first: relabelled_reference.RELABELLED_FOR_REFERENCE.

FLOAT_TOLERANCE = 0.0
"""Float outputs on the host: bit-identical to the reference (``test.tolerance: 0.0``).

Measured: every promised float corpus model, the probes included, matches LiteRT's reference
interpreter exactly when built with the host gcc (x86-64 glibc libm, no FMA contraction), so any
difference there is a defect, however small.
"""

HOST_FLOAT_TOLERANCE = {"lstm_fused_seq_tf_keras_float32": 1e-6}
"""Float models that the host build matches within a bound instead of bit for bit (relative to the
output's range: the tolerance times its largest expected magnitude).

LiteRT's float LSTM (lstm_eval.cc) runs its matrix products through the optimized
FullyConnected (ruy's vectorised kernels, whose summation order and fused multiply-adds a portable
C loop cannot reproduce) even under the reference op resolver, so the fused LSTM's outputs differ
from ours in the last bits: measured 1.2e-7 at most over the seven golden samples (107 of 126
values differ; the largest expected magnitude is 0.74). The bound, 1e-6 x 0.74 = 7.4e-7, is six
times that; a wrong gate or a lost state is off by orders of magnitude more.
"""

CORE_FLOAT_ULP = {"m55": 4, "m4": 256}
"""Float outputs on each core (under QEMU): within this many ULP of the reference, value by value.

A unit in the last place is the gap between a float32 and the next, so the bound is relative to
each value (``test.tolerance_ulp``), not absolute: it holds tiny activations as tightly as large
ones. Not exact, because the cross build links newlib's libm, whose ``tanhf`` and ``expf`` round
differently from the glibc the reference ran on, and the Cortex-M4 build's float arithmetic does
not round like the host's (its worst cases are recurrent models, where a difference in one step
carries into the next and into values near zero, where one ULP is tiny).

Measured (tests/e2e and the probes): on the M55 every float model without a transcendental
function matched exactly and the worst was 2 ULP (TANH, an unrolled LSTM); on the M4 the MLPerf
models were within 2 ULP (KWS probe 1, ResNet-8 2, AD 0), LOGISTIC, TANH and SOFTMAX within 2, the
unrolled LSTM 45 and the unrolled GRU 128. Each bound is twice the worst seen on that core; a broken
kernel is off by far more (a wrong padding or a skipped layer moves values by millions of ULP).
"""


def manifest() -> list[dict[str, Any]]:
    return json.loads((DATA_DIR / "manifest.json").read_text())


def promised(entry: dict[str, Any]) -> bool:
    return set(entry["ops"]) <= PROMISED_OPS


def is_integer_model(entry: dict[str, Any]) -> bool:
    return all(o["dtype"] not in ("float32", "float16") for o in entry["outputs"])


def model_path(entry: dict[str, Any]) -> Path:
    return DATA_DIR / entry["file"]


def golden_path(entry: dict[str, Any]) -> Path:
    return DATA_DIR / entry["golden"]


def expected_outputs(entry: dict[str, Any]) -> str:
    """Which recorded outputs a model must match (the reference, unless it is known wrong)."""
    return KNOWN_REFERENCE_BUGS.get(entry["name"], "ref_out")
