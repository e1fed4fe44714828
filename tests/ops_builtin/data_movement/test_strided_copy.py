"""Property tests of hk_copy: the N-d strided copy, the pattern fill and the byte copy.

The reference is numpy itself: any basic-indexed, transposed view of an array has exactly the
byte offset and strides the kernel takes, so copying a random view must reproduce
``np.ascontiguousarray(view)`` (or an assignment into a strided destination view) byte for byte.
Elements are modelled as a trailing axis of ``elem_size`` bytes, which covers every dtype.
"""

from __future__ import annotations

import ctypes

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from ops_builtin.support.cbuild import build_kernels

MAX_RANK = 6
STATUS_OK = 0
STATUS_BAD_PARAM = 5


class StridedCopyParams(ctypes.Structure):
    _fields_ = [
        ("rank", ctypes.c_int32),
        ("elem_size", ctypes.c_int32),
        ("src_offset", ctypes.c_int32),
        ("dst_offset", ctypes.c_int32),
        ("counts", ctypes.c_int32 * MAX_RANK),
        ("src_strides", ctypes.c_int32 * MAX_RANK),
        ("dst_strides", ctypes.c_int32 * MAX_RANK),
    ]


def _lib() -> ctypes.CDLL:
    lib = build_kernels("copy")
    lib.hk_strided_copy.argtypes = [ctypes.POINTER(StridedCopyParams), ctypes.c_void_p, ctypes.c_void_p]
    lib.hk_fill_pattern.argtypes = [ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32]
    lib.hk_copy_bytes.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32]
    return lib


def _view_geometry(base: np.ndarray, view: np.ndarray) -> tuple[int, list[int], list[int]]:
    """Byte offset of the view's first element in base, its element counts and byte strides
    (the trailing element-bytes axis excluded)."""
    offset = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    return offset, list(view.shape[:-1]), list(view.strides[:-1])


def _params(elem_size: int, counts, src_off, src_strides, dst_off, dst_strides):
    p = StridedCopyParams()
    p.rank, p.elem_size = len(counts), elem_size
    p.src_offset, p.dst_offset = src_off, dst_off
    for k, (n, s, d) in enumerate(zip(counts, src_strides, dst_strides)):
        p.counts[k], p.src_strides[k], p.dst_strides[k] = n, s, d
    return p


@st.composite
def _slices(draw, shape):
    """A basic-indexing slice per dimension, including empty and reversed ones."""
    out = []
    for n in shape:
        step = draw(st.sampled_from([1, 1, 2, 3, -1, -2]))
        start = draw(st.integers(0, n))
        stop = draw(st.integers(-1, n))
        if step < 0:
            start, stop = (n - 1 - start), (None if stop < 0 else n - 1 - stop)
        out.append(slice(start, stop, step))
    return tuple(out)


@given(data=st.data(), rank=st.integers(1, MAX_RANK), elem_size=st.sampled_from([1, 2, 3, 4, 8]))
def test_strided_copy_matches_numpy_view(data, rank, elem_size):
    lib = _lib()
    shape = data.draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    base = rng.integers(0, 256, size=(*shape, elem_size), dtype=np.uint8)
    perm = data.draw(st.permutations(range(rank)))
    view = base[data.draw(_slices(shape)) + (slice(None),)].transpose(*perm, rank)
    src_off, counts, src_strides = _view_geometry(base, view)

    # The destination is a strided window of a larger sentinel-filled buffer, so the test also
    # proves that nothing outside the window is written.
    pad = [data.draw(st.integers(0, 2)) for _ in range(rank)]
    step = [data.draw(st.sampled_from([1, 2])) for _ in range(rank)]
    big_shape = [c * s + p for c, s, p in zip(counts, step, pad)]
    dst_base = np.full((*big_shape, elem_size), 0xA5, dtype=np.uint8)
    window = tuple(slice(p, p + c * s, s) for c, s, p in zip(counts, step, pad))
    dst_view = dst_base[window + (slice(None),)]
    dst_off, _, dst_strides = _view_geometry(dst_base, dst_view)
    expected = dst_base.copy()
    expected[window + (slice(None),)] = view

    params = _params(elem_size, counts, src_off, src_strides, dst_off, dst_strides)
    status = lib.hk_strided_copy(ctypes.byref(params), base.ctypes.data, dst_base.ctypes.data)
    assert status == STATUS_OK
    np.testing.assert_array_equal(dst_base, expected)


@given(data=st.data(), elem_size=st.sampled_from([1, 2, 4]))
def test_concatenation_geometry_fills_output(data, elem_size):
    """CONCATENATION as one 2-d copy per input into a column band of the output."""
    lib = _lib()
    outer = data.draw(st.integers(1, 4))
    inner = data.draw(st.integers(1, 4))
    widths = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=4))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    parts = [rng.integers(0, 256, size=(outer, w, inner, elem_size), dtype=np.uint8) for w in widths]
    out = np.zeros((outer, sum(widths), inner, elem_size), dtype=np.uint8)
    row = sum(widths) * inner * elem_size
    start = 0
    for part, w in zip(parts, widths):
        params = _params(
            elem_size,
            [outer, w * inner],
            0,
            [w * inner * elem_size, elem_size],
            start * inner * elem_size,
            [row, elem_size],
        )
        assert lib.hk_strided_copy(ctypes.byref(params), part.ctypes.data, out.ctypes.data) == STATUS_OK
        start += w
    np.testing.assert_array_equal(out, np.concatenate(parts, axis=1))


def test_strided_copy_rejects_bad_geometry():
    lib = _lib()
    buf = np.zeros(16, dtype=np.uint8)
    for rank, elem_size, count in [(0, 1, 1), (MAX_RANK + 1, 1, 1), (1, 0, 1), (1, 1, -1)]:
        params = _params(elem_size, [count], 0, [1], 0, [1])
        params.rank = rank
        assert lib.hk_strided_copy(ctypes.byref(params), buf.ctypes.data, buf.ctypes.data) == STATUS_BAD_PARAM
    assert lib.hk_strided_copy(None, buf.ctypes.data, buf.ctypes.data) == STATUS_BAD_PARAM


@given(count=st.integers(0, 300), pattern=st.binary(min_size=1, max_size=9))
def test_fill_pattern_repeats_pattern(count, pattern):
    lib = _lib()
    elem = np.frombuffer(pattern, dtype=np.uint8)
    out = np.full(count * len(pattern) + 7, 0x5A, dtype=np.uint8)
    expected = out.copy()
    expected[: count * len(pattern)] = np.tile(elem, count)
    status = lib.hk_fill_pattern(out.ctypes.data, count, elem.ctypes.data, len(pattern))
    assert status == STATUS_OK
    np.testing.assert_array_equal(out, expected)


def test_fill_pattern_rejects_bad_arguments():
    lib = _lib()
    out = np.zeros(4, dtype=np.uint8)
    assert lib.hk_fill_pattern(out.ctypes.data, -1, out.ctypes.data, 1) == STATUS_BAD_PARAM
    assert lib.hk_fill_pattern(out.ctypes.data, 1, out.ctypes.data, 0) == STATUS_BAD_PARAM
    assert lib.hk_fill_pattern(out.ctypes.data, 1, None, 1) == STATUS_BAD_PARAM


@given(n=st.integers(0, 64), shift=st.integers(-8, 8), seed=st.integers(0, 2**32 - 1))
def test_copy_bytes_is_an_overlap_safe_move(n, shift, seed):
    lib = _lib()
    buf = np.random.default_rng(seed).integers(0, 256, size=n + 16, dtype=np.uint8)
    src, dst = 8, 8 + shift
    expected = buf.copy()
    expected[dst : dst + n] = buf[src : src + n].copy()
    status = lib.hk_copy_bytes(buf.ctypes.data + dst, buf.ctypes.data + src, n)
    assert status == STATUS_OK
    np.testing.assert_array_equal(buf, expected)


def test_copy_bytes_rejects_negative_length():
    lib = _lib()
    buf = np.zeros(4, dtype=np.uint8)
    assert lib.hk_copy_bytes(buf.ctypes.data, buf.ctypes.data, -1) == STATUS_BAD_PARAM
