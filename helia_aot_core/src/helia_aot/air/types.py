"""Enumerations and small value types of AIR, the graph representation a conversion works in."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NewType

import numpy as np

TensorId = NewType("TensorId", str)
"""Identifier of a tensor in an :class:`AirModel` (LiteRT tensors keep their index as a string)."""

OpId = NewType("OpId", str)
"""Identifier of an operator in an :class:`AirModel` (LiteRT operators keep their index)."""


class AirOpType(str, enum.Enum):
    """Operator types that built-in lowerings know by name.

    An AIR operator's ``op_type`` is a canonical key string; the members below compare equal to
    their names, and a custom operator uses its own key (``custom_code_to_op_key``).
    """

    OPERATOR = "OPERATOR"
    ADD = "ADD"
    ARG_MAX = "ARG_MAX"
    ARG_MIN = "ARG_MIN"
    AVERAGE_POOL_2D = "AVERAGE_POOL_2D"
    BATCH_MATMUL = "BATCH_MATMUL"
    CONCATENATION = "CONCATENATION"
    CONV_2D = "CONV_2D"
    DEPTHWISE_CONV_2D = "DEPTHWISE_CONV_2D"
    DEQUANTIZE = "DEQUANTIZE"
    EXPAND_DIMS = "EXPAND_DIMS"
    FULLY_CONNECTED = "FULLY_CONNECTED"
    GATHER = "GATHER"
    HARD_SWISH = "HARD_SWISH"
    LEAKY_RELU = "LEAKY_RELU"
    LOGISTIC = "LOGISTIC"
    MAXIMUM = "MAXIMUM"
    MAX_POOL_2D = "MAX_POOL_2D"
    MEAN = "MEAN"
    MINIMUM = "MINIMUM"
    MUL = "MUL"
    PACK = "PACK"
    PAD = "PAD"
    PADV2 = "PADV2"
    PRELU = "PRELU"
    QUANTIZE = "QUANTIZE"
    RELU = "RELU"
    RELU6 = "RELU6"
    RESHAPE = "RESHAPE"
    RESIZE_BILINEAR = "RESIZE_BILINEAR"
    RESIZE_NEAREST_NEIGHBOR = "RESIZE_NEAREST_NEIGHBOR"
    SLICE = "SLICE"
    SOFTMAX = "SOFTMAX"
    SPLIT = "SPLIT"
    SPLIT_V = "SPLIT_V"
    SQUARED_DIFFERENCE = "SQUARED_DIFFERENCE"
    SQUEEZE = "SQUEEZE"
    STRIDED_SLICE = "STRIDED_SLICE"
    SUB = "SUB"
    SUM = "SUM"
    TANH = "TANH"
    TRANSPOSE = "TRANSPOSE"
    TRANSPOSE_CONV = "TRANSPOSE_CONV"
    UNPACK = "UNPACK"

    def __str__(self) -> str:
        return self.value


class AirTensorKind(str, enum.Enum):
    """Storage role of a tensor: where the memory planner puts it and how long it lives."""

    CONSTANT = "constant"
    """Read-only data known at conversion time (weights, biases, derived tables)."""
    PERSISTENT = "persistent"
    """Read-write data that keeps its value across runs (state)."""
    SCRATCH = "scratch"
    """Activations and working buffers, live only between first write and last read in one run."""

    def __str__(self) -> str:
        return self.value


class AirTensorType(str, enum.Enum):
    """Element types of AIR tensors, with their numpy and C spellings."""

    BOOL = "bool"
    INT4 = "int4"
    """Packed 4-bit integers (LiteRT ``INT4``): constant weights only. AIR holds their values
    unpacked, one int8 per element in -8..7, so every stage and kernel that reads int8 weights
    reads them unchanged; the module stores them packed, two per byte, low nibble first
    (:func:`pack_int4`), which is what :attr:`AirTensor.nbytes` counts."""
    INT8 = "int8"
    UINT8 = "uint8"
    INT16 = "int16"
    INT32 = "int32"
    INT64 = "int64"
    FLOAT16 = "float16"
    FLOAT32 = "float32"

    def __str__(self) -> str:
        return self.value

    @property
    def numpy(self) -> np.dtype:
        """The numpy dtype of one element."""
        return _NUMPY[self]

    @property
    def itemsize(self) -> int:
        """Bytes per element of the values AIR holds (INT4: one; its storage is half that)."""
        return _NUMPY[self].itemsize

    def storage_bytes(self, count: int) -> int:
        """Bytes ``count`` elements take in the module: INT4 packs two per byte."""
        return (count + 1) // 2 if self is AirTensorType.INT4 else count * _NUMPY[self].itemsize

    @property
    def ctype(self) -> str:
        """The C99 type the generated code uses for one element."""
        return _CTYPES[self]

    @property
    def is_integer(self) -> bool:
        return self in (
            AirTensorType.INT4,
            AirTensorType.INT8,
            AirTensorType.UINT8,
            AirTensorType.INT16,
            AirTensorType.INT32,
            AirTensorType.INT64,
        )

    @property
    def is_float(self) -> bool:
        return self in (AirTensorType.FLOAT16, AirTensorType.FLOAT32)

    @classmethod
    def from_numpy(cls, dtype: np.dtype | type) -> AirTensorType:
        """The member for a numpy dtype, or ValueError."""
        member = _FROM_NUMPY.get(dtype) if isinstance(dtype, np.dtype) else None
        return member if member is not None else cls(np.dtype(dtype).name)


_NUMPY = {
    member: np.dtype("int8" if member is AirTensorType.INT4 else member.value) for member in AirTensorType
}
"""Each member's numpy dtype, made once: stages ask for it per tensor, many times per model."""

_FROM_NUMPY = {dtype: member for member, dtype in _NUMPY.items() if member is not AirTensorType.INT4}
"""The member of each native numpy dtype (``from_numpy`` is asked for every array an operator adds)."""

_CTYPES = {
    AirTensorType.BOOL: "bool",
    AirTensorType.INT4: "int8_t",
    AirTensorType.INT8: "int8_t",
    AirTensorType.UINT8: "uint8_t",
    AirTensorType.INT16: "int16_t",
    AirTensorType.INT32: "int32_t",
    AirTensorType.INT64: "int64_t",
    AirTensorType.FLOAT16: "uint16_t",
    AirTensorType.FLOAT32: "float",
}


@dataclass(frozen=True, slots=True, eq=False)
class AirQuantization:
    """Affine quantization ``real = scale * (q - zero_point)``, per tensor or per channel.

    ``scale`` (float32) and ``zero_point`` (int64) have one entry for per-tensor quantization, or
    one per index of ``axis`` for per-channel quantization. Values compare by content.
    """

    scale: np.ndarray
    zero_point: np.ndarray
    axis: int = 0

    def __post_init__(self) -> None:
        scale = np.ascontiguousarray(np.asarray(self.scale, dtype=np.float32).reshape(-1))
        zero_point = np.ascontiguousarray(np.asarray(self.zero_point, dtype=np.int64).reshape(-1))
        if zero_point.size == 1 and scale.size > 1:
            zero_point = np.repeat(zero_point, scale.size)
        if scale.size == 0:
            raise ValueError("a quantization needs at least one scale")
        if zero_point.size != scale.size:
            raise ValueError(f"{scale.size} scales but {zero_point.size} zero points")
        scale.setflags(write=False)
        zero_point.setflags(write=False)
        object.__setattr__(self, "scale", scale)
        object.__setattr__(self, "zero_point", zero_point)

    @property
    def per_channel(self) -> bool:
        return self.scale.size > 1

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AirQuantization):
            return NotImplemented
        return (
            self.axis == other.axis
            and np.array_equal(self.scale, other.scale)
            and np.array_equal(self.zero_point, other.zero_point)
        )

    def __hash__(self) -> int:
        return hash((self.axis, self.scale.tobytes(), self.zero_point.tobytes()))


INT4_MIN, INT4_MAX = -8, 7
"""The values a 4-bit two's-complement element holds."""


def unpack_int4(packed: np.ndarray, count: int) -> np.ndarray:
    """``count`` int4 values from LiteRT's packed bytes: element 2i is the low nibble of byte i,
    element 2i+1 the high one, each sign-extended (as LiteRT's ``UnpackDenseInt4IntoInt8``)."""
    raw = np.asarray(packed, dtype=np.uint8).reshape(-1)
    low = (raw & 0x0F).astype(np.int8)
    high = (raw >> 4).astype(np.int8)
    values = np.stack([low, high], axis=1).reshape(-1)[:count]
    return np.where(values > INT4_MAX, values - 16, values).astype(np.int8)


def pack_int4(values: np.ndarray) -> bytes:
    """Int4 values (-8..7, any shape, C order) packed two per byte, low nibble first; an odd
    count leaves the last byte's high nibble zero. The inverse of :func:`unpack_int4`."""
    flat = np.asarray(values).reshape(-1).astype(np.int16)
    if flat.size and (flat.min() < INT4_MIN or flat.max() > INT4_MAX):
        raise ValueError("int4 values must lie in -8..7")
    nibbles = (flat & 0x0F).astype(np.uint8)
    if nibbles.size % 2:
        nibbles = np.append(nibbles, np.uint8(0))
    return (nibbles[0::2] | (nibbles[1::2] << 4)).astype(np.uint8).tobytes()
