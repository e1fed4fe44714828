"""Packed int4 weights for the weighted operators (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED).

AIR holds an INT4 tensor's values unpacked (int8 values in -8..7, ``AirTensorType.INT4``), so an
operator with int4 weights checks, folds and re-lays out its filter exactly as an int8 one, and
its int8 kernels give LiteRT's results bit for bit (the reference kernels unpack int4 filters to
int8 before they compute). What changes is storage: the module keeps every int4 constant packed,
two values per byte (the constant pool packs them), and the operator gets its int8 view at run
time in one of two ways, chosen by ``optimization.goal``:

- **unpack once** (goals ``latency``, ``balanced`` and ``accuracy``): the run function first unpacks each int4
  constant the kernel reads (the filter, or its re-laid-out copy such as ``packed_filter``) into
  an int8 scratch buffer (``hk_unpack_s4``, Helium-vectorised), then calls the int8 kernel, fast
  paths and all, on that buffer;
- **per use** (goal ``size``, int8 activations): the kernel reads the nibbles where it
  multiplies, with no int8 copy anywhere (``hk_fully_connected_s8_s4``, where Helium and the DSP
  extension split the nibbles in registers; ``hk_conv_s8_s4`` and ``hk_depthwise_s8_s4``, the
  general loops on nibbles). int16 activations unpack once under every goal.

The functions below take the operator (weights at input 1); ``BuiltinOperator.ptr`` points an
int4 tensor at its unpacked copy, and the templates render ``int4_unpacks`` first in the run.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from helia_aot.air import AirTensor, AirTensorKind, AirTensorType

INT4_DERIVED = ("packed_filter", "im2col_filter")
"""Operator-local constants that re-lay out the filter: int4 too when the filter is."""

UNPACK_SUFFIX = "_unpacked"


def int4_weights(op: Any) -> bool:
    """Whether the operator's weights (input 1) are int4."""
    weights = op.input_or_none(1)
    return weights is not None and weights.dtype is AirTensorType.INT4


def int4_tensors(op: Any) -> list[AirTensor]:
    """The int4 constants the emitted code reads: the inputs it reads (the weights, unless a
    re-laid-out copy replaces them) and the int4 copies (:data:`INT4_DERIVED`)."""
    tensors: list[AirTensor] = []
    for position, tid in enumerate(op.op.input_ids):
        tensor = op.model.tensors.get(tid) if tid else None
        if tensor is not None and tensor.dtype is AirTensorType.INT4 and op.reads_input(position):
            if tensor not in tensors:
                tensors.append(tensor)
    for name in INT4_DERIVED:
        tid = op.op.named_tensors.get(name)
        if tid is not None and op.model.tensors[tid].dtype is AirTensorType.INT4:
            tensors.append(op.model.tensors[tid])
    return tensors


def resolve_int4(op: Any, *, per_use: bool = False) -> None:
    """With int4 weights: mark the filter's re-laid-out copies int4 (their values are the
    filter's, zero padded) and record whether the kernel reads the int4 constants packed
    (``per_use``); :func:`unpack_int4_reads` then gives the others their buffers."""
    op.int4_per_use_kernel = per_use and int4_weights(op)
    if not int4_weights(op):
        return
    for name in INT4_DERIVED:
        tid = op.op.named_tensors.get(name)
        if tid is not None and op.model.tensors[tid].kind is AirTensorKind.CONSTANT:
            op.model.tensors[tid].dtype = AirTensorType.INT4


def unpack_int4_reads(op: Any) -> None:
    """After Resolve, for every built-in operator: each int4 constant the code reads gets an int8
    scratch buffer to unpack into once per run, unless the operator's kernel reads it packed.
    So an operator that knows nothing of int4 (a DEQUANTIZE of int4 weights) still reads int8
    values, never packed bytes."""
    names = [n for n in op.op.named_tensors if str(n).endswith(UNPACK_SUFFIX)]
    if getattr(op, "int4_per_use_kernel", False):  # drop an earlier resolution's buffers
        for name in names:
            op.model.tensors.pop(op.op.named_tensors.pop(name), None)
        return
    for tensor in int4_tensors(op):
        op.add_scratch(_unpack_name(op, tensor), tensor.size, alignment=16)


def _unpack_name(op: Any, tensor: AirTensor) -> str:
    """``<local name>_unpacked`` for an operator-local constant, ``input<i>_unpacked`` for an input."""
    for name, tid in op.op.named_tensors.items():
        if tid == tensor.id and not str(name).endswith(UNPACK_SUFFIX):
            return str(name) + UNPACK_SUFFIX
    position = op.op.input_ids.index(tensor.id) if tensor.id in op.op.input_ids else 0
    return f"input{position}{UNPACK_SUFFIX}"


def unpacked_copy(op: Any, tensor: AirTensor) -> AirTensor | None:
    """The int8 scratch buffer the int4 ``tensor`` is unpacked into, or None (read packed)."""
    tid = op.op.named_tensors.get(_unpack_name(op, tensor))
    return None if tid is None else op.model.tensors[tid]


def unpack_calls(op: Any, raw_ptr: Any) -> list[tuple[str, str, int]]:
    """(packed source, int8 destination, count) per int4 constant unpacked before the kernel
    runs; ``raw_ptr(tensor, ctype, const)`` is the pointer expression without redirection."""
    calls = []
    for tensor in int4_tensors(op):
        copy = unpacked_copy(op, tensor)
        if copy is not None:
            calls.append((raw_ptr(tensor, "uint8_t", True), raw_ptr(copy, "int8_t", False), tensor.size))
    return calls


CHANNEL_WORD_BIAS_BITS = 24
"""Bits of a channel word's bias (hk_int4.h): the low byte holds the shift."""


def channel_words(bias: np.ndarray | None, shifts: np.ndarray) -> np.ndarray | None:
    """Goal size's per-channel parameters of the per-use convolutions (``hk_int4.h``), one int32
    per output channel in place of an int32 bias and an int32 shift: ``bias * 256 + (shift &
    255)``. None when a bias needs more than 24 bits (the layer then unpacks once, with the
    int8 kernel's arrays). The int4 models' biases are small: their filter scales are about
    sixteen times the int8 twins', so the same float bias is about sixteen times smaller."""
    shifts = np.asarray(shifts, np.int64).reshape(-1)
    values = np.zeros(shifts.size, np.int64) if bias is None else np.asarray(bias, np.int64).reshape(-1)
    limit = 1 << (CHANNEL_WORD_BIAS_BITS - 1)
    if values.size != shifts.size or np.any(values < -limit) or np.any(values >= limit):
        return None
    if np.any(shifts < -31) or np.any(shifts > 31):
        return None
    return (values * 256 + (shifts & 0xFF)).astype(np.int32)


def channel_words_fit(bias: AirTensor | None, channels: int) -> bool:
    """Whether :func:`channel_words` can carry ``bias`` (constant, or absent)."""
    if bias is None:
        return True
    if not bias.is_constant or bias.data is None:
        return False
    return channel_words(bias.data, np.zeros(channels, np.int32)) is not None
