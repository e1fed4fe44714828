"""Property tests of the layout geometry (helia_aot_ops_builtin.data_movement.layout) against numpy.

A copy plan is executed here by a numpy model of ``hk_strided_copy`` (index arithmetic over flat
arrays), so each builder can be compared with the numpy operation it stands for, and
``simplified`` (dimension dropping and merging) with the plan it simplifies.
"""

from __future__ import annotations

import numpy as np
import pytest
from helia_aot_ops_builtin.data_movement.layout import (
    MAX_RANK,
    StridedCopy,
    band_copies,
    contiguous_strides,
    embed_copy,
    normalize_axis,
    transpose_copy,
    window_copy,
)
from hypothesis import given
from hypothesis import strategies as st

from ops_builtin.support.strided_copy_model import run_copy

shapes = st.lists(st.integers(1, 4), min_size=1, max_size=MAX_RANK)


@given(shape=shapes, data=st.data())
def test_transpose_copy_matches_numpy(shape, data):
    perm = data.draw(st.permutations(range(len(shape))))
    x = np.arange(np.prod(shape)).reshape(shape)
    out = np.full(x.size, -1)
    run_copy(transpose_copy(shape, perm), x, out)
    np.testing.assert_array_equal(out.reshape(x.transpose(perm).shape), x.transpose(perm))


@given(shape=shapes, data=st.data())
def test_window_copy_matches_numpy_slicing(shape, data):
    x = np.arange(np.prod(shape)).reshape(shape)
    starts, counts, steps, index = [], [], [], []
    for n in shape:
        step = data.draw(st.sampled_from([1, 2, -1, -3]))
        start = data.draw(st.integers(0, n - 1))
        limit = (n - start + step - 1) // step if step > 0 else (start + 1 - step - 1) // -step
        count = data.draw(st.integers(0, limit))
        starts.append(start)
        counts.append(count)
        steps.append(step)
        stop = start + count * step
        index.append(slice(start, stop if stop >= 0 else None, step))
    expected = x[tuple(index)]
    out = np.full(max(expected.size, 1), -1)
    run_copy(window_copy(shape, starts, counts, steps), x, out)
    np.testing.assert_array_equal(out[: expected.size].reshape(expected.shape), expected)


@given(shape=shapes, data=st.data())
def test_embed_copy_matches_numpy_pad(shape, data):
    before = [data.draw(st.integers(0, 2)) for _ in shape]
    after = [data.draw(st.integers(0, 2)) for _ in shape]
    x = np.arange(1, np.prod(shape) + 1).reshape(shape)
    expected = np.pad(x, list(zip(before, after)))
    out = np.zeros(expected.size, dtype=x.dtype)
    run_copy(embed_copy(shape, expected.shape, before), x, out)
    np.testing.assert_array_equal(out.reshape(expected.shape), expected)


@given(
    outer=st.integers(1, 3),
    inner=st.integers(1, 3),
    widths=st.lists(st.integers(0, 3), min_size=1, max_size=4),
)
def test_band_copies_concatenate_and_split(outer, inner, widths):
    parts = [np.arange(outer * w * inner).reshape(outer, w, inner) + 100 * i for i, w in enumerate(widths)]
    whole = np.concatenate(parts, axis=1)
    joined = np.full(whole.size, -1)
    for part, walk in zip(parts, band_copies(outer, inner, widths, into_whole=True)):
        run_copy(walk, part, joined)
    np.testing.assert_array_equal(joined.reshape(whole.shape), whole)
    for part, walk in zip(parts, band_copies(outer, inner, widths, into_whole=False)):
        cut = np.full(max(part.size, 1), -1)
        run_copy(walk, whole, cut)
        np.testing.assert_array_equal(cut[: part.size].reshape(part.shape), part)


@given(shape=shapes, data=st.data())
def test_simplified_walk_copies_the_same_elements(shape, data):
    perm = data.draw(st.permutations(range(len(shape))))
    steps = [data.draw(st.sampled_from([1, 1, 2, -1])) for _ in shape]
    starts = [0 if s > 0 else n - 1 for n, s in zip(shape, steps)]
    counts = [(n + abs(s) - 1) // abs(s) for n, s in zip(shape, steps)]
    walk = window_copy(shape, starts, counts, steps)
    # Permute the walk's dimensions too, so merging meets every stride pattern.
    walk = StridedCopy(
        tuple(walk.counts[p] for p in perm),
        tuple(walk.src_strides[p] for p in perm),
        tuple(contiguous_strides([walk.counts[p] for p in perm])),
        walk.src_offset,
    )
    x = np.arange(np.prod(shape)).reshape(shape)
    plain = np.full(walk.elements, -1)
    merged = np.full(walk.elements, -1)
    run_copy(walk, x, plain)
    simple = walk.simplified()
    run_copy(simple, x, merged)
    np.testing.assert_array_equal(plain, merged)
    assert len(simple.counts) <= len(walk.counts)


def test_simplified_merges_a_contiguous_block_into_one_run():
    walk = StridedCopy((2, 3, 4), (12, 4, 1), (12, 4, 1)).simplified()
    assert walk.counts == (24,) and walk.src_strides == (1,) and walk.dst_strides == (1,)


def test_c_initializer_is_in_bytes_and_padded():
    text = window_copy((4, 6), (1, 2), (2, 3), (1, 1)).c_initializer(2)
    assert text == "{2, 2, 16, 0, {2, 3, 0, 0, 0, 0}, {12, 2, 0, 0, 0, 0}, {6, 2, 0, 0, 0, 0}}"


def test_byte_fields_reject_too_many_dimensions_and_huge_offsets():
    shape = (2,) * 7
    with pytest.raises(ValueError, match="dimensions"):
        transpose_copy(shape, [6, 5, 4, 3, 2, 1, 0]).byte_fields(1)
    with pytest.raises(ValueError, match="2 GiB"):
        StridedCopy((2,), (2**30,), (1,)).byte_fields(4)


def test_normalize_axis():
    assert normalize_axis(-1, 3) == 2
    with pytest.raises(ValueError, match="out of range"):
        normalize_axis(3, 3)
