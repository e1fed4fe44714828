"""UINT8_AS_INT8: an elementwise operator on uint8 runs its int8 kernel, shifted by 128.

For the operators of ``SHIFTED_OPERATORS`` LiteRT's reference kernels give, on uint8 tensors, the
int8 kernel's results moved by 128: with every zero point 128 higher and every value 128 higher,
each output is the int8 output plus 128 (probed over random scales and zero points for all 256
inputs of the unary operators and random pairs of the binary ones; the dtype test checks each one
against the reference). So such an operator is rewritten to read and write int8 twins of its
uint8 tensors, quantized with the same scale and the zero point minus 128: a constant operand is
stored shifted, a computed one passes through a QUANTIZE (uint8 -> int8, an exact shift), and the
output is shifted back by a QUANTIZE (int8 -> uint8). Neighbouring rewritten operators would
shift back and forth; each QUANTIZE moves one byte per element.
"""

from __future__ import annotations

import numpy as np
from helia_aot.air import AirModel, AirOperator, AirQuantization, AirTensor, AirTensorKind, OpId, TensorId
from helia_aot.air.types import AirTensorType
from helia_aot.registry import RegistryContext
from helia_aot.transforms import AirTransform

SHIFTED_OPERATORS = frozenset(
    "RELU RELU6 RELU_N1_TO_1 RELU_0_TO_1 LOGISTIC TANH HARD_SWISH GELU LEAKY_RELU LOG_SOFTMAX "
    "SOFTMAX ADD SUB MUL DIV MAXIMUM MINIMUM".split()
)
"""Operators whose uint8 reference kernel is the int8 one shifted by 128."""

_UINT8 = AirTensorType.from_numpy(np.uint8)
_INT8 = AirTensorType.from_numpy(np.int8)


def _per_tensor_uint8(tensor: AirTensor | None) -> bool:
    q = tensor.quantization if tensor is not None else None
    return tensor is not None and tensor.dtype == _UINT8 and q is not None and q.scale.size == 1


def _shifted(q: AirQuantization) -> AirQuantization:
    return AirQuantization(q.scale, q.zero_point - 128, q.axis)


class Uint8AsInt8(AirTransform):
    """Rewrites every uint8 operator of ``SHIFTED_OPERATORS`` onto int8 twins of its tensors."""

    NAME = "UINT8_AS_INT8"
    OPTIONS = None
    ORDER = 12
    ADDED_DTYPES = {key: ("uint8",) for key in sorted(SHIFTED_OPERATORS)}

    def apply(self, model: AirModel, context: RegistryContext) -> AirModel:
        rewritten: list[AirOperator] = []
        for op in list(model.operators):
            tensors = [model.tensors.get(t) if t else None for t in (*op.input_ids, *op.output_ids)]
            if op.op_type in SHIFTED_OPERATORS and tensors and all(_per_tensor_uint8(t) for t in tensors):
                self._rewrite(model, op)
                rewritten.append(op)
        self.rewrote = bool(rewritten)  # tells the Transform stage whether to verify
        return model

    def _twin(self, model: AirModel, tensor: AirTensor, suffix: str) -> AirTensor:
        new_id = TensorId(f"{tensor.id}_{suffix}")
        while new_id in model.tensors:
            new_id = TensorId(f"{new_id}_")
        q = tensor.required_quantization()
        constant = tensor.kind is AirTensorKind.CONSTANT and tensor.data is not None
        data = None
        if constant:
            data = (np.asarray(tensor.data).astype(np.int16) - 128).astype(np.int8)
        return model.add_tensor(
            AirTensor(
                id=new_id,
                name=model.unique_tensor_name(f"{tensor.source_name or tensor.name}_{suffix}"),
                shape=tensor.shape,
                dtype=_INT8,
                kind=AirTensorKind.CONSTANT if constant else AirTensorKind.SCRATCH,
                data=data,
                quantization=_shifted(q),
                source_name=tensor.source_name,
            )
        )

    def _rewrite(self, model: AirModel, op: AirOperator) -> None:
        before: list[AirOperator] = []
        after: list[AirOperator] = []
        replaced_constants: list[TensorId] = []
        for position, tensor_id in enumerate(op.input_ids):
            source = model.tensors[tensor_id]
            twin = self._twin(model, source, "s8")
            op.input_ids[position] = twin.id
            if twin.kind is AirTensorKind.CONSTANT:
                replaced_constants.append(source.id)
            else:
                quantize = AirOperator(OpId(f"{op.id}_u8_in{position}"), "QUANTIZE", [source.id], [twin.id])
                quantize.region = op.region
                before.append(quantize)
        for position, tensor_id in enumerate(op.output_ids):
            target = model.tensors[tensor_id]
            twin = self._twin(model, target, "s8")
            op.output_ids[position] = twin.id
            quantize = AirOperator(OpId(f"{op.id}_u8_out{position}"), "QUANTIZE", [twin.id], [target.id])
            quantize.region = op.region
            after.append(quantize)
        index = next(i for i, other in enumerate(model.operators) if other is op)
        model.operators[index : index + 1] = [*before, op, *after]
        for tensor_id in replaced_constants:  # a constant only this operator read is stored once
            still_read = any(tensor_id in other.input_ids for other in model.operators)
            if not still_read and tensor_id not in model.inputs and tensor_id not in model.outputs:
                del model.tensors[tensor_id]
