"""ONNX_LOGISTIC and ONNX_LEAKY_RELU: int8 Sigmoid and LeakyRelu as onnxruntime's default session
computes them. It fuses ``DequantizeLinear -> Sigmoid (LeakyRelu) -> QuantizeLinear`` into
QLinearSigmoid (QLinearLeakyRelu), which looks each int8 input up in a 256-entry table: every
input value dequantized in float32, run through the float function, quantized (divided by the
output scale, rounded half to even). The ONNX front end writes these operators for such a group;
the table is built here with onnxruntime's float32 steps, and the kernel is the plain lookup of
``hk_table.h``. Sigmoid is MLAS's logistic, the rational approximation onnxruntime evaluates
(clamped to [-18, 18], odd polynomial over even one, plus a half, clamped to [0, 1]).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
from helia_aot.air import AirOperatorOptions
from helia_aot.pack import OperatorRecord

from helia_aot_ops_builtin.common.kernel_call import KernelCall
from helia_aot_ops_builtin.onnx_requant.onnx_operators import PER_TENSOR, _OnnxOperator
from helia_aot_ops_builtin.onnx_requant.onnx_resize import written_by_the_front_end

F32 = np.float32
LOGISTIC_RANGE = F32(18.0)
LOGISTIC_NUMERATOR = tuple(
    F32(v)
    for v in (
        4.37031012579801e-11,
        1.15627324459942e-07,
        6.08574864600143e-05,
        8.51377133304701e-03,
        2.48287947061529e-01,
    )
)
"""The odd polynomial's coefficients, x^9 down to x^1 (MLAS's, which are Eigen's)."""
LOGISTIC_DENOMINATOR = tuple(
    F32(v)
    for v in (
        6.10247389755681e-13,
        5.76102136993427e-09,
        6.29106785017040e-06,
        1.70198817374094e-03,
        1.16817656904453e-01,
        9.93151921023180e-01,
    )
)
"""The even polynomial's coefficients, x^10 down to x^0."""


def mlas_logistic(x: np.ndarray) -> np.ndarray:
    """MLAS's logistic of float32 ``x``, each step in float32 (a multiply, then an add)."""
    v = np.clip(np.asarray(x, F32), -LOGISTIC_RANGE, LOGISTIC_RANGE).astype(F32)
    square = (v * v).astype(F32)
    p = np.full_like(v, LOGISTIC_NUMERATOR[0])
    for coefficient in LOGISTIC_NUMERATOR[1:]:
        p = ((p * square).astype(F32) + coefficient).astype(F32)
    p = (p * v).astype(F32)
    q = np.full_like(v, LOGISTIC_DENOMINATOR[0])
    for coefficient in LOGISTIC_DENOMINATOR[1:]:
        q = ((q * square).astype(F32) + coefficient).astype(F32)
    return np.clip(((p / q).astype(F32) + F32(0.5)).astype(F32), F32(0.0), F32(1.0)).astype(F32)


def leaky_relu(alpha: float) -> Callable[[np.ndarray], np.ndarray]:
    """onnxruntime's float LeakyRelu: ``x`` where ``x >= 0``, else ``alpha * x`` in float32."""
    a = F32(alpha)

    def apply(x: np.ndarray) -> np.ndarray:
        return np.where(x >= 0, x, (x * a).astype(F32)).astype(F32)

    return apply


def lookup_table(
    function: Callable[[np.ndarray], np.ndarray], x_scale: float, x_zero: int, y_scale: float, y_zero: int
) -> np.ndarray:
    """The int8 table onnxruntime's QLinearLookupBase builds, indexed by the input byte read as
    unsigned (entry ``x & 0xFF`` holds the output for input ``x``)."""
    inputs = np.arange(-128, 128)
    dequantized = ((inputs - int(x_zero)).astype(F32) * F32(x_scale)).astype(F32)
    divided = (function(dequantized) / F32(y_scale)).astype(F32)
    quantized = np.clip(np.rint(divided) + int(y_zero), -128, 127).astype(np.int8)
    table = np.empty(256, np.int8)
    table[inputs & 0xFF] = quantized
    return table


@dataclass(slots=True)
class AirOnnxLeakyReluOptions(AirOperatorOptions):
    """ONNX_LEAKY_RELU's slope below zero."""

    alpha: float = 0.01


class _OnnxLookupOperator(_OnnxOperator):
    KERNELS = ("table",)
    ORT_KERNEL = ""
    """The onnxruntime kernel whose table this is."""
    INPLACE_INPUTS = (0,)  # element i is read before it is written

    def function(self) -> Callable[[np.ndarray], np.ndarray]:
        raise NotImplementedError

    def check(self) -> Iterable[str]:
        x, y = self.input_tensors[0], self.output_tensors[0]
        yield from self._per_tensor(x, y)
        if x.size != y.size:
            yield f"the input has {x.size} elements but the output {y.size}"

    def kernel(self) -> KernelCall:
        x, y = self.input_tensors[0], self.output_tensors[0]
        values = lookup_table(self.function(), x.scale(), x.zero_point(), y.scale(), y.zero_point())
        table = self._table(
            "table",
            "int8_t",
            [str(int(v)) for v in values],
            f"onnxruntime's {self.ORT_KERNEL} table: entry (uint8_t)x",
        )
        args = [self.table_ref(table), self.ptr(x, const=True), self.ptr(y), f"{x.size}u"]
        return KernelCall("table_s8", args, tables=[table])


class OnnxLogisticOperator(_OnnxLookupOperator):
    """ONNX_LOGISTIC: onnxruntime's QLinearSigmoid (a table of MLAS's logistic)."""

    TYPE = "ONNX_LOGISTIC"
    ORT_KERNEL = "QLinearSigmoid"
    RESTRICTIONS = (
        "Written by the ONNX front end for DequantizeLinear -> Sigmoid -> QuantizeLinear "
        "(never read from a file).",
        PER_TENSOR,
    )

    def function(self) -> Callable[[np.ndarray], np.ndarray]:
        return mlas_logistic


class OnnxLeakyReluOperator(_OnnxLookupOperator):
    """ONNX_LEAKY_RELU: onnxruntime's QLinearLeakyRelu (a table of the float LeakyRelu)."""

    TYPE = "ONNX_LEAKY_RELU"
    ORT_KERNEL = "QLinearLeakyRelu"
    RESTRICTIONS = (
        "Written by the ONNX front end for DequantizeLinear -> LeakyRelu -> QuantizeLinear "
        "(never read from a file).",
        PER_TENSOR,
    )

    def function(self) -> Callable[[np.ndarray], np.ndarray]:
        return leaky_relu(self.typed_options(AirOnnxLeakyReluOptions).alpha)


REGISTRATIONS = [
    OperatorRecord(OnnxLogisticOperator.TYPE, written_by_the_front_end, None, OnnxLogisticOperator),
    OperatorRecord(
        OnnxLeakyReluOperator.TYPE, written_by_the_front_end, AirOnnxLeakyReluOptions, OnnxLeakyReluOperator
    ),
]
