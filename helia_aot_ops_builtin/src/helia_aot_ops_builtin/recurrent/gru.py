"""GRU: the custom operator ``GRU`` (a whole Keras GRU layer, batch 1, reset_after=True).

Custom code ``GRU`` (key ``custom_code_to_op_key("GRU")``). Inputs, in order: the sequence
[1, steps, input_size], the kernel [3 * units, input_size] and the recurrent kernel
[3 * units, units] (gate rows in Keras order: update, reset, candidate), the input bias and the
recurrent bias [3 * units] (each optional, -1 when absent), and the state [1, units] (optional):
a variable tensor is carried from run to run (the last h is written back), a constant is the
initial state of every run, and without one every run starts from zeros (a Keras layer that is
not stateful). The output is the sequence [1, steps, units] or only the last h [1, units].
The custom options are an optional FlexBuffers map; ``source_indices`` lists the operators of
the original model the operator stands for (the ``fuse_rolled_gru`` model hook sets it).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from flatbuffers import flexbuffers
from helia_aot.air import AirModel, AirOperator, AirOperatorOptions, AirTensor, AirTensorKind
from helia_aot.converters.litert.schema_access import operator_at
from helia_aot.pack import OperatorRecord

from helia_aot_ops_builtin.common.base import label
from helia_aot_ops_builtin.common.kernel_call import KernelCall, KernelCallOperator
from helia_aot_ops_builtin.common.parsing import operator_from_node

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert


@dataclass(slots=True)
class AirGruOptions(AirOperatorOptions):
    """GRU custom options: the source operators it replaces (empty when it was in the model)."""

    source_indices: list[int] = field(default_factory=list)


def decode_custom_options(raw: Sequence[int] | None) -> dict[str, Any]:
    """The FlexBuffers map of a custom operator's options ({} when there are none)."""
    if raw is None or len(raw) == 0:
        return {}
    try:
        value = flexbuffers.Loads(bytes(bytearray(np.asarray(raw, np.uint8))))
    except Exception as exc:  # any malformed buffer is the model's fault
        raise ValueError(f"the GRU custom options are not a FlexBuffers map ({exc})") from exc
    if not isinstance(value, dict):
        raise ValueError("the GRU custom options are not a FlexBuffers map")
    return value


def parse_gru(
    op_id: int, model: litert.ModelT, subgraph: litert.SubGraphT, air_model: AirModel
) -> AirOperator:
    """Parse one ``GRU`` custom node into one AIR operator."""
    del model, air_model
    options = decode_custom_options(operator_at(subgraph, op_id).customOptions)
    sources = [int(i) for i in options.get("source_indices", [])]
    op = operator_from_node(op_id, subgraph, "GRU", AirGruOptions(source_indices=sources))
    if sources:
        op.source_indices = tuple(sources)
    return op


class GruOperator(KernelCallOperator):
    """GRU: one ``hk_gru_f32`` (or ``hk_gru_f16``) call over the whole sequence."""

    TYPE = "GRU"
    KERNELS = ("gru",)
    SUPPORTED_DTYPES = (np.float32, np.float16)
    RESTRICTIONS = (
        "float32 or float16 (every operand one type; float16 on an FP16-capable platform such as "
        "apollo510_evb); batch 1; input [1, steps, input_size]; constant kernel [3 * units, input_size], "
        "recurrent kernel [3 * units, units] and optional biases [3 * units] (Keras gate order, "
        "reset_after=True).",
        "Optional state [1, units]: a variable tensor (carried across runs) or a constant "
        "(the initial state of each run).",
        "Output [1, steps, units] (the sequence) or [1, units] (the last state).",
    )

    def tensor(self, position: int) -> AirTensor | None:
        return self.input_or_none(position)

    def _geometry(self) -> tuple[int, int, int]:
        """(steps, input_size, units)."""
        source, kernel = self.input_tensors[0], self.required_input(1)
        return source.shape[1], source.shape[2], kernel.shape[0] // 3

    def sequence_output(self) -> bool:
        steps, _, units = self._geometry()
        return self.output_tensors[0].size == steps * units and steps > 1

    @property
    def half(self) -> bool:
        """float16 operands: the ``gru_f16`` family (float evaluation, float16 in and out)."""
        return self.input_tensors[0].dtype.numpy == np.dtype(np.float16)

    def call_role(self) -> str:
        return self.op.op_type.lower()  # the records name the call by operator type

    def kernel_function(self) -> str:
        return "gru_f16" if self.half else "gru_f32"

    def kernel_families(self) -> tuple[str, ...]:
        return ("gru_f16",) if self.half else self.KERNELS

    def check(self) -> Iterable[str]:
        source, kernel, recurrent = self.input_tensors[0], self.tensor(1), self.tensor(2)
        if kernel is None or recurrent is None:
            yield "the kernel and the recurrent kernel are required"
            return
        if len(source.shape) != 3 or source.shape[0] != 1:
            yield f"input {tuple(source.shape)} is not [1, steps, input_size] (batch 1)"
            return
        if len(kernel.shape) != 2 or kernel.shape[0] % 3 or kernel.shape[1] != source.shape[2]:
            yield f"kernel {tuple(kernel.shape)} is not [3 * units, {source.shape[2]}]"
            return
        steps, _, units = self._geometry()
        want = source.dtype.numpy
        if (
            want not in (np.dtype(np.float32), np.dtype(np.float16))
            or self.output_tensors[0].dtype.numpy != want
        ):
            out = self.output_tensors[0].dtype
            yield f"input {source.dtype} and output {out} must both be float32 or float16"
            return
        if tuple(recurrent.shape) != (3 * units, units):
            yield f"recurrent kernel {tuple(recurrent.shape)} is not [{3 * units}, {units}]"
        for position in (1, 2, 3, 4):
            tensor = self.tensor(position)
            if tensor is None:
                continue
            if tensor.dtype.numpy != want or not tensor.is_constant:
                yield f"{label(tensor)} must be a {want.name} constant"
            if position >= 3 and tensor.size != 3 * units:
                yield f"bias {label(tensor)} does not have {3 * units} elements"
        state = self.tensor(5)
        if state is not None:
            if state.size != units or state.dtype.numpy != want:
                yield f"state {label(state)} is not a {want.name} [1, {units}]"
            if not (state.is_constant or state.kind is AirTensorKind.PERSISTENT):
                yield f"state {label(state)} must be a variable tensor or a constant"
        if self.output_tensors[0].size not in (units, steps * units):
            shape = tuple(self.output_tensors[0].shape)
            yield f"output {shape} is neither [1, {steps}, {units}] nor [1, {units}]"

    def on_resolve(self) -> None:
        self.add_scratch("scratch", 7 * 4 * self._geometry()[2], alignment=4)

    def macs(self) -> int:
        steps, input_size, units = self._geometry()
        return steps * 3 * units * (input_size + units)

    def kernel(self) -> KernelCall:
        steps, input_size, units = self._geometry()
        fields = [
            ("steps", str(steps)),
            ("input_size", str(input_size)),
            ("units", str(units)),
            ("sequence_output", "1" if self.sequence_output() else "0"),
        ]
        state = self.tensor(5)
        carried = state if state is not None and state.kind is AirTensorKind.PERSISTENT else None
        args = [
            self.data_ptr(self.input_tensors[0]),
            self.data_ptr(self.tensor(1)),
            self.data_ptr(self.tensor(2)),
            self.data_ptr(self.tensor(3)),
            self.data_ptr(self.tensor(4)),
            self.data_ptr(state),
            "NULL" if carried is None else self.ptr(carried),
            self.ptr(self.output_tensors[0]),
            self.ptr(self.get_local_tensor("scratch"), ctype="float"),
        ]
        return KernelCall(
            self.kernel_function(),
            args,
            "gru_f16_params_t" if self.half else "gru_params_t",
            dict(fields),
            params_in_run=True,
        )


REGISTRATIONS = [
    OperatorRecord("GRU", parse_gru, AirGruOptions, GruOperator),
]
