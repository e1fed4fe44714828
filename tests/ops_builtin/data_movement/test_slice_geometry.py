"""STRIDED_SLICE and GATHER geometry against the LiteRT reference interpreter.

Each example builds a one-operator model, runs it with LiteRT's reference kernels, and compares
the output (shape and values) with the converter's resolved geometry executed by the numpy model
of ``hk_strided_copy`` (or the numpy model of ``hk_gather``). Masks, negative indices and strides,
ellipsis, new axes, shrunk axes and ``offset`` are drawn at random.
"""

from __future__ import annotations

import numpy as np
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot_ops_builtin.data_movement.slice import AirStridedSliceOptions, resolve_strided_slice
from helia_aot_ops_builtin.index.gather import AirGatherOptions, gather_geometry
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ops_builtin.support.strided_copy_model import run_copy, run_litert


def _strided_slice_model(shape, begin, end, strides, o: AirStridedSliceOptions) -> bytes:
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", shape, "float32")
    consts = [
        b.add_tensor(n, (len(v),), "int32", data=np.asarray(v, np.int32))
        for n, v in (("begin", begin), ("end", end), ("strides", strides))
    ]
    y = b.add_tensor("y", (), "float32")
    options = litert.StridedSliceOptionsT()
    options.beginMask, options.endMask = o.begin_mask, o.end_mask
    options.ellipsisMask, options.newAxisMask = o.ellipsis_mask, o.new_axis_mask
    options.shrinkAxisMask, options.offset = o.shrink_axis_mask, o.offset
    b.add_operator("STRIDED_SLICE", [x, *consts], [y], options)
    b.set_inputs([x])
    b.set_outputs([y])
    return b.to_bytes()


def _offset_in_input(shape, begin, end, strides) -> bool:
    """True when an ``offset`` slice is one LiteRT's reference kernel defines: a positive stride
    and a window (begin .. begin + end) inside the input.

    With ``offset``, the reference walks from begin to begin + end without clamping either to the
    axis, so a window running past the input reads outside the input buffer: the reference returns
    garbage or kills the process with SIGSEGV. (Found by running the strategy's cases one per
    child process: every crash, 96 of 96, was an offset slice; 3000 slices without offset and
    1500 offset slices inside the input ran clean.) With a negative stride the reference sizes
    the output from begin + end but its walk writes fewer elements, leaving the rest unwritten,
    so there is no defined result to compare with either.
    """
    for size, b, e, s in zip(shape, begin, end, strides):
        start = b + size if b < 0 else b
        if s <= 0 or not 0 <= start < size or not start <= start + e <= size:
            return False
    return True


@st.composite
def _strided_slice_case(draw):
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=4)))
    # LiteRT sizes an offset slice's output from end[i] by effective axis, reading past the end
    # tensor when indices are fewer than axes; only full-rank, mask-free offsets inside the input
    # are defined (see _offset_in_input).
    if draw(st.integers(0, 5)) == 0:
        strides = [draw(st.sampled_from([1, 1, 2, 3])) for _ in shape]
        begin = [draw(st.integers(0, size - 1)) for size in shape]
        end = [draw(st.integers(0, size - b)) for size, b in zip(shape, begin)]
        begin = [b - size if draw(st.booleans()) else b for size, b in zip(shape, begin)]
        assert _offset_in_input(shape, begin, end, strides)
        return shape, begin, end, strides, AirStridedSliceOptions(offset=True)
    count = draw(st.integers(1, len(shape) + 1))
    begin = draw(st.lists(st.integers(-6, 6), min_size=count, max_size=count))
    end = draw(st.lists(st.integers(-6, 6), min_size=count, max_size=count))
    strides = draw(st.lists(st.sampled_from([1, 1, 2, 3, -1, -2]), min_size=count, max_size=count))
    bits = st.integers(0, 2**count - 1)
    ellipsis = draw(st.sampled_from([0] + [1 << i for i in range(count)]))
    new_axis = draw(bits) if draw(st.booleans()) else 0
    options = AirStridedSliceOptions(
        begin_mask=draw(bits),
        end_mask=draw(bits),
        ellipsis_mask=ellipsis,
        new_axis_mask=new_axis,
        shrink_axis_mask=draw(bits) if draw(st.booleans()) else 0,
    )
    return shape, begin, end, strides, options


@settings(max_examples=150)
@given(case=_strided_slice_case())
def test_strided_slice_geometry_matches_litert(case):
    shape, begin, end, strides, options = case
    x = np.arange(1, int(np.prod(shape)) + 1, dtype=np.float32).reshape(shape)
    try:
        (expected,) = run_litert(_strided_slice_model(shape, begin, end, strides, options), [x])
    except (RuntimeError, ValueError):
        assume(False)  # LiteRT refuses this slice; nothing to compare
    try:
        window = resolve_strided_slice(shape, begin, end, strides, options)
    except ValueError as exc:
        assert "selects no element" in str(exc)  # LiteRT leaves such an output unwritten
        return
    assert window.output_shape == expected.shape
    out = np.zeros(max(expected.size, 1), dtype=np.float32)
    run_copy(window.copy(), x, out)
    np.testing.assert_array_equal(out[: expected.size].reshape(expected.shape), expected)


def test_strided_slice_rejects_zero_stride():
    try:
        resolve_strided_slice((4,), [0], [4], [0], AirStridedSliceOptions())
    except ValueError as exc:
        assert "stride is 0" in str(exc)
    else:
        raise AssertionError("a zero stride was accepted")


@st.composite
def _gather_case(draw):
    rank = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
    axis = draw(st.integers(0, rank - 1))
    batch_dims = draw(st.integers(0, axis))
    index_shape = shape[:batch_dims] + tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    negative = draw(st.booleans())
    return shape, index_shape, axis - rank if negative else axis, batch_dims


@settings(max_examples=60)
@given(case=_gather_case(), seed=st.integers(0, 2**32 - 1), index_type=st.sampled_from([np.int32, np.int64]))
def test_gather_geometry_matches_litert(case, seed, index_type):
    shape, index_shape, axis, batch_dims = case
    g = gather_geometry(shape, index_shape, AirGatherOptions(axis=axis, batch_dims=batch_dims))
    rng = np.random.default_rng(seed)
    x = rng.integers(-100, 100, size=shape).astype(np.float32)
    indices = rng.integers(0, g.axis_size, size=index_shape).astype(index_type)

    b = LiteRTModelBuilder()
    tx = b.add_tensor("x", shape, "float32")
    ti = b.add_tensor("i", index_shape, index_type)
    ty = b.add_tensor("y", (), "float32")
    options = litert.GatherOptionsT()
    options.axis, options.batchDims = axis, batch_dims
    b.add_operator("GATHER", [tx, ti], [ty], options)
    b.set_inputs([tx, ti])
    b.set_outputs([ty])
    (expected,) = run_litert(b.to_bytes(), [x, indices])

    # Numpy model of hk_gather over the resolved [batch, outer, axis, inner] view.
    table = x.reshape(g.batch_size, g.outer_size, g.axis_size, g.inner_size)
    coords = indices.reshape(g.batch_size, g.coord_size)
    got = np.stack([table[b][:, coords[b]] for b in range(g.batch_size)])
    np.testing.assert_array_equal(got.reshape(-1), expected.reshape(-1))
    expected_shape = shape[: g.axis] + index_shape[g.batch_dims :] + shape[g.axis + 1 :]
    assert expected.shape == expected_shape
