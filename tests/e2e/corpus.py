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
TRANSPOSE STRIDED_SLICE SLICE SPLIT SPLIT_V PACK UNPACK ARG_MAX ARG_MIN GATHER
RESIZE_NEAREST_NEIGHBOR RESIZE_BILINEAR
ABS NEG SQRT RSQRT SQUARE EXP LOG FLOOR CEIL ROUND SIGN SIN COS DIV POW FLOOR_DIV FLOOR_MOD ATAN2 ADD_N
EQUAL NOT_EQUAL GREATER GREATER_EQUAL LESS LESS_EQUAL LOGICAL_AND LOGICAL_OR LOGICAL_NOT SELECT SELECT_V2
""".split()
)

# Models whose reference recording is known to be wrong, and the recording to trust instead.
# reduce_sum_int8: LiteRT's BUILTIN_REF int8 SUM reads signed data as unsigned (LiteRT issue
# #4079, see the manifest note), so its recording is off by up to 117 LSB. Our kernel follows the
# integer requantization the reference kernels intend, which TensorFlow Lite Micro's recording
# matches exactly (LiteRT's optimized kernel rounds through float and differs by 1 LSB).
KNOWN_REFERENCE_BUGS = {"reduce_sum_int8": "tflm_out"}

FLOAT_TOLERANCE = 1e-5
"""Float outputs: |actual - expected| <= 1e-5 * max(1, |expected|)."""


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
