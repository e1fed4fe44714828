"""A small LiteRT model builder for tests and plugin authors.

It writes a ``.tflite`` that the LiteRT interpreter loads and runs, so an operator pack can test
its parser and kernels against the reference without TensorFlow::

    from helia_aot.litert import schema_py_generated as litert
    from helia_aot.litert.builder import LiteRTModelBuilder

    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (1, 4), "float32")
    y = b.add_tensor("y", (1, 4), "float32", data=np.ones((1, 4), np.float32))
    z = b.add_tensor("z", (1, 4), "float32")
    b.add_operator("ADD", [x, y], [z], litert.AddOptionsT())
    b.set_inputs([x]); b.set_outputs([z])
    b.save("add.tflite")

Control flow (IF, WHILE) needs more subgraphs: ``add_subgraph(name)`` returns a builder for
subgraph 1, 2, ... (its ``index``), filled the same way; options name subgraphs by that index::

    body = b.add_subgraph("body")
    v = body.add_tensor("v", (1, 4), "float32")
    ...
    b.add_operator("WHILE", [x], [z], litert.WhileOptionsT(condSubgraphIndex=cond.index, ...))

Custom operators take a custom code and raw option bytes (``add_custom_operator``). Quantization is
an :class:`~helia_aot.air.AirQuantization` or a ``(scale, zero_point[, axis])`` tuple. Data is
written 16-byte aligned, as the schema asks. :func:`pack_model` serializes any ``ModelT`` the same
way (for example one read with ``read_model`` and edited).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import flatbuffers
import numpy as np

from helia_aot.air.types import AirQuantization, AirTensorType, pack_int4
from helia_aot.litert import FILE_IDENTIFIER, SCHEMA_VERSION
from helia_aot.litert import schema_py_generated as litert

DATA_ALIGNMENT = 16
"""Alignment of buffer data in the written file (the schema's ``force_align``)."""


def _vector(values: Any, dtype: type[np.generic]) -> list[Any]:
    """A vector field's value as a numpy array, typed as the list flatc's annotations declare.

    The generated ``Pack`` methods test for an ndarray first and write it in one copy
    (``CreateNumpyVector``), which matters for weight buffers; their annotations only name the
    list form, so the array is cast to it here, once, rather than converted element by element.
    """
    return cast("list[Any]", np.asarray(values, dtype=dtype))


def _byte_vector(data: bytes) -> list[int]:
    """Bytes as a ``[ubyte]`` field's value, without a copy (see :func:`_vector`)."""
    return cast("list[int]", np.frombuffer(data, dtype=np.uint8))


_TENSOR_TYPES: dict[AirTensorType, int] = {
    AirTensorType.FLOAT32: litert.TensorType.FLOAT32,
    AirTensorType.FLOAT16: litert.TensorType.FLOAT16,
    AirTensorType.INT32: litert.TensorType.INT32,
    AirTensorType.UINT8: litert.TensorType.UINT8,
    AirTensorType.INT64: litert.TensorType.INT64,
    AirTensorType.BOOL: litert.TensorType.BOOL,
    AirTensorType.INT16: litert.TensorType.INT16,
    AirTensorType.INT8: litert.TensorType.INT8,
    AirTensorType.INT4: litert.TensorType.INT4,
}


def litert_tensor_type(dtype: AirTensorType | str | np.dtype | type | int) -> int:
    """The LiteRT ``TensorType`` code of a dtype; an int passes through (any schema type)."""
    if isinstance(dtype, bool):
        raise TypeError(f"{dtype!r} is not a dtype")
    if isinstance(dtype, (int, np.integer)):
        return int(dtype)
    air = dtype if isinstance(dtype, AirTensorType) else AirTensorType.from_numpy(np.dtype(dtype))
    return _TENSOR_TYPES[air]


def builtin_code(name: str | int) -> int:
    """The ``BuiltinOperator`` code of a builtin name (``"CONV_2D"``) or code."""
    if isinstance(name, int):
        return name
    try:
        return int(getattr(litert.BuiltinOperator, name))
    except AttributeError:
        raise ValueError(f"{name!r} is not a LiteRT builtin operator") from None


def options_union(options: Any) -> tuple[str, int]:
    """The union field (``builtinOptions`` or ``builtinOptions2``) and type tag of an options object."""
    tag = type(options).__name__.removesuffix("T")
    for attr, union in (
        ("builtinOptions", litert.BuiltinOptions),
        ("builtinOptions2", litert.BuiltinOptions2),
    ):
        code = getattr(union, tag, None)
        if isinstance(code, int):
            return attr, code
    raise TypeError(f"{type(options).__name__} is not a LiteRT builtin options class")


class _Packed:
    """A table already written to the builder, standing in for a BufferT in ``ModelT.Pack``.

    ``ModelT.Pack`` only calls ``Pack(builder)`` on each buffer, so this stands in for the BufferT
    it replaces (``pack_model`` casts the list to the declared element type for that one call).
    """

    def __init__(self, offset: int) -> None:
        self.offset = offset

    def Pack(self, builder: flatbuffers.Builder) -> int:  # noqa: N802 (the generated API's name)
        return self.offset


def _pack_buffer(builder: flatbuffers.Builder, buffer: litert.BufferT) -> int:
    if int(buffer.offset or 0) > 1:
        raise ValueError("cannot write a buffer stored after the flatbuffer; inline its data first")
    data = None
    if buffer.data is not None and len(buffer.data) > 0:
        payload = np.asarray(buffer.data, dtype=np.uint8).tobytes()
        # The generated Pack aligns byte vectors to 1; constant data must start 16-byte aligned.
        builder.StartVector(1, len(payload), DATA_ALIGNMENT)
        builder.head -= len(payload)
        builder.Bytes[builder.head : builder.head + len(payload)] = payload
        data = builder.EndVector()
    litert.BufferStart(builder)
    if data is not None:
        litert.BufferAddData(builder, data)
    return int(litert.BufferEnd(builder))


def pack_model(model: litert.ModelT) -> bytes:
    """Serialize a ModelT to ``.tflite`` bytes (identifier ``TFL3``, aligned buffer data)."""
    buffers = list(model.buffers or [])
    size_hint = 1024 + sum(0 if b.data is None else len(b.data) + DATA_ALIGNMENT for b in buffers)
    builder = flatbuffers.Builder(size_hint)
    packed = [_Packed(_pack_buffer(builder, b)) for b in buffers]
    original = model.buffers
    model.buffers = cast("list[litert.BufferT]", packed) if original is not None else None
    try:
        root = model.Pack(builder)
    finally:
        model.buffers = original
    builder.Finish(root, file_identifier=FILE_IDENTIFIER)
    return bytes(builder.Output())


@dataclass(slots=True)
class _Tensor:
    name: str
    shape: tuple[int, ...]
    type: int
    data: bytes | None
    quantization: AirQuantization | None
    variable: bool
    shape_signature: tuple[int, ...] | None = None


@dataclass(slots=True)
class _Operator:
    code: int
    custom_code: str | None
    version: int
    inputs: list[int]
    outputs: list[int]
    options: Any = None
    custom_options: bytes | None = None
    intermediates: list[int] = field(default_factory=list)


class LiteRTModelBuilder:
    """Collects tensors and operators of a subgraph (the main one, and any added with
    :meth:`add_subgraph`) and writes them as a LiteRT model."""

    def __init__(self, description: str = "helia-aot LiteRT model builder", *, name: str = "main") -> None:
        self.description = description
        self.name = name
        self.index = 0
        self.tensors: list[_Tensor] = []
        self.operators: list[_Operator] = []
        self.inputs: list[int] = []
        self.outputs: list[int] = []
        self.subgraphs: list[LiteRTModelBuilder] = []

    def add_subgraph(self, name: str) -> LiteRTModelBuilder:
        """A builder for one more subgraph of this model (``index`` 1, 2, ...), for IF and WHILE.

        Fill it with ``add_tensor``, ``add_operator``, ``set_inputs`` and ``set_outputs``; this
        builder writes it after the main subgraph. Subgraphs are added to the main builder only.
        """
        sub = LiteRTModelBuilder(self.description, name=name)
        sub.index = len(self.subgraphs) + 1
        self.subgraphs.append(sub)
        return sub

    def add_tensor(
        self,
        name: str,
        shape: Sequence[int],
        dtype: Any,
        data: np.ndarray | bytes | None = None,
        quantization: AirQuantization | tuple[Any, ...] | None = None,
        *,
        variable: bool = False,
        shape_signature: Sequence[int] | None = None,
    ) -> int:
        """Add a tensor and return its index.

        ``data`` makes it a constant: an array is cast to ``dtype`` and must hold
        ``prod(shape)`` elements; ``bytes`` are stored verbatim (to write deliberately odd files).
        ``shape_signature`` (-1 for a dynamic dimension) is written as exporters do for models with
        a dynamic batch.
        """
        shape = tuple(int(d) for d in shape)
        type_code = litert_tensor_type(dtype)
        raw: bytes | None = None
        if isinstance(data, (bytes, bytearray)):
            raw = bytes(data)
        elif data is not None:
            air = next(a for a, c in _TENSOR_TYPES.items() if c == type_code)
            array = np.asarray(data).astype(air.numpy.newbyteorder("<"))
            if array.size != int(np.prod(shape, dtype=np.int64)):
                raise ValueError(f"tensor {name!r}: {array.size} values for shape {list(shape)}")
            raw = pack_int4(array) if air is AirTensorType.INT4 else array.tobytes()
        if isinstance(quantization, tuple):
            quantization = AirQuantization(*quantization)
        signature = None if shape_signature is None else tuple(int(d) for d in shape_signature)
        self.tensors.append(_Tensor(name, shape, type_code, raw, quantization, variable, signature))
        return len(self.tensors) - 1

    def add_operator(
        self,
        op: str | int,
        inputs: Sequence[int],
        outputs: Sequence[int],
        options: Any = None,
        *,
        version: int = 1,
        intermediates: Sequence[int] = (),
    ) -> int:
        """Add a builtin operator (name or code) with its options object; returns its index."""
        code = builtin_code(op)
        if options is not None:
            options_union(options)  # reject a wrong class now rather than at to_bytes()
        self.operators.append(
            _Operator(
                code,
                None,
                version,
                list(inputs),
                list(outputs),
                options=options,
                intermediates=list(intermediates),
            )
        )
        return len(self.operators) - 1

    def add_custom_operator(
        self,
        custom_code: str,
        inputs: Sequence[int],
        outputs: Sequence[int],
        custom_options: bytes = b"",
        *,
        version: int = 1,
    ) -> int:
        """Add a custom operator with its (usually FlexBuffers) option bytes; returns its index."""
        self.operators.append(
            _Operator(
                litert.BuiltinOperator.CUSTOM,
                custom_code,
                version,
                list(inputs),
                list(outputs),
                custom_options=bytes(custom_options),
            )
        )
        return len(self.operators) - 1

    def set_inputs(self, indices: Sequence[int]) -> None:
        self.inputs = [int(i) for i in indices]

    def set_outputs(self, indices: Sequence[int]) -> None:
        self.outputs = [int(i) for i in indices]

    def build(self) -> litert.ModelT:
        """The model as a LiteRT object-API tree (buffer 0 is the empty sentinel)."""
        model = litert.ModelT()
        model.version = SCHEMA_VERSION
        model.description = self.description
        buffers = [litert.BufferT()]
        model.buffers = buffers
        model.operatorCodes = []
        codes: dict[tuple[int, str | None, int], int] = {}
        model.subgraphs = [part._subgraph_t(model, buffers, codes) for part in [self, *self.subgraphs]]
        return model

    def _subgraph_t(
        self,
        model: litert.ModelT,
        buffers: list[litert.BufferT],
        codes: dict[tuple[int, str | None, int], int],
    ) -> litert.SubGraphT:
        subgraph = litert.SubGraphT()
        subgraph.name = self.name
        subgraph.tensors = [self._tensor_t(t, buffers) for t in self.tensors]
        subgraph.inputs = _vector(self.inputs, np.int32)
        subgraph.outputs = _vector(self.outputs, np.int32)
        subgraph.operators = []
        opcodes = model.operatorCodes if model.operatorCodes is not None else []
        model.operatorCodes = opcodes
        for spec in self.operators:
            key = (spec.code, spec.custom_code, spec.version)
            if key not in codes:
                codes[key] = len(opcodes)
                opcodes.append(self._opcode_t(*key))
            subgraph.operators.append(self._operator_t(spec, codes[key]))
        return subgraph

    def to_bytes(self) -> bytes:
        """The model file's bytes."""
        return pack_model(self.build())

    def save(self, path: str | Path) -> Path:
        """Write the model to ``path`` and return it."""
        path = Path(path)
        path.write_bytes(self.to_bytes())
        return path

    @staticmethod
    def _tensor_t(spec: _Tensor, buffers: list[litert.BufferT]) -> litert.TensorT:
        tensor = litert.TensorT()
        tensor.name = spec.name
        tensor.shape = _vector(spec.shape, np.int32)
        if spec.shape_signature is not None:
            tensor.shapeSignature = _vector(spec.shape_signature, np.int32)
        tensor.type = spec.type
        tensor.isVariable = spec.variable
        tensor.hasRank = True
        if spec.data is not None:
            buffer = litert.BufferT()
            buffer.data = _byte_vector(spec.data)
            buffers.append(buffer)
            tensor.buffer = len(buffers) - 1
        if spec.quantization is not None:
            q = litert.QuantizationParametersT()
            q.scale = _vector(spec.quantization.scale, np.float32)
            q.zeroPoint = _vector(spec.quantization.zero_point, np.int64)
            q.quantizedDimension = int(spec.quantization.axis)
            tensor.quantization = q
        return tensor

    @staticmethod
    def _opcode_t(code: int, custom_code: str | None, version: int) -> litert.OperatorCodeT:
        opcode = litert.OperatorCodeT()
        opcode.builtinCode = code
        # Readers of old files look only at the byte field, which saturates at the placeholder.
        opcode.deprecatedBuiltinCode = min(code, litert.BuiltinOperator.PLACEHOLDER_FOR_GREATER_OP_CODES)
        opcode.customCode = custom_code
        opcode.version = version
        return opcode

    @staticmethod
    def _operator_t(spec: _Operator, opcode_index: int) -> litert.OperatorT:
        op = litert.OperatorT()
        op.opcodeIndex = opcode_index
        op.inputs = _vector(spec.inputs, np.int32)
        op.outputs = _vector(spec.outputs, np.int32)
        if spec.intermediates:
            op.intermediates = _vector(spec.intermediates, np.int32)
        if spec.options is not None:
            attr, tag = options_union(spec.options)
            setattr(op, attr, spec.options)
            setattr(op, attr + "Type", tag)
        if spec.custom_options is not None:
            op.customOptions = _byte_vector(spec.custom_options)
            op.customOptionsFormat = litert.CustomOptionsFormat.FLEXBUFFERS
        return op


__all__ = [
    "DATA_ALIGNMENT",
    "LiteRTModelBuilder",
    "builtin_code",
    "litert_tensor_type",
    "options_union",
    "pack_model",
]
