"""Unpacking a LiteRT flatbuffer into object-API classes with a few struct reads per field.

The flatc object API (``schema_py_generated``) reads each field through several Python calls (a
``Table`` method, a number-type check, an ``encode.Get``), which made unpacking a quarter of a
large model's conversion, and importing it (1 MB of bytecode) cost every conversion 10-15 ms. Here
the tables every model has in numbers (subgraphs, tensors, quantization parameters, operators,
buffers) are read with the same reads the generated code makes, in one function each; every other
table (operator codes, builtin options, sparsity, variant tensors, quantization details, metadata,
signatures, external buffers) is read by one function driven by the layouts of
:mod:`helia_aot.litert.schema_tables`. Both build :mod:`helia_aot.litert.objects` classes with the
generated classes' attributes, values and defaults (numpy views of the same bytes).

Any failure raises; the reader then unpacks with the generated code, whose traceback names the
table and field that broke (:func:`helia_aot.converters.litert.reader.unpack_location`), so a
malformed file is reported exactly as before. Every read the generated code makes is made here too
(a union's offset even when its tag is unknown), and offsets are checked as the generated ``Table``
checks them (a negative one fails), so this never accepts bytes the generated code refuses.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

import numpy as np

from helia_aot.litert.objects import object_class
from helia_aot.litert.schema_tables import TABLES, UNIONS

# The reads of the flatbuffers runtime (``flatbuffers.packer``: little-endian ``struct`` formats;
# ``flatbuffers.number_types.to_numpy_type``: numpy dtypes by name, little-endian), made here so a
# conversion does not import the runtime's builder and tables it never uses.
_FORMATS = {
    "?": ("?", "bool"),
    "b": ("<b", "int8"),
    "B": ("<B", "uint8"),
    "h": ("<h", "int16"),
    "H": ("<H", "uint16"),
    "i": ("<i", "int32"),
    "I": ("<I", "uint32"),
    "q": ("<q", "int64"),
    "Q": ("<Q", "uint64"),
    "f": ("<f", "float32"),
    "d": ("<d", "float64"),
}

_Unpack = Callable[[memoryview, int], tuple[Any, ...]]
_SCALARS: dict[str, _Unpack] = {code: struct.Struct(fmt).unpack_from for code, (fmt, _) in _FORMATS.items()}
_VECTORS: dict[str, Any] = {
    "[" + code: np.dtype(name).newbyteorder("<") for code, (_, name) in _FORMATS.items()
}

_Ints = Callable[[memoryview, int], tuple[int]]
_U8: _Ints = _SCALARS["B"]
_I8: _Ints = _SCALARS["b"]
_BOOL: _Ints = _SCALARS["?"]
_U16: _Ints = _SCALARS["H"]
_I32: _Ints = _SCALARS["i"]
_U32: _Ints = _SCALARS["I"]
_U64: _Ints = _SCALARS["Q"]

_INT32 = _VECTORS["[i"]
_INT64 = _VECTORS["[q"]
_UINT8 = _VECTORS["[B"]
_BOOLS = _VECTORS["[?"]
_FLOAT32 = _VECTORS["[f"]

_np: Any = np

_ModelT = object_class("Model")
_SubGraphT = object_class("SubGraph")
_TensorT = object_class("Tensor")
_OperatorT = object_class("Operator")
_BufferT = object_class("Buffer")
_QuantizationParametersT = object_class("QuantizationParameters")


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


def _object(r: _Reader, pos: int, table: str) -> Any:
    """Any table, read field by field from its layout, as the generated ``_UnPack`` reads it."""
    obj = object_class(table)()
    fields = obj.__dict__
    vt = r.slots(pos)
    for attr, slot, kind, _ in TABLES[table]:
        o = r.field(vt, slot)
        if not o:
            continue  # the default the constructor set
        at = pos + o
        scalar = _SCALARS.get(kind)
        if scalar is not None:
            fields[attr] = scalar(r.view, at)[0]
        elif kind == "s":
            fields[attr] = r.string(at)
        elif kind in _VECTORS:
            fields[attr] = r.numpy(at, _VECTORS[kind])
        elif kind == "[s":
            start, count = r.vector(at)
            fields[attr] = [r.string(start + 4 * i) for i in range(count)]
        elif kind.startswith("[t:"):
            fields[attr] = _objects(r, at, kind[3:])
        elif kind.startswith("t:"):
            fields[attr] = _object(r, r.indirect(at), kind[2:])
        else:  # "u:Union", its tag read (or defaulted) as the field before it, ``<attr>Type``
            fields[attr] = _union(r, at, kind[2:], fields[attr + "Type"])
    return obj


def _union(r: _Reader, at: int, union: str, tag: int) -> Any:
    """The value of a union field at ``at`` (None for tag NONE or a tag this schema lacks)."""
    target = r.indirect(at)
    table = UNIONS[union].get(tag)
    return None if table is None else _object(r, target, table)


def _quantization(r: _Reader, pos: int) -> Any:
    vt = r.slots(pos)
    q = _QuantizationParametersT()
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
    o = r.field(vt, 14)
    q.details = _union(r, pos + o, "QuantizationDetails", q.detailsType) if o else None
    o = r.field(vt, 16)
    q.quantizedDimension = _I32(r.view, pos + o)[0] if o else 0
    return q


def _tensor(r: _Reader, pos: int) -> Any:
    vt = r.slots(pos)
    if r.field(vt, 16) or r.field(vt, 22):  # sparsity, variant tensors: read from the layout
        return _object(r, pos, "Tensor")
    t = _TensorT()
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


def _operator(r: _Reader, pos: int) -> Any:
    vt = r.slots(pos)
    op = _OperatorT()
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
    o = r.field(vt, 12)
    op.builtinOptions = _union(r, pos + o, "BuiltinOptions", op.builtinOptionsType) if o else None
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
    o = r.field(vt, 28)
    op.builtinOptions2 = _union(r, pos + o, "BuiltinOptions2", op.builtinOptions2Type) if o else None
    o = r.field(vt, 30)
    op.debugMetadataIndex = _I32(r.view, pos + o)[0] if o else -1
    return op


def _subgraph(r: _Reader, pos: int) -> Any:
    vt = r.slots(pos)
    g = _SubGraphT()
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


def _buffer(r: _Reader, pos: int) -> Any:
    vt = r.slots(pos)
    b = _BufferT()
    o = r.field(vt, 4)
    if o:
        b.data = r.numpy(pos + o, _UINT8)
    o = r.field(vt, 6)
    b.offset = _U64(r.view, pos + o)[0] if o else 0
    o = r.field(vt, 8)
    b.size = _U64(r.view, pos + o)[0] if o else 0
    return b


def _objects(r: _Reader, at: int, table: str) -> list[Any]:
    return r.tables(at, lambda p: _object(r, p, table))


def unpack_model(buf: bytes) -> Any:
    """The ``ModelT`` of the LiteRT flatbuffer ``buf`` (root offset at byte 0), field for field as
    the generated ``ModelT.InitFromPackedBuf(buf, 0)`` builds it; raises on any malformed offset."""
    r = _Reader(buf)
    pos = _U32(r.view, 0)[0]
    vt = r.slots(pos)
    m = _ModelT()
    o = r.field(vt, 4)
    m.version = _U32(r.view, pos + o)[0] if o else 0
    o = r.field(vt, 6)
    if o:
        m.operatorCodes = _objects(r, pos + o, "OperatorCode")
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
        m.metadata = _objects(r, pos + o, "Metadata")
    o = r.field(vt, 18)
    if o:
        m.signatureDefs = _objects(r, pos + o, "SignatureDef")
    o = r.field(vt, 20)
    if o:
        m.externalBufferGroups = _objects(r, pos + o, "ExternalBufferGroup")
    o = r.field(vt, 22)
    if o:
        m.externalBuffers = _objects(r, pos + o, "ExternalBuffer")
    return m


__all__ = ["unpack_model"]
