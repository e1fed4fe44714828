"""ctypes mirrors of the hk_onnx_requant.h and hk_onnx_qlinear.h parameter structs and one call per
kernel family, shared by the host property tests and the cross test's case builder."""

from __future__ import annotations

import ctypes

import numpy as np

from ops_builtin.support.cbuild import build_kernels

I32 = ctypes.c_int32
MAX_DIMS = 5


class ConvParams(ctypes.Structure):
    _fields_ = [
        (name, I32)
        for name in (
            "batches input_height input_width input_channels output_height output_width "
            "output_channels filter_height filter_width stride_height stride_width dilation_height "
            "dilation_width pad_top pad_left depth_multiplier input_offset output_offset act_min "
            "act_max"
        ).split()
    ] + [("multiplier", ctypes.c_void_p), ("bias", ctypes.c_void_p)]


class MatmulParams(ctypes.Structure):
    _fields_ = [
        (name, I32)
        for name in (
            "batches rows cols depth a_batch_stride a_row_stride a_depth_stride b_batch_stride "
            "b_depth_stride b_col_stride a_offset b_offset output_offset act_min act_max per_channel"
        ).split()
    ] + [("multiplier", ctypes.c_void_p), ("bias", ctypes.c_void_p)]


class BinaryParams(ctypes.Structure):
    _fields_ = [
        ("dims", I32),
        ("shape", I32 * MAX_DIMS),
        ("a_strides", I32 * MAX_DIMS),
        ("b_strides", I32 * MAX_DIMS),
        ("a_zero_point", I32),
        ("b_zero_point", I32),
        ("output_zero_point", I32),
        ("a_scale", ctypes.c_float),
        ("b_scale", ctypes.c_float),
        ("output_scale", ctypes.c_float),
        ("act_min", I32),
        ("act_max", I32),
    ]


class PoolParams(ctypes.Structure):
    _fields_ = [
        (name, I32)
        for name in (
            "batches input_height input_width channels output_height output_width filter_height "
            "filter_width stride_height stride_width pad_top pad_left input_zero_point "
            "output_zero_point"
        ).split()
    ] + [
        ("input_scale", ctypes.c_float),
        ("output_scale", ctypes.c_float),
        ("act_min", I32),
        ("act_max", I32),
    ]


class MeanParams(ctypes.Structure):
    _fields_ = [(n, I32) for n in ("outer", "reduce", "inner", "input_zero_point", "output_zero_point")] + [
        ("input_scale", ctypes.c_float),
        ("output_scale", ctypes.c_float),
    ]


def ptr(array: np.ndarray | None) -> ctypes.c_void_p | None:
    return None if array is None else ctypes.c_void_p(array.ctypes.data)


def call(function: str, params: ctypes.Structure, *arrays: np.ndarray) -> None:
    """Run ``hk_<function>`` from the host build of the family; a nonzero status fails."""
    fn = getattr(build_kernels("onnx_requant"), f"hk_{function}")
    assert fn(ctypes.byref(params), *[ptr(a) for a in arrays]) == 0


class QuantizeParams(ctypes.Structure):
    _fields_ = [
        ("size", I32),
        ("input_scale", ctypes.c_float),
        ("input_zero_point", I32),
        ("output_scale", ctypes.c_float),
        ("output_zero_point", I32),
    ]


class SoftmaxParams(ctypes.Structure):
    _fields_ = [
        ("outer_size", I32),
        ("depth", I32),
        ("output_multiplier", ctypes.c_float),
        ("output_zero_point", I32),
        ("table", ctypes.c_void_p),
    ]


class BatchNormParams(ctypes.Structure):
    _fields_ = [
        ("outer", I32),
        ("channels", I32),
        ("inner", I32),
        ("input_scale", ctypes.c_float),
        ("input_zero_point", I32),
        ("output_scale", ctypes.c_float),
        ("output_zero_point", I32),
        ("vector", I32),
    ]


class BatchNormAffineParams(ctypes.Structure):
    _fields_ = [(n, I32) for n in ("outer", "channels", "inner", "shift")]


def call_qlinear(function: str, params: ctypes.Structure, *arrays) -> None:
    """Run ``hk_<function>`` of the onnx_qlinear family's host build; a nonzero status fails."""
    fn = getattr(build_kernels("onnx_qlinear"), f"hk_{function}")
    assert fn(ctypes.byref(params), *[ptr(a) for a in arrays]) == 0


class ResizeParams(ctypes.Structure):
    _fields_ = [
        (name, I32) for name in "batches input_height input_width output_height output_width channels".split()
    ] + [
        ("input_scale", ctypes.c_float),
        ("input_zero_point", I32),
        ("output_scale", ctypes.c_float),
        ("output_zero_point", I32),
        ("index", ctypes.c_void_p),
        ("distance", ctypes.c_void_p),
    ]


def call_resize(function: str, params: ctypes.Structure, *arrays) -> None:
    """Run ``hk_<function>`` of the onnx_resize family's host build; a nonzero status fails."""
    fn = getattr(build_kernels("onnx_resize"), f"hk_{function}")
    assert fn(ctypes.byref(params), *[ptr(a) for a in arrays]) == 0


def call_table_s8(table: np.ndarray, x: np.ndarray, out: np.ndarray) -> None:
    """``hk_table_s8`` (the lookup ONNX_LOGISTIC and ONNX_LEAKY_RELU run) on the host."""
    fn = build_kernels("table").hk_table_s8
    assert fn(ptr(table), ptr(x), ptr(out), ctypes.c_size_t(x.size)) == 0
