"""Reading a ``.tflite`` file into the LiteRT object API, and the tensor facts AIR needs from it.

The file is untrusted: its size is checked before it is read, the FlatBuffers identifier before it
is parsed, and every failure while unpacking (truncation, offsets past the end, garbage) becomes a
:class:`~helia_aot.errors.ModelLoadError` instead of a stray ``IndexError`` or ``struct.error``.
Constant data is checked against the tensor that claims it before a numpy array is made of it.
"""

from __future__ import annotations

import linecache
import math
import re
import struct
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from helia_aot.air.types import AirQuantization, AirTensorType, unpack_int4
from helia_aot.converters.litert import schema_access as sa
from helia_aot.converters.litert.file_bytes import attach_file_bytes, file_slice
from helia_aot.converters.litert.unpack import unpack_model
from helia_aot.errors import ModelLoadError, UnsupportedModelError
from helia_aot.litert import BINDINGS_MODULE, FILE_IDENTIFIER, SCHEMA_VERSION
from helia_aot.litert.schema_tables import TensorType

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    import helia_aot.litert.schema_py_generated as litert

MAX_MODEL_BYTES = 1 << 30
"""Largest model file :func:`read_model` accepts by default (1 GiB: far past any MCU model)."""

MAX_TENSOR_BYTES = (1 << 31) - 1
"""Largest tensor a model may declare: generated code indexes with 32-bit sizes."""

_MALFORMED_HINT = "the file is not a well-formed LiteRT model; re-export it with the LiteRT converter"

_DTYPES: dict[int, AirTensorType] = {
    TensorType.FLOAT32: AirTensorType.FLOAT32,
    TensorType.FLOAT16: AirTensorType.FLOAT16,
    TensorType.INT32: AirTensorType.INT32,
    TensorType.UINT8: AirTensorType.UINT8,
    TensorType.INT64: AirTensorType.INT64,
    TensorType.BOOL: AirTensorType.BOOL,
    TensorType.INT16: AirTensorType.INT16,
    TensorType.INT8: AirTensorType.INT8,
    TensorType.INT4: AirTensorType.INT4,
}


def read_model(path: str | Path, *, max_bytes: int = MAX_MODEL_BYTES) -> litert.ModelT:
    """Read and unpack a LiteRT model file, or raise ModelLoadError saying what is wrong."""
    path = Path(path)
    try:
        info = path.stat()
    except FileNotFoundError:
        raise ModelLoadError(
            f"model file not found: {path}", hint="check the path to the .tflite file"
        ) from None
    except OSError as exc:
        raise ModelLoadError(f"cannot access model file {path}: {exc.strerror or exc}") from exc
    if not path.is_file():
        raise ModelLoadError(
            f"model path is not a regular file: {path}", hint="pass the path of a .tflite file"
        )
    if info.st_size > max_bytes:
        raise ModelLoadError(
            f"model file {path} has {info.st_size} bytes, more than the {max_bytes}-byte limit",
            hint="pass a smaller model (or raise max_bytes deliberately)",
        )
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ModelLoadError(f"cannot read model file {path}: {exc.strerror or exc}") from exc
    return parse_model(data, source=str(path))


def parse_model(data: bytes, *, source: str = "<bytes>") -> litert.ModelT:
    """Unpack LiteRT model bytes (``source`` names them in errors)."""
    data = bytes(data)
    if len(data) < 8:
        raise ModelLoadError(
            f"{source} is truncated: {len(data)} bytes is too short for a model", hint=_MALFORMED_HINT
        )
    if data[4:8] != FILE_IDENTIFIER:
        raise ModelLoadError(
            f"{source} is not a LiteRT model: file identifier {data[4:8]!r}, expected {FILE_IDENTIFIER!r}",
            hint="pass a .tflite file produced by the LiteRT converter",
        )
    (root,) = struct.unpack_from("<I", data, 0)
    if root < 8 or root + 4 > len(data):
        raise ModelLoadError(
            f"{source} is truncated or corrupt: root table offset {root} is "
            f"outside the {len(data)}-byte file",
            hint=_MALFORMED_HINT,
        )
    try:
        model: litert.ModelT = unpack_model(data)
    except Exception:  # malformed somewhere: the generated unpacker says where (or reads it after all)
        model = _generated_unpack(data, source)
    if model.version != SCHEMA_VERSION:
        raise ModelLoadError(
            f"{source} has schema version {model.version}; LiteRT reads version {SCHEMA_VERSION}",
            hint=_MALFORMED_HINT,
        )
    attach_file_bytes(model, data)
    return model


def _generated_unpack(data: bytes, source: str) -> litert.ModelT:
    """Unpack with the generated object API, whose traceback locates a malformed field (the
    bindings are imported only here: a well-formed file never needs them)."""
    import helia_aot.litert.schema_py_generated as litert

    try:
        model: litert.ModelT = litert.ModelT.InitFromPackedBuf(data, 0)
        return model
    except Exception as exc:  # any failure inside the generated unpacker means a corrupt file
        where = unpack_location(exc)
        raise ModelLoadError(
            f"{source} is not a well-formed LiteRT flatbuffer: reading {where or 'the root table'} "
            f"failed ({type(exc).__name__}: {exc})",
            hint=_MALFORMED_HINT,
            details={"table": where},
        ) from exc


_ACCESSOR = re.compile(r"\.(\w+?)(?:AsNumpy|Length|IsNone)?\((i?)\)")


def unpack_location(exc: BaseException) -> str:
    """Where in the file an unpacking error happened, as ``Model.subgraphs[0] > SubGraph.tensors[3]``.

    The generated object API unpacks each table in its own ``_UnPack`` method, one field per line,
    vector elements in a loop over ``i``; the traceback therefore says which table, field and
    element was being read when the bytes ran out or made no sense.
    """
    parts = []
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        owner = frame.f_locals.get("self")
        if frame.f_code.co_name == "_UnPack" and type(owner).__module__ == BINDINGS_MODULE:
            table = type(owner).__name__.removesuffix("T")
            match = _ACCESSOR.search(linecache.getline(frame.f_code.co_filename, tb.tb_lineno))
            if match is None:
                parts.append(table)
            else:
                field = match.group(1)[:1].lower() + match.group(1)[1:]
                index = frame.f_locals.get("i") if match.group(2) else None
                parts.append(f"{table}.{field}" + (f"[{index}]" if isinstance(index, int) else ""))
        tb = tb.tb_next
    return " > ".join(parts)


def tensor_dtype(litert_type: int) -> AirTensorType:
    """The AIR element type of a LiteRT ``TensorType`` code, or UnsupportedModelError."""
    try:
        return _DTYPES[int(litert_type)]
    except KeyError:
        raise UnsupportedModelError(
            f"tensor type {sa.tensor_type_name(litert_type)} is not supported",
            hint="supported tensor types: " + ", ".join(sorted(str(t) for t in _DTYPES.values())),
        ) from None


_FLOAT32_TINY = float(np.finfo(np.float32).tiny)
"""The smallest normal float32: a smaller nonzero scale is subnormal."""

_ZERO_POINT_LIMITS: dict[int, tuple[int, int]] = {
    TensorType.INT8: (-128, 127),
    TensorType.UINT8: (0, 255),
    TensorType.INT16: (-32768, 32767),
    TensorType.INT4: (-8, 7),
}
"""Zero points a quantized tensor of each type can hold: the generated integer arithmetic assumes
them (a zero point past the type's range overflows the kernels' 32-bit sums)."""


def _describe(tensor: litert.TensorT) -> str:
    return f"tensor {sa.name_of(tensor)!r}"


def quantization_of(tensor: litert.TensorT) -> AirQuantization | None:
    """The tensor's affine quantization, or None when it has no scales.

    Follows the checks the LiteRT interpreter makes when it builds a tensor: scales without zero
    points, unequal counts and an out-of-range quantized dimension are malformed files. Scales
    that are negative, NaN, infinite or subnormal, and zero points outside the element type's
    range, are rejected too: no converter writes them and the generated arithmetic would overflow
    on them.
    """
    q = tensor.quantization
    if q is None or q.scale is None or len(q.scale) == 0:
        return None
    if q.details is not None or int(q.detailsType or 0) != 0:
        raise UnsupportedModelError(
            f"{_describe(tensor)} uses non-affine quantization details, which are not supported"
        )
    if q.zeroPoint is None:
        raise ModelLoadError(
            f"{_describe(tensor)} has quantization scales but no zero points", hint=_MALFORMED_HINT
        )
    scale = np.asarray(q.scale, dtype=np.float32)
    zero_point = np.asarray(q.zeroPoint, dtype=np.int64)
    if scale.size != zero_point.size:
        raise ModelLoadError(
            f"{_describe(tensor)} has {scale.size} scales but {zero_point.size} zero points",
            hint=_MALFORMED_HINT,
        )
    # Only 0 (an all-zero weight channel) or a normal positive float32: subnormal scales overflow
    # the requantization multipliers derived from them.
    usable = (scale == 0) | ((scale >= _FLOAT32_TINY) & np.isfinite(scale))
    if not usable.all():
        bad = next(float(v) for v, ok in zip(scale, usable) if not ok)
        raise ModelLoadError(
            f"{_describe(tensor)} has quantization scale {bad}; scales must be finite, positive "
            "and normal float32 values",
            hint=_MALFORMED_HINT,
        )
    limits = _ZERO_POINT_LIMITS.get(int(tensor.type))
    if limits is not None and (zero_point.min() < limits[0] or zero_point.max() > limits[1]):
        bad = next(int(v) for v in zero_point if not limits[0] <= v <= limits[1])
        raise ModelLoadError(
            f"{_describe(tensor)} has zero point {bad}, outside the {sa.tensor_type_name(tensor.type)} "
            f"range {limits[0]}..{limits[1]}",
            hint=_MALFORMED_HINT,
        )
    axis = int(q.quantizedDimension or 0)
    shape = sa.shape_of(tensor)
    if axis < 0 or (shape and axis >= len(shape)):
        raise ModelLoadError(
            f"{_describe(tensor)} has quantized dimension {axis} but rank {len(shape)}", hint=_MALFORMED_HINT
        )
    if scale.size != 1 and shape and scale.size != shape[axis]:
        raise ModelLoadError(
            f"{_describe(tensor)} has {scale.size} scales for dimension {axis} of size {shape[axis]}",
            hint=_MALFORMED_HINT,
        )
    return AirQuantization(scale=scale, zero_point=zero_point, axis=axis)


def element_count(shape: tuple[int, ...], what: str) -> int:
    """Elements of a static shape; negative dimensions and sizes past 2**31 are rejected."""
    if any(d < 0 for d in shape):
        raise UnsupportedModelError(
            f"{what} has an unknown dimension in shape {list(shape)}",
            hint="convert the model with static shapes",
        )
    count = math.prod(shape)
    # An empty tensor (a 0 dimension) with enormous other dimensions is still nonsense, and numpy
    # refuses to shape even zero elements that way.
    if math.prod(max(d, 1) for d in shape) > MAX_TENSOR_BYTES:
        raise UnsupportedModelError(
            f"{what} has shape {list(shape)}: too many elements", hint="tensors must fit in 2**31 bytes"
        )
    return count


def stored_bytes(model: litert.ModelT, tensor: litert.TensorT) -> np.ndarray | None:
    """The bytes the tensor's Buffer holds (inline, or the file region of a model over 2 GB), or
    None when it holds none."""
    buffer = sa.buffer_at(model, tensor.buffer)
    offset = int(buffer.offset or 0)
    if offset > 1:
        raw = file_slice(model, offset, int(buffer.size or 0), f"buffer {tensor.buffer}")
    elif buffer.data is not None and len(buffer.data) > 0:
        raw = np.asarray(buffer.data, dtype=np.uint8)
    else:
        return None
    return raw if raw.size else None


def buffer_data(model: litert.ModelT, tensor: litert.TensorT) -> np.ndarray | None:
    """The tensor's constant contents as a fresh numpy array of its shape, or None.

    Data is read inline from its Buffer or, for models over 2 GB, from the file region the Buffer's
    offset and size name (a tensor stored sparse is refused: Load densifies those first, see
    :mod:`~helia_aot.converters.litert.sparsity`). As in the LiteRT runtime, a buffer shorter
    than the tensor is an error (ModelLoadError naming the tensor) and bytes past the tensor's
    size are ignored.
    """
    if int(getattr(tensor, "externalBuffer", 0) or 0):
        raise UnsupportedModelError(
            f"{_describe(tensor)} keeps its data in an external weights file, which is not supported",
            hint="convert the model with weights embedded in the .tflite file",
        )
    raw = stored_bytes(model, tensor)
    if raw is None:
        return None
    dtype = tensor_dtype(tensor.type)
    shape = sa.shape_of(tensor)
    count = element_count(shape, _describe(tensor))
    needed = dtype.storage_bytes(count)
    if needed > MAX_TENSOR_BYTES:
        raise UnsupportedModelError(f"{_describe(tensor)} needs {needed} bytes, too many")
    if tensor.sparsity is not None:  # Load densifies them first (converters.litert.sparsity)
        raise UnsupportedModelError(
            f"{_describe(tensor)} is stored sparse, and this reader reads dense data only",
            hint="read the model through the Load stage (helia_aot.pipeline.load), which densifies it",
        )
    if raw.size < needed:
        raise ModelLoadError(
            f"buffer {tensor.buffer} of {_describe(tensor)} holds {raw.size} bytes, shorter than "
            f"the {needed} bytes of {dtype}{list(shape)}",
            hint=_MALFORMED_HINT,
        )
    raw = raw[:needed]  # the runtime accepts (and ignores) trailing bytes
    if dtype is AirTensorType.INT4:  # packed two per byte, low nibble first
        return unpack_int4(raw, count).reshape(shape)
    return little_endian(raw, dtype).reshape(shape)


def little_endian(raw: np.ndarray, dtype: AirTensorType) -> np.ndarray:
    """The stored bytes ``raw`` as a flat array of ``dtype`` (BOOL: any nonzero byte is true)."""
    if dtype is AirTensorType.BOOL:
        flags: np.ndarray = np.asarray(raw != 0)
        return flags
    values: np.ndarray = np.frombuffer(raw.tobytes(), dtype=dtype.numpy.newbyteorder("<"))
    return values.astype(dtype.numpy)


__all__ = [
    "MAX_MODEL_BYTES",
    "MAX_TENSOR_BYTES",
    "buffer_data",
    "element_count",
    "parse_model",
    "quantization_of",
    "read_model",
    "tensor_dtype",
    "little_endian",
    "stored_bytes",
    "unpack_location",
]
