"""Small AIR edits the built-in transforms share: swapping an operator's constant operand."""

from __future__ import annotations

import numpy as np
from helia_aot.air import AirModel, AirOperator, AirQuantization, AirTensor, AirTensorKind, TensorId


def is_constant(model: AirModel, tensor_id: str | None) -> bool:
    """Whether ``tensor_id`` names a constant tensor with data (an absent operand is not)."""
    tensor = model.tensors.get(TensorId(tensor_id)) if tensor_id else None
    return tensor is not None and tensor.kind is AirTensorKind.CONSTANT and tensor.data is not None


def replace_constant(
    model: AirModel,
    op: AirOperator,
    position: int,
    data: np.ndarray,
    quantization: AirQuantization | None,
    suffix: str,
) -> AirTensor:
    """Give ``op`` a new constant at input ``position`` holding ``data`` (re-laid-out weights).

    The old constant stays for any other operator that reads it, and is dropped when ``op`` was
    its only reader, so a rewrite never stores the weights twice.
    """
    old = model.tensors[op.input_ids[position]]
    new_id = TensorId(f"{old.id}_{suffix}")
    while new_id in model.tensors:
        new_id = TensorId(f"{new_id}_")
    tensor = model.add_tensor(
        AirTensor(
            id=new_id,
            name=model.unique_tensor_name(f"{old.source_name or old.name}_{suffix}"),
            shape=tuple(int(d) for d in data.shape),
            dtype=old.dtype,
            kind=AirTensorKind.CONSTANT,
            data=np.ascontiguousarray(data.astype(old.dtype.numpy)),
            quantization=quantization,
            source_name=old.source_name,
            alignment=old.alignment,
        )
    )
    op.input_ids[position] = tensor.id
    still_read = any(old.id in other.input_ids for other in model.operators)
    if not still_read and old.id not in model.inputs and old.id not in model.outputs:
        del model.tensors[old.id]
    return tensor
