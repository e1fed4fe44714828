"""ctypes mirrors of the hk_binary, hk_quantize and hk_reduce parameter structs, and callers.

The callers fill the structs from the same helpers the operators use (``broadcast_geometry``,
``reduce_geometry``), so a test exercises the converter's geometry together with the kernel.
"""

from __future__ import annotations

import ctypes

import numpy as np
from helia_aot_ops_builtin.elementwise.broadcast_geometry import (
    broadcast_geometry,
    broadcast_shape,
    reduce_geometry,
)

from ops_builtin.support.cbuild import build_kernels

FLT_MAX = float(np.finfo(np.float32).max)
I32 = ctypes.c_int32
SUFFIX = {np.dtype(np.int8): "s8", np.dtype(np.int16): "s16", np.dtype(np.float32): "f32"}


class Broadcast(ctypes.Structure):
    _fields_ = [
        ("size", I32),
        ("broadcast", ctypes.c_bool),
        ("shape", I32 * 5),
        ("strides1", I32 * 5),
        ("strides2", I32 * 5),
    ]


class BinaryQuant(ctypes.Structure):
    _fields_ = [
        (n, I32)
        for n in (
            "input1_offset",
            "input2_offset",
            "output_offset",
            "left_shift",
            "input1_multiplier",
            "input1_shift",
            "input2_multiplier",
            "input2_shift",
            "output_multiplier",
            "output_shift",
            "activation_min",
            "activation_max",
        )
    ] + [("pot_scale", ctypes.c_bool)]


class BinaryParams(ctypes.Structure):
    _fields_ = [
        ("geometry", Broadcast),
        ("quant", BinaryQuant),
        ("float_min", ctypes.c_float),
        ("float_max", ctypes.c_float),
    ]


class QuantizeParams(ctypes.Structure):
    """hk_quantize_params_t and hk_dequantize_params_t (same layout)."""

    _fields_ = [("size", I32), ("scale", ctypes.c_float), ("zero_point", I32)]


class RequantizeParams(ctypes.Structure):
    _fields_ = [(n, I32) for n in ("size", "input_zero_point", "output_zero_point", "multiplier", "shift")]


class ReduceParams(ctypes.Structure):
    _fields_ = [
        ("kept_extents", I32 * 4),
        ("kept_strides", I32 * 4),
        ("reduced_extents", I32 * 4),
        ("reduced_strides", I32 * 4),
    ] + [(n, I32) for n in ("count", "input_zero_point", "output_zero_point", "multiplier", "shift")]


def binary_params(
    shape1, shape2, quant: dict | None = None, lo: float = -FLT_MAX, hi: float = FLT_MAX
) -> BinaryParams:
    g = broadcast_geometry(shape1, shape2)
    p = BinaryParams()
    p.geometry.size, p.geometry.broadcast = g.size, g.broadcast
    p.geometry.shape[:], p.geometry.strides1[:], p.geometry.strides2[:] = g.shape, g.strides1, g.strides2
    for name, value in (quant or {}).items():
        setattr(p.quant, name, value)
    p.float_min, p.float_max = lo, hi
    return p


def run_binary(
    op: str, a: np.ndarray, b: np.ndarray, params: BinaryParams, out: np.ndarray | None = None
) -> np.ndarray:
    """Call hk_<op>_<dtype>; ``out`` may be ``a`` or ``b`` to run in place."""
    fn = getattr(build_kernels("binary"), f"hk_{op.lower()}_{SUFFIX[a.dtype]}")
    fn.argtypes = [ctypes.POINTER(BinaryParams)] + [ctypes.c_void_p] * 3
    if out is None:
        out = np.zeros(broadcast_shape(a.shape, b.shape), a.dtype)
    assert fn(ctypes.byref(params), a.ctypes.data, b.ctypes.data, out.ctypes.data) == 0
    return out


def run_unary(family: str, name: str, params, x: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Call ``name(&params, x, out)`` from ``family`` and return ``out``."""
    fn = getattr(build_kernels(family), name)
    fn.argtypes = [ctypes.POINTER(type(params)), ctypes.c_void_p, ctypes.c_void_p]
    assert fn(ctypes.byref(params), x.ctypes.data, out.ctypes.data) == 0
    return out


def reduce_params(shape, axes, **quant) -> ReduceParams:
    g = reduce_geometry(shape, axes)
    p = ReduceParams()
    p.kept_extents[:], p.kept_strides[:] = g.kept_extents, g.kept_strides
    p.reduced_extents[:], p.reduced_strides[:] = g.reduced_extents, g.reduced_strides
    p.count = g.count
    for name, value in quant.items():
        setattr(p, name, value)
    return p


def run_reduce(name: str, params: ReduceParams, x: np.ndarray, outputs: int, dtype) -> np.ndarray:
    return run_unary("reduce", name, params, x, np.zeros(outputs, dtype))
