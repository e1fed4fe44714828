"""UNIDIRECTIONAL_SEQUENCE_RNN and RNN: the basic recurrent cell h = act(W x + R h + b).

Inputs are the sequence (or, for RNN, one step), the input weights [units, input_size], the
recurrent weights [units, units], the bias [units] and the variable hidden state [batch, units].
The hidden state is a persistent tensor of the module, cleared by ``<prefix>_model_init`` and
carried from run to run, as in one reference interpreter invoked repeatedly. float32, or hybrid:
int8 input and recurrent weights (one scale each) on a float model, where each step quantizes its
input row and hidden state at run time as LiteRT's hybrid RnnBatchStep does (hk_rnn_hybrid.h).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from helia_aot.air import AirOperatorOptions, AirTensor, AirTensorKind
from helia_aot.codegen import c_float
from helia_aot.pack import OperatorRecord

from helia_aot_ops_builtin.common.base import label
from helia_aot_ops_builtin.common.hybrid import row_sums
from helia_aot_ops_builtin.common.kernel_call import CTable, KernelCall, KernelCallOperator
from helia_aot_ops_builtin.common.parsing import activation_name, simple_parser
from helia_aot_ops_builtin.recurrent.svdf import FLOAT_ACTIVATIONS

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert


@dataclass(slots=True)
class AirSequenceRnnOptions(AirOperatorOptions):
    """UNIDIRECTIONAL_SEQUENCE_RNN options (RNN has no time axis: time_major stays False)."""

    time_major: bool = False
    activation: str = "NONE"
    asymmetric_quantize_inputs: bool = False


def _sequence_options(raw: litert.SequenceRNNOptionsT | None) -> AirSequenceRnnOptions:
    if raw is None:
        return AirSequenceRnnOptions()
    return AirSequenceRnnOptions(
        time_major=bool(raw.timeMajor),
        activation=activation_name(raw.fusedActivationFunction),
        asymmetric_quantize_inputs=bool(raw.asymmetricQuantizeInputs),
    )


def _rnn_options(raw: litert.RNNOptionsT | None) -> AirSequenceRnnOptions:
    """RNN's options: one step, so no ``timeMajor`` (the layout is the sequence one's default)."""
    if raw is None:
        return AirSequenceRnnOptions()
    return AirSequenceRnnOptions(
        activation=activation_name(raw.fusedActivationFunction),
        asymmetric_quantize_inputs=bool(raw.asymmetricQuantizeInputs),
    )


parse_sequence_rnn = simple_parser("UNIDIRECTIONAL_SEQUENCE_RNN", _sequence_options)
parse_rnn = simple_parser("RNN", _rnn_options)


class SequenceRnnOperator(KernelCallOperator):
    """UNIDIRECTIONAL_SEQUENCE_RNN: one ``hk_rnn_sequence_f32`` call over every step."""

    TYPE = "UNIDIRECTIONAL_SEQUENCE_RNN"
    HYBRID_WEIGHT_DTYPES = ("int8",)
    KERNELS = ("rnn",)
    SUPPORTED_DTYPES = (np.float32,)
    SEQUENCE = True
    RESTRICTIONS = (
        "float32, or hybrid (int8 input and recurrent weights, one scale each, float32 bias); "
        "constant input weights [units, input_size], recurrent weights [units, units] and bias [units].",
        "Input [batch, time, input_size] ([time, batch, input_size] when time_major), hidden "
        "state a variable tensor [batch, units].",
        "The fused activation is NONE, RELU, RELU_N1_TO_1, RELU6 or TANH.",
    )

    @property
    def options(self) -> AirSequenceRnnOptions:
        return self.typed_options(AirSequenceRnnOptions)

    def _geometry(self) -> tuple[int, int, int, int]:
        """(batches, steps, input_size, units)."""
        shape = self.input_tensors[0].shape
        units = self.input_tensors[1].shape[0]
        if not self.SEQUENCE:
            return shape[0], 1, shape[1], units
        if self.options.time_major:
            return shape[1], shape[0], shape[2], units
        return shape[0], shape[1], shape[2], units

    def call_role(self) -> str:
        return self.op.op_type.lower()  # the records name the call by operator type

    def hybrid(self) -> bool:
        """int8 input and recurrent weights on float32 activations (LiteRT's hybrid RNN)."""
        weights, recurrent = self.input_or_none(1), self.input_or_none(2)
        return (
            weights is not None
            and recurrent is not None
            and self.input_tensors[0].dtype.numpy == np.float32
            and weights.dtype.numpy == np.int8
            and recurrent.dtype.numpy == np.int8
        )

    def kernel_function(self) -> str:
        return "rnn_sequence_hybrid" if self.hybrid() else "rnn_sequence_f32"

    def kernel_families(self) -> tuple[str, ...]:
        return ("rnn_hybrid",) if self.hybrid() else self.KERNELS

    def on_resolve(self) -> None:
        if self.hybrid():
            _, _, input_size, units = self._geometry()
            self.add_scratch("quantized_row", max(int(input_size), int(units)), alignment=4)

    def check(self) -> Iterable[str]:
        present = [tensor for tensor in (self.input_or_none(i) for i in range(5)) if tensor is not None]
        if len(self.input_tensors) < 5 or len(present) < 5:
            yield "input, weights, recurrent weights, bias and hidden state are required"
            return
        source, weights, recurrent, bias, hidden = present
        target: AirTensor = self.output_tensors[0]
        hybrid = self.hybrid()
        for tensor in (weights, recurrent, bias):
            want = np.int8 if hybrid and tensor is not bias else np.float32
            if tensor.dtype.numpy != want:
                yield f"{label(tensor)} is {tensor.dtype}; expected {np.dtype(want).name}"
                return
            if not tensor.is_constant:
                yield f"{label(tensor)} must be constant"
            q = tensor.quantization
            if want == np.int8 and (q is None or np.asarray(q.scale).size != 1):
                yield f"hybrid {label(tensor)} needs one scale (LiteRT's hybrid RNN reads one)"
        if hidden.kind is not AirTensorKind.PERSISTENT:
            yield f"the hidden state {label(hidden)} must be a variable tensor"
        rank = 3 if self.SEQUENCE else 2
        if len(source.shape) != rank or len(weights.shape) != 2:
            yield f"the input must be {rank}-D and the weights 2-D"
            return
        batches, steps, input_size, units = self._geometry()
        if tuple(weights.shape) != (units, input_size):
            yield f"input weights {tuple(weights.shape)} are not [{units}, {input_size}]"
        if tuple(recurrent.shape) != (units, units):
            yield f"recurrent weights {tuple(recurrent.shape)} are not [{units}, {units}]"
        if bias.size != units:
            yield f"bias {label(bias)} does not have {units} elements"
        if tuple(hidden.shape) != (batches, units):
            yield f"hidden state {tuple(hidden.shape)} is not [{batches}, {units}]"
        if target.size != batches * steps * units or target.shape[-1] != units:
            yield f"output {tuple(target.shape)} does not hold {steps} steps of {batches} x {units}"
        if self.options.activation not in FLOAT_ACTIVATIONS:
            yield f"fused activation {self.options.activation} is not supported"

    def macs(self) -> int:
        batches, steps, input_size, units = self._geometry()
        return batches * steps * units * (input_size + units)

    def kernel(self) -> KernelCall:
        batches, steps, input_size, units = self._geometry()
        fields = [
            ("batches", str(batches)),
            ("steps", str(steps)),
            ("input_size", str(input_size)),
            ("units", str(units)),
            ("time_major", "1" if self.SEQUENCE and self.options.time_major else "0"),
            ("activation", str(FLOAT_ACTIVATIONS[self.options.activation])),
        ]
        if self.hybrid():
            return self.hybrid_kernel(fields)
        args = [
            self.data_ptr(self.input_tensors[0]),
            self.data_ptr(self.input_tensors[1]),
            self.data_ptr(self.input_tensors[2]),
            self.data_ptr(self.input_tensors[3]),
            self.ptr(self.input_tensors[4]),
            self.ptr(self.output_tensors[0]),
        ]
        return KernelCall(
            self.kernel_function(),
            args,
            "rnn_params_t",
            dict(fields),
            params_in_run=True,
        )

    def hybrid_kernel(self, rnn_fields: list[tuple[str, str]]) -> KernelCall:
        """``hk_rnn_sequence_hybrid``: the float cell's fields plus the weights' scales."""
        weights, recurrent = self.input_tensors[1], self.input_tensors[2]
        asymmetric = self.options.asymmetric_quantize_inputs
        tables = []
        sums = {"input": "NULL", "recurrent": "NULL"}
        if asymmetric:
            for role, tensor in (("input", weights), ("recurrent", recurrent)):
                values = [str(int(v)) for v in row_sums(tensor.required_data(), 0)]
                tables.append(
                    CTable(f"{role}_row_sums", "int32_t", values, f"Per unit, its {role} weights' sum")
                )
                sums[role] = self.table_ref(tables[-1])
        fields = [(f"rnn.{name}", value) for name, value in rnn_fields] + [
            ("asymmetric", "1" if asymmetric else "0"),
            ("input_scale", c_float(float(np.float32(weights.scale())))),
            ("recurrent_scale", c_float(float(np.float32(recurrent.scale())))),
            ("input_row_sums", sums["input"]),
            ("recurrent_row_sums", sums["recurrent"]),
        ]
        args = [
            self.data_ptr(self.input_tensors[0]),
            self.data_ptr(weights),
            self.data_ptr(recurrent),
            self.data_ptr(self.input_tensors[3]),
            self.ptr(self.get_local_tensor("quantized_row"), ctype="int8_t"),
            self.ptr(self.input_tensors[4]),
            self.ptr(self.output_tensors[0]),
        ]
        return KernelCall(
            "rnn_sequence_hybrid",
            args,
            "rnn_hybrid_params_t",
            dict(fields),
            tables=tables,
            params_in_run=True,
        )


class RnnOperator(SequenceRnnOperator):
    """RNN: one step of the same cell, input [batch, input_size] -> output [batch, units]."""

    TYPE = "RNN"
    SEQUENCE = False
    RESTRICTIONS = (
        "float32, or hybrid (int8 input and recurrent weights, one scale each, float32 bias); "
        "constant input weights [units, input_size], recurrent weights [units, units] and bias [units].",
        "Input [batch, input_size], hidden state a variable tensor [batch, units].",
        "The fused activation is NONE, RELU, RELU_N1_TO_1, RELU6 or TANH.",
    )


REGISTRATIONS = [
    OperatorRecord(
        "UNIDIRECTIONAL_SEQUENCE_RNN", parse_sequence_rnn, AirSequenceRnnOptions, SequenceRnnOperator
    ),
    OperatorRecord("RNN", parse_rnn, AirSequenceRnnOptions, RnnOperator),
]
