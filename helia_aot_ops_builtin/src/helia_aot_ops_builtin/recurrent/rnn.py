"""UNIDIRECTIONAL_SEQUENCE_RNN and RNN: the basic recurrent cell h = act(W x + R h + b).

Inputs are the sequence (or, for RNN, one step), the input weights [units, input_size], the
recurrent weights [units, units], the bias [units] and the variable hidden state [batch, units].
The hidden state is a persistent tensor of the module, cleared by ``<prefix>_model_init`` and
carried from run to run, as in one reference interpreter invoked repeatedly. float32 only: the
hybrid form (int8 weights on a float model) is refused, as LiteRT's reference runs it through its
own per-run input quantization, not an arithmetic this package reproduces.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from helia_aot.air import AirOperatorOptions, AirTensor, AirTensorKind
from helia_aot.pack import OperatorRecord

from helia_aot_ops_builtin.common.base import label
from helia_aot_ops_builtin.common.kernel_call import KernelCall, KernelCallOperator
from helia_aot_ops_builtin.common.parsing import activation_name, simple_parser
from helia_aot_ops_builtin.recurrent.svdf import FLOAT_ACTIVATIONS


@dataclass(slots=True)
class AirSequenceRnnOptions(AirOperatorOptions):
    """UNIDIRECTIONAL_SEQUENCE_RNN options (RNN has no time axis: time_major stays False)."""

    time_major: bool = False
    activation: str = "NONE"
    asymmetric_quantize_inputs: bool = False


def _sequence_options(raw: Any) -> AirSequenceRnnOptions:
    if raw is None:
        return AirSequenceRnnOptions()
    return AirSequenceRnnOptions(
        time_major=bool(getattr(raw, "timeMajor", False)),
        activation=activation_name(raw.fusedActivationFunction),
        asymmetric_quantize_inputs=bool(raw.asymmetricQuantizeInputs),
    )


parse_sequence_rnn = simple_parser("UNIDIRECTIONAL_SEQUENCE_RNN", _sequence_options)
parse_rnn = simple_parser("RNN", _sequence_options)


class SequenceRnnOperator(KernelCallOperator):
    """UNIDIRECTIONAL_SEQUENCE_RNN: one ``hk_rnn_sequence_f32`` call over every step."""

    TYPE = "UNIDIRECTIONAL_SEQUENCE_RNN"
    KERNELS = ("rnn",)
    SUPPORTED_DTYPES = (np.float32,)
    SEQUENCE = True
    RESTRICTIONS = (
        "float32 only (hybrid int8 weights are not supported); constant input weights [units, "
        "input_size], recurrent weights [units, units] and bias [units].",
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

    def kernel_function(self) -> str:
        return "rnn_sequence_f32"

    def check(self) -> Iterable[str]:
        if len(self.input_tensors) < 5 or any(t is None for t in (self.input_or_none(i) for i in range(5))):
            yield "input, weights, recurrent weights, bias and hidden state are required"
            return
        source, weights, recurrent, bias, hidden = (self.input_or_none(i) for i in range(5))
        target: AirTensor = self.output_tensors[0]
        for tensor in (weights, recurrent, bias):
            if tensor.dtype.numpy != np.float32:
                yield f"{label(tensor)} is {tensor.dtype}; hybrid (quantized weights) RNNs are not supported"
                return
            if not tensor.is_constant:
                yield f"{label(tensor)} must be constant"
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


class RnnOperator(SequenceRnnOperator):
    """RNN: one step of the same cell, input [batch, input_size] -> output [batch, units]."""

    TYPE = "RNN"
    SEQUENCE = False
    RESTRICTIONS = (
        "float32 only (hybrid int8 weights are not supported); constant input weights [units, "
        "input_size], recurrent weights [units, units] and bias [units].",
        "Input [batch, input_size], hidden state a variable tensor [batch, units].",
        "The fused activation is NONE, RELU, RELU_N1_TO_1, RELU6 or TANH.",
    )


REGISTRATIONS = [
    OperatorRecord(
        "UNIDIRECTIONAL_SEQUENCE_RNN", parse_sequence_rnn, AirSequenceRnnOptions, SequenceRnnOperator
    ),
    OperatorRecord("RNN", parse_rnn, AirSequenceRnnOptions, RnnOperator),
]
