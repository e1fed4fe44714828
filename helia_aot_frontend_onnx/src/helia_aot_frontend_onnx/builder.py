"""Building AIR from an ONNX graph, each value kept in the layout its consumers want.

ONNX lays images out NCHW; the kernels take NHWC. Every ONNX value is held as an AIR tensor
*and the permutation that maps it there* (``air = numpy.transpose(onnx_value, perm)``): a
convolution's output is NHWC (perm ``(0, 2, 3, 1)``), an elementwise operator keeps its input's
perm, a ``Transpose`` node only changes the perm of the same tensor, an axis attribute is mapped
through the perm. A constant is stored in whatever layout its consumer asks for. A real
``TRANSPOSE`` operator is added only where a consumer needs a layout the value does not have
(a reshape that mixes channels and pixels), once per value and layout: for a convolutional
network, none.

In a QDQ model (:attr:`OnnxGraph.qdq`) a ``QuantizeLinear`` / ``DequantizeLinear`` pair is no
operator either: a node's output read by one ``QuantizeLinear`` is made an int8 tensor with that
node's scale and zero point (:meth:`Builder.output`), the ``DequantizeLinear`` after it passes
the int8 tensor on, and a constant's ``DequantizeLinear`` is stored as its integers
(:meth:`Builder.input`). A node without an integer operator runs on float between a
``DEQUANTIZE`` and a ``QUANTIZE`` (:attr:`Builder.float_mode`, see the reader).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

import numpy as np
from helia_aot.air import (
    AirModel,
    AirOperator,
    AirOperatorOptions,
    AirQuantization,
    AirTensor,
    AirTensorKind,
    AirTensorType,
    OpId,
    TensorId,
)

if TYPE_CHECKING:
    from helia_aot.registry.context import RegistryContext

    from helia_aot_frontend_onnx.graph import OnnxGraph

Perm = tuple[int, ...]

NHWC: Perm = (0, 2, 3, 1)
"""The perm of a 4-D NCHW value laid out channels last."""


PASS_THROUGH = frozenset(
    {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose", "MaxPool", "Pad", "Slice", "Resize"}
)
"""Nodes whose int8 output keeps its input's quantization (a QuantizeLinear after one with other
parameters becomes a requantizing QUANTIZE)."""


class Unsupported(ValueError):
    """A node the front end cannot convert; the message says why (one line of the error)."""


def identity(rank: int) -> Perm:
    return tuple(range(rank))


def inverse(perm: Perm) -> Perm:
    result = [0] * len(perm)
    for position, axis in enumerate(perm):
        result[axis] = position
    return tuple(result)


def permuted(shape: tuple[int, ...], perm: Perm) -> tuple[int, ...]:
    return tuple(shape[axis] for axis in perm)


def same_memory_order(shape: tuple[int, ...], perm: Perm) -> bool:
    """Whether a value of ``shape`` has the same bytes in layout ``perm`` as in its own: the
    axes of size above one keep their order."""
    return [a for a in perm if shape[a] != 1] == [a for a in range(len(shape)) if shape[a] != 1]


@dataclass(slots=True)
class Value:
    """One ONNX value as AIR holds it: its tensor and perm (None until made), or a constant.

    ``columns`` is set on a feature map flattened straight from NHWC for dense layers only: AIR
    column k holds ONNX column ``columns[k]``, and the dense layers permute their weights so.
    """

    shape: tuple[int, ...]
    tensor: TensorId | None = None
    perm: Perm = ()
    constant: np.ndarray | None = None
    columns: np.ndarray | None = None


_AIR_TYPES = {
    np.dtype(np.float32): AirTensorType.FLOAT32,
    np.dtype(np.int32): AirTensorType.INT32,
    np.dtype(np.int64): AirTensorType.INT32,
    np.dtype(np.int8): AirTensorType.INT8,
    np.dtype(np.bool_): AirTensorType.BOOL,
}


class Builder:
    """The AIR model under construction and the ONNX values it holds (see the module docstring)."""

    def __init__(self, graph: OnnxGraph, context: RegistryContext, name: str) -> None:
        self.graph = graph
        self.context = context
        self.air = AirModel(name=name)
        self.values: dict[str, Value] = {}
        self._layouts: dict[tuple[str, Perm], TensorId] = {}
        self._constants: dict[tuple[str, Perm, tuple[int, ...]], TensorId] = {}
        self._next_tensor = 0
        self._next_op = 0
        self.node_index = -1
        """The file index of the node being converted (the source of the operators it adds)."""
        self.node: Any = None
        """The node being converted (None outside a converter)."""
        self.float_mode = False
        """Set while a node of a QDQ model runs on float (its outputs and constants float)."""
        self._readers: dict[str, list[int]] | None = None

    # -- tensors ------------------------------------------------------------------------------
    def tensor(
        self,
        shape: tuple[int, ...],
        dtype: AirTensorType = AirTensorType.FLOAT32,
        *,
        name: str,
        data: np.ndarray | None = None,
        quantization: AirQuantization | None = None,
    ) -> TensorId:
        tid = TensorId(str(self._next_tensor))
        self._next_tensor += 1
        self.air.add_tensor(
            AirTensor(
                id=tid,
                name=self.air.unique_tensor_name(name),
                shape=tuple(int(d) for d in shape),
                dtype=dtype,
                kind=AirTensorKind.CONSTANT if data is not None else AirTensorKind.SCRATCH,
                data=data,
                source_name=name,
                quantization=quantization,
            )
        )
        return tid

    def constant(self, array: np.ndarray, name: str) -> TensorId:
        """A new constant tensor (int64 stored as int32: shapes, axes and paddings)."""
        array = np.asarray(array)
        if array.dtype == np.float64:
            array = array.astype(np.float32)
        elif array.dtype == np.int64:
            array = array.astype(np.int32)
        dtype = _AIR_TYPES.get(array.dtype)
        if dtype is None:
            raise Unsupported(f"constant {name!r} is {array.dtype}, which the front end does not store")
        return self.tensor(array.shape, dtype, name=name, data=np.ascontiguousarray(array))

    def shape_of(self, name: str) -> tuple[int, ...]:
        name = self.graph.resolve(name)
        if name in self.values:
            return self.values[name].shape
        if name in self.graph.shapes:
            return self.graph.shapes[name]
        raise Unsupported(f"the shape of {name!r} is unknown (ONNX shape inference left it open)")

    def const_value(self, name: str) -> np.ndarray | None:
        """The contents of a value known before the model runs, or None."""
        if not name:
            return None
        return self.graph.constants.get(self.graph.resolve(name))

    def required_const(self, name: str, what: str) -> np.ndarray:
        value = self.const_value(name)
        if value is None:
            raise Unsupported(f"{what} must be a constant (an initializer or Constant node)")
        return value

    def perm_of(self, name: str) -> Perm:
        """The layout a computed value has (identity for a constant or a value not made yet)."""
        value = self.values.get(self.graph.resolve(name))
        if value is None or value.tensor is None:
            return identity(len(self.shape_of(name)))
        return value.perm

    def input(self, name: str, perm: Perm | None = None, *, rank: int | None = None) -> TensorId:
        """The AIR tensor of value ``name`` in layout ``perm`` (its own layout when None).

        A constant is stored in that layout, first broadcast to ``rank`` dimensions (numpy's
        rule: ones in front) when given; a computed value in another layout gets a TRANSPOSE.
        """
        key = self.graph.resolve(name)
        const = self.graph.constants.get(key)
        if const is not None and key in self.graph.quantized and not self.float_mode:
            return self._quantized_constant(key, perm, rank)
        if const is not None:
            array = np.asarray(const)
            if rank is not None and array.ndim < rank:
                array = array.reshape((1,) * (rank - array.ndim) + array.shape)
            want = perm if perm is not None else identity(array.ndim)
            if len(want) != array.ndim:
                raise Unsupported(f"constant {name!r} has rank {array.ndim}, expected {len(want)}")
            cache = (key, want, tuple(array.shape))
            if cache not in self._constants:
                self._constants[cache] = self.constant(np.transpose(array, want), key)
            return self._constants[cache]
        value = self.values.get(key)
        if value is None or value.tensor is None:
            raise Unsupported(f"input {name!r} is not computed by any converted node")
        if perm is None or perm == value.perm:
            return value.tensor
        if len(perm) != len(value.perm):
            raise Unsupported(f"{name!r} has rank {len(value.perm)}, expected {len(perm)}")
        if (key, perm) not in self._layouts:
            # air_new = transpose(onnx, perm) = transpose(air_old, inverse(old)[perm])
            step = tuple(inverse(value.perm)[axis] for axis in perm)
            old = self.air.tensors[value.tensor]
            new_shape = permuted(value.shape, perm)
            if same_memory_order(old.shape, step):  # only axes of size one move: a reshape
                out = self.tensor(new_shape, old.dtype, name=f"{key}_relaid", quantization=old.quantization)
                self.op("RESHAPE", [value.tensor, self.constant(np.array(new_shape), "shape")], [out])
            else:
                out = self.tensor(
                    new_shape, old.dtype, name=f"{key}_transposed", quantization=old.quantization
                )
                self.op("TRANSPOSE", [value.tensor, self.constant(np.array(step), "perm")], [out])
            self._layouts[(key, perm)] = out
        return self._layouts[(key, perm)]

    def _quantized_constant(self, key: str, perm: Perm | None, rank: int | None) -> TensorId:
        """The integers of a constant's DequantizeLinear in layout ``perm``, quantized."""
        q = self.graph.quantized[key]
        array, axis = np.asarray(q.values), q.axis if q.scale.size > 1 else 0
        if rank is not None and array.ndim < rank:
            axis += rank - array.ndim
            array = array.reshape((1,) * (rank - array.ndim) + array.shape)
        want = perm if perm is not None else identity(array.ndim)
        if len(want) != array.ndim:
            raise Unsupported(f"constant {key!r} has rank {array.ndim}, expected {len(want)}")
        cache = (key + "#q", want, tuple(array.shape))
        if cache not in self._constants:
            axis = want.index(axis) if q.scale.size > 1 else 0
            quant = self.quantization(q.scale, q.zero_point, axis)
            data = np.ascontiguousarray(np.transpose(array, want))
            dtype = _AIR_TYPES.get(data.dtype)
            if dtype not in (AirTensorType.INT8, AirTensorType.INT32):
                raise Unsupported(
                    f"quantized constant {key!r} is {data.dtype}; int8 (int32 bias) is supported"
                )
            self._constants[cache] = self.tensor(data.shape, dtype, name=key, data=data, quantization=quant)
        return self._constants[cache]

    @staticmethod
    def quantization(scale: Any, zero_point: Any, axis: int = 0) -> AirQuantization:
        return AirQuantization(np.asarray(scale, np.float32), np.asarray(zero_point, np.int64), axis)

    def readers(self, name: str) -> list[Any]:
        """The nodes that read value ``name`` (after aliases)."""
        if self._readers is None:
            self._readers = self.graph.consumers()
        nodes = dict(self.graph.nodes)
        return [nodes[i] for i in self._readers.get(self.graph.resolve(name), [])]

    def quantize_linear_params(self, node: Any) -> AirQuantization:
        """The int8 per-tensor quantization a QuantizeLinear node writes."""
        scale = self.required_const(node.input[1], "QuantizeLinear's scale")
        zero = self.const_value(node.input[2]) if len(node.input) > 2 else None
        if zero is not None and np.asarray(zero).dtype != np.int8:
            raise Unsupported(
                f"{np.asarray(zero).dtype} quantization; only int8 is supported "
                "(quantize_static(..., activation_type=QuantType.QInt8))"
            )
        if np.asarray(scale).size != 1:
            raise Unsupported("per-channel activation quantization is not supported")
        return self.quantization(
            np.asarray(scale).reshape(-1), np.asarray(zero if zero is not None else 0).reshape(-1)
        )

    def output_quantization(self, name: str) -> AirQuantization | None:
        """The quantization of the QuantizeLinear that alone reads ``name``, or None."""
        if name in self.graph.outputs:
            return None
        readers = self.readers(name)
        if len(readers) != 1 or readers[0].op_type != "QuantizeLinear":
            return None
        try:
            return self.quantize_linear_params(readers[0])
        except Unsupported:
            return None

    def output(self, name: str, perm: Perm, dtype: AirTensorType = AirTensorType.FLOAT32) -> TensorId:
        """A new AIR tensor for the node output ``name``, held in layout ``perm``.

        In a QDQ model, outside float mode, a float output becomes int8: with the parameters of
        the QuantizeLinear that reads it, else (a reshape, pooling, slice) with its input's.
        """
        shape = self.shape_of(name)
        if len(perm) != len(shape):
            raise Unsupported(f"output {name!r} has rank {len(shape)}, layout {perm}")
        quant = None
        if (
            self.graph.qdq
            and not self.float_mode
            and dtype == AirTensorType.FLOAT32
            and self.node is not None
        ):
            quant = None if self.node.op_type in PASS_THROUGH else self.output_quantization(name)
            first = self.values.get(self.graph.resolve(self.node.input[0])) if self.node.input else None
            source = (
                self.air.tensors[first.tensor] if first is not None and first.tensor is not None else None
            )
            if quant is None and source is not None and source.dtype == AirTensorType.INT8:
                quant = source.quantization
            if quant is not None:
                dtype = AirTensorType.INT8
        tid = self.tensor(permuted(shape, perm), dtype, name=name, quantization=quant)
        self.values[name] = Value(shape, tid, perm)
        return tid

    def alias(self, name: str, source: str, perm: Perm) -> None:
        """Output ``name`` is the tensor of ``source`` seen in another ONNX layout (no operator)."""
        value = self.values.get(self.graph.resolve(source))
        if value is None or value.tensor is None:
            raise Unsupported(f"input {source!r} is not computed by any converted node")
        columns = value.columns if perm == value.perm else None
        self.values[name] = Value(self.shape_of(name), value.tensor, perm, columns=columns)

    # -- operators ----------------------------------------------------------------------------
    def options(self, op_type: str, **values: Any) -> AirOperatorOptions:
        """The options of ``op_type`` as the operator pack that registers it declares them."""
        if op_type not in self.context.air_options:
            if values:
                raise Unsupported(f"no installed operator pack registers options for {op_type}")
            return AirOperatorOptions()
        cls = self.context.air_options.get(op_type)
        known = {f.name for f in fields(cls)} if hasattr(cls, "__dataclass_fields__") else set(values)
        return cls(**{k: v for k, v in values.items() if k in known})  # type: ignore[no-any-return]

    def op(
        self,
        op_type: str,
        inputs: list[TensorId],
        outputs: list[TensorId],
        options: AirOperatorOptions | None = None,
    ) -> AirOperator:
        operator = AirOperator(
            id=OpId(str(self._next_op)),
            op_type=op_type,
            input_ids=list(inputs),
            output_ids=list(outputs),
            options=options if options is not None else self.options(op_type),
        )
        operator.source_indices = (self.node_index,) if self.node_index >= 0 else ()
        self._next_op += 1
        self.air.operators.append(operator)
        return operator


__all__ = [
    "NHWC",
    "PASS_THROUGH",
    "Builder",
    "Perm",
    "Unsupported",
    "Value",
    "identity",
    "inverse",
    "permuted",
    "same_memory_order",
]
