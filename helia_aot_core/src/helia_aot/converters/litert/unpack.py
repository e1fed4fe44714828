"""Unpacking a LiteRT flatbuffer into the object API (``ModelT``) with a few struct reads per field.

The generated object API reads each field through several Python calls (a ``Table`` method, a
number-type check, an ``encode.Get``), which made unpacking a quarter of a large model's
conversion: a 1,000-layer model has 3,000 tensors, each with its quantization table. Here the
tables every model has in numbers (subgraphs, tensors, quantization parameters, operators,
buffers) are read with the same reads the generated code makes, in one function each, and build
the same ``*T`` objects (numpy views of the same bytes, the same defaults). Tables that are rare
or nested deeper (operator codes, builtin options, sparsity, variant tensors, quantization
details, metadata, signatures, external buffers) are handed to the generated unpacker unchanged.

Any failure raises; the reader then unpacks with the generated code, whose traceback names the
table and field that broke (:func:`helia_aot.converters.litert.reader.unpack_location`), so a
malformed file is reported exactly as before. Offsets are checked as the generated ``Table``
checks them (a negative one fails), so this never accepts bytes the generated code refuses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import flatbuffers.number_types as N
import flatbuffers.packer as P

from helia_aot.litert import schema_py_generated as litert

_Unpack = Callable[[memoryview, int], tuple[int]]
_U8: _Unpack = P.uint8.unpack_from
_I8: _Unpack = P.int8.unpack_from
_BOOL: _Unpack = P.boolean.unpack_from
_U16: _Unpack = P.uint16.unpack_from
_I32: _Unpack = P.int32.unpack_from
_U32: _Unpack = P.uint32.unpack_from
_U64: _Unpack = P.uint64.unpack_from

_INT32 = N.to_numpy_type(N.Int32Flags)
_INT64 = N.to_numpy_type(N.Int64Flags)
_UINT8 = N.to_numpy_type(N.Uint8Flags)
_BOOLS = N.to_numpy_type(N.BoolFlags)
_FLOAT32 = N.to_numpy_type(N.Float32Flags)

_np: Any = litert.np  # the numpy the generated module imported (it builds the same views)


class _Reader:
    """The vtable and vector reads of ``flatbuffers.table.Table``, over one buffer."""

    __slots__ = ("buf", "view")

    def __init__(self, buf: bytes) -> None:
        self.buf = buf
        self.view = memoryview(buf)

    def slots(self, pos: int) -> tuple[int, int]:
        """(vtable position, vtable length) of the table at ``pos``."""
        if pos < 0:
            raise ValueError(f"table at negative offset {pos}")
        vtable = pos - _I32(self.view, pos)[0]
        if vtable < 0:
            raise ValueError(f"vtable at negative offset {vtable}")
        return vtable, _U16(self.view, vtable)[0]

    def field(self, vtable: tuple[int, int], slot: int) -> int:
        """The field's offset from its table (0: absent), as ``Table.Offset``."""
        start, length = vtable
        return _U16(self.view, start + slot)[0] if slot < length else 0

    def indirect(self, at: int) -> int:
        return at + _U32(self.view, at)[0]

    def vector(self, at: int) -> tuple[int, int]:
        """(start of the elements, element count) of the vector whose offset is stored at ``at``."""
        head = at + _U32(self.view, at)[0]
        return head + 4, _U32(self.view, head)[0]

    def numpy(self, at: int, dtype: Any) -> Any:
        start, count = self.vector(at)
        return _np.frombuffer(self.buf, dtype=dtype, count=count, offset=start)

    def string(self, at: int) -> Any:
        """The bytes of a string (bytes, as the generated API returns, whatever its ``str`` comment)."""
        head = at + _U32(self.view, at)[0]
        length = _U32(self.view, head)[0]
        return bytes(self.buf[head + 4 : head + 4 + length])

    def tables(self, at: int, unpack: Callable[[int], Any]) -> list[Any]:
        start, count = self.vector(at)
        return [unpack(start + 4 * i + _U32(self.view, start + 4 * i)[0]) for i in range(count)]

    def generated(self, accessor: type, pos: int) -> Any:
        """The generated accessor object of the table at ``pos`` (for the fields handed over)."""
        obj = accessor()
        obj.Init(self.buf, pos)
        return obj


def _quantization(r: _Reader, pos: int) -> litert.QuantizationParametersT:
    vt = r.slots(pos)
    q = litert.QuantizationParametersT()
    o = r.field(vt, 4)
    if o:
        q.min = r.numpy(pos + o, _FLOAT32)
    o = r.field(vt, 6)
    if o:
        q.max = r.numpy(pos + o, _FLOAT32)
    o = r.field(vt, 8)
    if o:
        q.scale = r.numpy(pos + o, _FLOAT32)
    o = r.field(vt, 10)
    if o:
        q.zeroPoint = r.numpy(pos + o, _INT64)
    o = r.field(vt, 12)
    q.detailsType = _U8(r.view, pos + o)[0] if o else 0
    if r.field(vt, 14):
        generated = r.generated(litert.QuantizationParameters, pos)
        q.details = litert.QuantizationDetailsCreator(q.detailsType, generated.Details())
    else:
        q.details = None
    o = r.field(vt, 16)
    q.quantizedDimension = _I32(r.view, pos + o)[0] if o else 0
    return q


def _tensor(r: _Reader, pos: int) -> litert.TensorT:
    vt = r.slots(pos)
    if r.field(vt, 16) or r.field(vt, 22):  # sparsity, variant tensors: the generated unpacker
        whole: litert.TensorT = litert.TensorT.InitFromObj(r.generated(litert.Tensor, pos))
        return whole
    t = litert.TensorT()
    o = r.field(vt, 4)
    if o:
        t.shape = r.numpy(pos + o, _INT32)
    o = r.field(vt, 6)
    t.type = _I8(r.view, pos + o)[0] if o else 0
    o = r.field(vt, 8)
    t.buffer = _U32(r.view, pos + o)[0] if o else 0
    o = r.field(vt, 10)
    t.name = r.string(pos + o) if o else None
    o = r.field(vt, 12)
    if o:
        t.quantization = _quantization(r, r.indirect(pos + o))
    o = r.field(vt, 14)
    t.isVariable = bool(_BOOL(r.view, pos + o)[0]) if o else False
    o = r.field(vt, 18)
    if o:
        t.shapeSignature = r.numpy(pos + o, _INT32)
    o = r.field(vt, 20)
    t.hasRank = bool(_BOOL(r.view, pos + o)[0]) if o else False
    o = r.field(vt, 24)
    t.externalBuffer = _U32(r.view, pos + o)[0] if o else 0
    return t


def _operator(r: _Reader, pos: int) -> litert.OperatorT:
    vt = r.slots(pos)
    op = litert.OperatorT()
    o = r.field(vt, 4)
    op.opcodeIndex = _U32(r.view, pos + o)[0] if o else 0
    o = r.field(vt, 6)
    if o:
        op.inputs = r.numpy(pos + o, _INT32)
    o = r.field(vt, 8)
    if o:
        op.outputs = r.numpy(pos + o, _INT32)
    o = r.field(vt, 10)
    op.builtinOptionsType = _U8(r.view, pos + o)[0] if o else 0
    generated = None
    if r.field(vt, 12):
        generated = r.generated(litert.Operator, pos)
        op.builtinOptions = litert.BuiltinOptionsCreator(op.builtinOptionsType, generated.BuiltinOptions())
    else:
        op.builtinOptions = None
    o = r.field(vt, 14)
    if o:
        op.customOptions = r.numpy(pos + o, _UINT8)
    o = r.field(vt, 16)
    op.customOptionsFormat = _I8(r.view, pos + o)[0] if o else 0
    o = r.field(vt, 18)
    if o:
        op.mutatingVariableInputs = r.numpy(pos + o, _BOOLS)
    o = r.field(vt, 20)
    if o:
        op.intermediates = r.numpy(pos + o, _INT32)
    o = r.field(vt, 22)
    op.largeCustomOptionsOffset = _U64(r.view, pos + o)[0] if o else 0
    o = r.field(vt, 24)
    op.largeCustomOptionsSize = _U64(r.view, pos + o)[0] if o else 0
    o = r.field(vt, 26)
    op.builtinOptions2Type = _U8(r.view, pos + o)[0] if o else 0
    if r.field(vt, 28):
        generated = generated or r.generated(litert.Operator, pos)
        op.builtinOptions2 = litert.BuiltinOptions2Creator(
            op.builtinOptions2Type, generated.BuiltinOptions2()
        )
    else:
        op.builtinOptions2 = None
    o = r.field(vt, 30)
    op.debugMetadataIndex = _I32(r.view, pos + o)[0] if o else -1
    return op


def _subgraph(r: _Reader, pos: int) -> litert.SubGraphT:
    vt = r.slots(pos)
    g = litert.SubGraphT()
    o = r.field(vt, 4)
    if o:
        g.tensors = r.tables(pos + o, lambda p: _tensor(r, p))
    o = r.field(vt, 6)
    if o:
        g.inputs = r.numpy(pos + o, _INT32)
    o = r.field(vt, 8)
    if o:
        g.outputs = r.numpy(pos + o, _INT32)
    o = r.field(vt, 10)
    if o:
        g.operators = r.tables(pos + o, lambda p: _operator(r, p))
    o = r.field(vt, 12)
    g.name = r.string(pos + o) if o else None
    o = r.field(vt, 14)
    g.debugMetadataIndex = _I32(r.view, pos + o)[0] if o else -1
    return g


def _buffer(r: _Reader, pos: int) -> litert.BufferT:
    vt = r.slots(pos)
    b = litert.BufferT()
    o = r.field(vt, 4)
    if o:
        b.data = r.numpy(pos + o, _UINT8)
    o = r.field(vt, 6)
    b.offset = _U64(r.view, pos + o)[0] if o else 0
    o = r.field(vt, 8)
    b.size = _U64(r.view, pos + o)[0] if o else 0
    return b


def _generated_tables(r: _Reader, at: int, accessor: type, unpacked: Any) -> list[Any]:
    return r.tables(at, lambda p: unpacked.InitFromObj(r.generated(accessor, p)))


def unpack_model(buf: bytes) -> litert.ModelT:
    """The ``ModelT`` of the LiteRT flatbuffer ``buf`` (root offset at byte 0), as
    ``ModelT.InitFromPackedBuf(buf, 0)`` builds it; raises on any malformed offset."""
    r = _Reader(buf)
    pos = _U32(r.view, 0)[0]
    vt = r.slots(pos)
    m = litert.ModelT()
    o = r.field(vt, 4)
    m.version = _U32(r.view, pos + o)[0] if o else 0
    o = r.field(vt, 6)
    if o:
        m.operatorCodes = _generated_tables(r, pos + o, litert.OperatorCode, litert.OperatorCodeT)
    o = r.field(vt, 8)
    if o:
        m.subgraphs = r.tables(pos + o, lambda p: _subgraph(r, p))
    o = r.field(vt, 10)
    m.description = r.string(pos + o) if o else None
    o = r.field(vt, 12)
    if o:
        m.buffers = r.tables(pos + o, lambda p: _buffer(r, p))
    o = r.field(vt, 14)
    if o:
        m.metadataBuffer = r.numpy(pos + o, _INT32)
    o = r.field(vt, 16)
    if o:
        m.metadata = _generated_tables(r, pos + o, litert.Metadata, litert.MetadataT)
    o = r.field(vt, 18)
    if o:
        m.signatureDefs = _generated_tables(r, pos + o, litert.SignatureDef, litert.SignatureDefT)
    o = r.field(vt, 20)
    if o:
        m.externalBufferGroups = _generated_tables(
            r, pos + o, litert.ExternalBufferGroup, litert.ExternalBufferGroupT
        )
    o = r.field(vt, 22)
    if o:
        m.externalBuffers = _generated_tables(r, pos + o, litert.ExternalBuffer, litert.ExternalBufferT)
    return m


__all__ = ["unpack_model"]
