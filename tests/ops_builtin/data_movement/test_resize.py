"""Property tests of hk_resize against numpy models of LiteRT's reference resize kernels.

Nearest neighbour and float bilinear are modelled in float32 with the reference's operation
order (numpy never fuses multiply-adds), so even the float outputs must match bit for bit. The
integer bilinear model is ResizeBilinearInteger: 10-bit source coordinates, 20-bit weighted sums
and round-half-away-from-zero division.
"""

from __future__ import annotations

import ctypes

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from ops_builtin.support.cbuild import build_kernels

STATUS_OK = 0
STATUS_BAD_PARAM = 5
F32 = np.float32


class ResizeParams(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_int32)
        for name in (
            "batches",
            "input_height",
            "input_width",
            "depth",
            "output_height",
            "output_width",
            "elem_size",
        )
    ] + [("align_corners", ctypes.c_bool), ("half_pixel_centers", ctypes.c_bool)]


def _fn(name):
    fn = getattr(build_kernels("resize"), name)
    fn.argtypes = [ctypes.POINTER(ResizeParams), ctypes.c_void_p, ctypes.c_void_p]
    return fn


def _float_scale(in_size: int, out_size: int, align_corners: bool) -> np.float32:
    if align_corners and out_size > 1:
        return F32(in_size - 1) / F32(out_size - 1)
    return F32(in_size) / F32(out_size)


def _nearest_sources(in_size, out_size, align_corners, half_pixel):
    """reference_ops::GetNearestNeighbor for every output coordinate."""
    scale = _float_scale(in_size, out_size, align_corners)
    offset = F32(0.5) if half_pixel else F32(0.0)
    scaled = (np.arange(out_size).astype(F32) + offset) * scale
    if align_corners:  # std::round: half away from zero (exact in float64)
        index = np.trunc(scaled.astype(np.float64) + np.copysign(0.5, scaled))
    else:
        index = np.floor(scaled)
    index = np.minimum(index.astype(np.int64), in_size - 1)
    return np.maximum(index, 0) if half_pixel else index


def _bilinear_float(x, out_h, out_w, align_corners, half_pixel):
    def axis(in_size, out_size):
        scale = _float_scale(in_size, out_size, align_corners)
        v = np.arange(out_size).astype(F32)
        scaled = (v + F32(0.5)) * scale - F32(0.5) if half_pixel else v * scale
        lo = np.maximum(np.floor(scaled).astype(np.int64), 0)
        hi = np.minimum(np.ceil(scaled).astype(np.int64), in_size - 1)
        d = scaled - lo.astype(F32)
        return lo, hi, d, F32(1) - d

    y0, y1, dy, wy = axis(x.shape[1], out_h)
    x0, x1, dx, wx = axis(x.shape[2], out_w)
    dy, wy = dy[None, :, None, None], wy[None, :, None, None]
    dx, wx = dx[None, None, :, None], wx[None, None, :, None]
    v00, v10 = x[:, y0][:, :, x0], x[:, y1][:, :, x0]
    v01, v11 = x[:, y0][:, :, x1], x[:, y1][:, :, x1]
    return v00 * wy * wx + v10 * dy * wx + v01 * wy * dx + v11 * dy * dx


def _cdiv(a, b):
    """C integer division (truncates toward zero) for b > 0."""
    return np.sign(a) * (np.abs(a) // b)


def _bilinear_integer(x, out_h, out_w, align_corners, half_pixel):
    def axis(in_size, out_size):
        if align_corners and out_size > 1:
            scale = (1024 * (in_size - 1) + (out_size - 1) // 2) // (out_size - 1)
        else:
            scale = (1024 * in_size + out_size // 2) // out_size
        v = np.arange(out_size, dtype=np.int64)
        scaled = v * scale + scale // 2 - 512 if half_pixel else v * scale
        lo = np.maximum(_cdiv(scaled, 1024), 0)
        hi = np.minimum(_cdiv(scaled + 1023, 1024), in_size - 1)
        return lo, hi, scaled - 1024 * lo

    y0, y1, fy = axis(x.shape[1], out_h)
    x0, x1, fx = axis(x.shape[2], out_w)
    fy, fx = fy[None, :, None, None], fx[None, None, :, None]
    xi = x.astype(np.int64)
    total = (
        xi[:, y0][:, :, x0] * (1024 - fy) * (1024 - fx)
        + xi[:, y1][:, :, x0] * fy * (1024 - fx)
        + xi[:, y0][:, :, x1] * (1024 - fy) * fx
        + xi[:, y1][:, :, x1] * fy * fx
    )
    rounded = np.where(total > 0, total + (1 << 19), total - (1 << 19))
    return _cdiv(rounded, 1 << 20).astype(x.dtype)


@st.composite
def _geometry(draw, allow_both=True):
    align = draw(st.booleans())
    half = draw(st.booleans()) if allow_both or not align else False
    return (
        draw(st.integers(0, 2)),
        draw(st.integers(1, 7)),
        draw(st.integers(1, 7)),
        draw(st.integers(1, 3)),
        draw(st.integers(1, 15)),
        draw(st.integers(1, 15)),
        align,
        half,
        draw(st.integers(0, 2**32 - 1)),
    )


def _params(geometry, elem_size):
    b, ih, iw, c, oh, ow, align, half, _ = geometry
    return ResizeParams(b, ih, iw, c, oh, ow, elem_size, align, half)


@given(geometry=_geometry(), elem_size=st.sampled_from([1, 2, 4, 3]))
def test_resize_nearest_matches_reference(geometry, elem_size):
    b, ih, iw, c, oh, ow, align, half, seed = geometry
    x = np.random.default_rng(seed).integers(0, 256, size=(b, ih, iw, c, elem_size), dtype=np.uint8)
    rows = _nearest_sources(ih, oh, align, half)
    cols = _nearest_sources(iw, ow, align, half)
    expected = x[:, rows][:, :, cols]
    out = np.zeros(expected.shape, dtype=expected.dtype)
    params = _params(geometry, elem_size)
    assert _fn("hk_resize_nearest")(ctypes.byref(params), x.ctypes.data, out.ctypes.data) == STATUS_OK
    np.testing.assert_array_equal(out, expected)


@given(geometry=_geometry(allow_both=False))
def test_resize_bilinear_float_matches_reference_bitwise(geometry):
    b, ih, iw, c, oh, ow, align, half, seed = geometry
    x = np.random.default_rng(seed).uniform(-4, 4, size=(b, ih, iw, c)).astype(F32)
    expected = _bilinear_float(x, oh, ow, align, half)
    out = np.zeros((b, oh, ow, c), dtype=F32)
    params = _params(geometry, 4)
    assert _fn("hk_resize_bilinear_f32")(ctypes.byref(params), x.ctypes.data, out.ctypes.data) == STATUS_OK
    np.testing.assert_array_equal(out.view(np.uint32), expected.view(np.uint32))


@given(geometry=_geometry(allow_both=False), dtype=st.sampled_from([np.int8, np.int16]))
def test_resize_bilinear_integer_matches_reference(geometry, dtype):
    b, ih, iw, c, oh, ow, align, half, seed = geometry
    info = np.iinfo(dtype)
    x = np.random.default_rng(seed).integers(info.min, info.max + 1, size=(b, ih, iw, c), dtype=dtype)
    expected = _bilinear_integer(x, oh, ow, align, half)
    out = np.zeros((b, oh, ow, c), dtype=dtype)
    name = "hk_resize_bilinear_s8" if dtype == np.int8 else "hk_resize_bilinear_s16"
    params = _params(geometry, np.dtype(dtype).itemsize)
    assert _fn(name)(ctypes.byref(params), x.ctypes.data, out.ctypes.data) == STATUS_OK
    np.testing.assert_array_equal(out, expected)


def test_resize_extreme_upscale_stays_inside_input():
    """in 2 -> out 3000 makes LiteRT's 10-bit coordinates overshoot the last row; the kernel
    clamps, so every output is still an input value (the rows are constant)."""
    x = np.array([[[[-100]], [[90]]]], dtype=np.int8).transpose(0, 1, 3, 2)  # [1, 2, 1, 1]
    out = np.zeros((1, 3000, 1, 1), dtype=np.int8)
    params = ResizeParams(1, 2, 1, 1, 3000, 1, 1, False, False)
    assert _fn("hk_resize_bilinear_s8")(ctypes.byref(params), x.ctypes.data, out.ctypes.data) == STATUS_OK
    assert out.min() >= -100 and out.max() <= 90


def test_resize_rejects_empty_sizes():
    x = np.zeros(4, dtype=np.int8)
    for bad in [dict(input_height=0), dict(output_width=0), dict(depth=-1)]:
        params = ResizeParams(1, 1, 1, 1, 1, 1, 1, False, False)
        for key, value in bad.items():
            setattr(params, key, value)
        for name in ("hk_resize_nearest", "hk_resize_bilinear_s8"):
            assert _fn(name)(ctypes.byref(params), x.ctypes.data, x.ctypes.data) == STATUS_BAD_PARAM
