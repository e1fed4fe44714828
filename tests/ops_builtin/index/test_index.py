"""Property tests of the hk_index and hk_cumsum kernels against numpy models of LiteRT's reference.

Each model states the reference behaviour: GATHER_ND picks slices (``params[tuple(vectors)]``),
SCATTER_ND adds updates into zeros in index order (``np.add.at``, integers wrapping),
DYNAMIC_UPDATE_SLICE clamps each start into [0, operand - update], REVERSE_SEQUENCE reverses the
first ``seq_lengths[b]`` entries, ONE_HOT compares the index's low 32 bits with each position,
CUMSUM is an in-order accumulation (``np.add.accumulate``, exclusive = shifted, reverse = flipped).
Out-of-range run-time indices must fail with HK_STATUS_INDEX_RANGE and leave the output as it was.
"""

from __future__ import annotations

import ctypes

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from ops_builtin.support.cbuild import build_kernels

OK, BAD_PARAM, INDEX_RANGE = 0, 5, 20
MAX_RANK = 6
INDEX_DTYPES = {2: np.int16, 4: np.int32, 8: np.int64}
SCATTER_KINDS = {np.float32: 0, np.int8: 1, np.uint8: 2, np.int32: 3, np.int64: 4}
CUMSUM_KINDS = {np.float32: 0, np.int32: 1, np.int64: 2}


def _ints(*names):
    return [(n, ctypes.c_int32) for n in names]


class NdParams(ctypes.Structure):
    _fields_ = [
        *_ints("count", "depth", "slice_size", "elem_size", "index_size", "kind"),
        ("dims", ctypes.c_int32 * MAX_RANK),
    ]


class UpdateSliceParams(ctypes.Structure):
    _fields_ = [
        *_ints("rank", "elem_size", "index_size"),
        ("operand_dims", ctypes.c_int32 * MAX_RANK),
        ("update_dims", ctypes.c_int32 * MAX_RANK),
    ]


class ReverseSequenceParams(ctypes.Structure):
    _fields_ = [
        *_ints("rank", "elem_size", "index_size", "seq_dim", "batch_dim"),
        ("dims", ctypes.c_int32 * MAX_RANK),
    ]


class OneHotParams(ctypes.Structure):
    _fields_ = _ints("prefix", "depth", "suffix", "elem_size", "index_size")


class CumsumParams(ctypes.Structure):
    _fields_ = [
        *_ints("outer", "axis_size", "inner", "kind"),
        ("exclusive", ctypes.c_bool),
        ("reverse", ctypes.c_bool),
    ]


def _lib():
    lib = build_kernels("index", "cumsum")
    arity = {
        "hk_gather_nd": 3,
        "hk_scatter_nd": 3,
        "hk_dynamic_update_slice": 4,
        "hk_reverse_sequence": 3,
        "hk_one_hot": 4,
        "hk_cumsum": 2,
    }
    for name, pointers in arity.items():
        getattr(lib, name).argtypes = [ctypes.c_void_p] * (pointers + 1)
        getattr(lib, name).restype = ctypes.c_int32
    return lib


def _dims(values):
    return (ctypes.c_int32 * MAX_RANK)(*list(values), *([0] * (MAX_RANK - len(values))))


def _p(array):
    return array.ctypes.data


def _values(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype == np.float32:
        return rng.standard_normal(shape).astype(np.float32)
    info = np.iinfo(dtype)
    return rng.integers(info.min, int(info.max) + 1, size=shape, dtype=dtype)


@st.composite
def _nd_case(draw):
    rank = draw(st.integers(1, 4))
    shape = tuple(draw(st.integers(1, 4)) for _ in range(rank))
    depth = draw(st.integers(0, rank))
    count = draw(st.integers(1, 6))
    index_size = draw(st.sampled_from(sorted(INDEX_DTYPES)))
    return shape, depth, count, index_size, draw(st.integers(0, 2**32 - 1))


def _nd_params(shape, depth, count, elem_size, index_size, kind=0):
    slice_size = int(np.prod(shape[depth:], dtype=np.int64))
    return NdParams(count, depth, slice_size, elem_size, index_size, kind, _dims(shape[:depth]))


def _vectors(rng, shape, depth, count, index_size):
    columns = [rng.integers(0, shape[j], size=count) for j in range(depth)]
    vectors = np.stack(columns, axis=-1) if columns else np.zeros((count, 0), dtype=np.int64)
    return vectors.astype(INDEX_DTYPES[index_size])


@given(case=_nd_case(), dtype=st.sampled_from([np.int8, np.int16, np.float32, np.int64]))
def test_gather_nd_matches_reference(case, dtype):
    shape, depth, count, index_size, seed = case
    rng = np.random.default_rng(seed)
    params = _values(rng, shape, dtype)
    vectors = _vectors(rng, shape, depth, count, index_size)
    expected = np.stack([params[tuple(v)] for v in vectors.astype(np.int64)])
    out = np.zeros_like(expected)
    p = _nd_params(shape, depth, count, params.itemsize, index_size)
    assert _lib().hk_gather_nd(ctypes.byref(p), _p(params), _p(vectors), _p(out)) == OK
    np.testing.assert_array_equal(out, expected)


@given(case=_nd_case(), bad=st.sampled_from(["negative", "past_end", "huge"]))
def test_gather_nd_refuses_vectors_outside_without_writing(case, bad):
    shape, depth, count, index_size, seed = case
    if depth == 0:
        depth = 1
    rng = np.random.default_rng(seed)
    params = _values(rng, shape, np.int8)
    vectors = _vectors(rng, shape, depth, count, index_size)
    # LiteRT's reference refuses a negative coordinate or a flat position past the end.
    row = int(rng.integers(0, count))
    if bad == "negative":
        vectors[row, int(rng.integers(0, depth))] = -1
    elif bad == "past_end":
        vectors[row, 0] = shape[0]
    else:
        vectors[row, depth - 1] = np.iinfo(vectors.dtype).max
    out = np.full((count, *shape[depth:]), 0x5A, dtype=np.int8)
    p = _nd_params(shape, depth, count, 1, index_size)
    assert _lib().hk_gather_nd(ctypes.byref(p), _p(params), _p(vectors), _p(out)) == INDEX_RANGE
    assert (out == 0x5A).all()


@given(case=_nd_case(), dtype=st.sampled_from(sorted(SCATTER_KINDS, key=lambda t: np.dtype(t).name)))
def test_scatter_nd_matches_reference(case, dtype):
    shape, depth, count, _, seed = case
    rng = np.random.default_rng(seed)
    vectors = _vectors(rng, shape, depth, count, 4)
    updates = _values(rng, (count, *shape[depth:]), dtype)
    expected = np.zeros(shape, dtype=dtype)
    for v, u in zip(vectors.astype(np.int64), updates):
        with np.errstate(over="ignore"):
            expected[tuple(v)] += u  # in index order; integers wrap
    out = np.full(shape, 7, dtype=dtype)
    p = _nd_params(shape, depth, count, np.dtype(dtype).itemsize, 4, SCATTER_KINDS[dtype])
    assert _lib().hk_scatter_nd(ctypes.byref(p), _p(vectors), _p(updates), _p(out)) == OK
    np.testing.assert_array_equal(out, expected)


@given(
    shape=st.lists(st.integers(1, 5), min_size=1, max_size=4),
    data=st.data(),
    index_size=st.sampled_from([4, 8]),
    dtype=st.sampled_from([np.int8, np.int16, np.float32, np.int64]),
)
def test_dynamic_update_slice_clamps_starts_as_the_reference(shape, data, index_size, dtype):
    update_shape = [data.draw(st.integers(1, n)) for n in shape]
    starts = np.array([data.draw(st.integers(-3, n + 3)) for n in shape], dtype=INDEX_DTYPES[index_size])
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    operand, update = _values(rng, shape, dtype), _values(rng, update_shape, dtype)
    expected = operand.copy()
    clamped = [min(max(0, int(s)), n - u) for s, n, u in zip(starts, shape, update_shape)]
    expected[tuple(slice(c, c + u) for c, u in zip(clamped, update_shape))] = update
    out = np.zeros_like(operand)
    p = UpdateSliceParams(len(shape), operand.itemsize, index_size, _dims(shape), _dims(update_shape))
    assert _lib().hk_dynamic_update_slice(ctypes.byref(p), _p(operand), _p(update), _p(starts), _p(out)) == OK
    np.testing.assert_array_equal(out, expected)


@given(
    shape=st.lists(st.integers(1, 5), min_size=2, max_size=4),
    data=st.data(),
    index_size=st.sampled_from([4, 8]),
    dtype=st.sampled_from([np.uint8, np.int16, np.float32, np.int64]),
)
def test_reverse_sequence_matches_reference(shape, data, index_size, dtype):
    seq_dim, batch_dim = data.draw(st.permutations(range(len(shape))))[:2]
    lengths = np.array(
        [data.draw(st.integers(0, shape[seq_dim])) for _ in range(shape[batch_dim])],
        dtype=INDEX_DTYPES[index_size],
    )
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    source = _values(rng, shape, dtype)
    expected = source.copy()
    for b, length in enumerate(lengths.astype(np.int64)):
        at = [slice(None)] * len(shape)
        at[batch_dim] = b
        at[seq_dim] = slice(0, length)
        expected[tuple(at)] = np.flip(source[tuple(at)], axis=seq_dim - (batch_dim < seq_dim))
    out = np.zeros_like(source)
    p = ReverseSequenceParams(len(shape), source.itemsize, index_size, seq_dim, batch_dim, _dims(shape))
    lib = _lib()
    assert lib.hk_reverse_sequence(ctypes.byref(p), _p(source), _p(lengths), _p(out)) == OK
    np.testing.assert_array_equal(out, expected)
    lengths[int(rng.integers(0, lengths.size))] = shape[seq_dim] + 1
    untouched = np.zeros_like(source)
    assert lib.hk_reverse_sequence(ctypes.byref(p), _p(source), _p(lengths), _p(untouched)) == INDEX_RANGE
    assert not untouched.any()


@given(
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=3),
    data=st.data(),
    index_size=st.sampled_from([4, 8]),
    dtype=st.sampled_from([np.bool_, np.int8, np.int16, np.float32, np.int64]),
)
def test_one_hot_matches_reference(shape, data, index_size, dtype):
    depth = data.draw(st.integers(1, 6))
    axis = data.draw(st.integers(0, len(shape)))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    indices = rng.integers(-2, depth + 2, size=shape).astype(INDEX_DTYPES[index_size])
    if index_size == 8 and indices.size:
        indices.flat[0] = 2**32 + 1  # LiteRT compares static_cast<int>(index): this is 1
    on, off = np.array([1], dtype=dtype), np.array([0], dtype=dtype)
    low = (indices.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
    hot = np.moveaxis(low[..., None] == np.arange(depth), -1, axis)
    expected = np.where(hot, on[0], off[0]).astype(dtype)
    out = np.zeros(expected.shape, dtype=dtype)
    prefix = int(np.prod(shape[:axis], dtype=np.int64))
    p = OneHotParams(prefix, depth, int(np.prod(shape[axis:], dtype=np.int64)), out.itemsize, index_size)
    assert _lib().hk_one_hot(ctypes.byref(p), _p(indices), _p(on), _p(off), _p(out)) == OK
    np.testing.assert_array_equal(out, expected)


@given(
    shape=st.lists(st.integers(1, 5), min_size=1, max_size=4),
    data=st.data(),
    dtype=st.sampled_from([np.float32, np.int32, np.int64]),
    exclusive=st.booleans(),
    reverse=st.booleans(),
)
def test_cumsum_matches_reference(shape, data, dtype, exclusive, reverse):
    axis = data.draw(st.integers(0, len(shape) - 1))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    source = _values(rng, shape, dtype)
    walk = np.flip(source, axis) if reverse else source
    with np.errstate(over="ignore"):
        sums = np.add.accumulate(walk, axis=axis, dtype=dtype)
    if exclusive:
        sums = np.concatenate([np.zeros_like(np.take(sums, [0], axis)), np.delete(sums, -1, axis)], axis)
    expected = np.flip(sums, axis) if reverse else sums
    out = np.zeros_like(source)
    p = CumsumParams(
        int(np.prod(shape[:axis], dtype=np.int64)),
        shape[axis],
        int(np.prod(shape[axis + 1 :], dtype=np.int64)),
        CUMSUM_KINDS[dtype],
        exclusive,
        reverse,
    )
    assert _lib().hk_cumsum(ctypes.byref(p), _p(source), _p(out)) == OK
    np.testing.assert_array_equal(out, expected)


def test_bad_parameters_are_refused():
    lib = _lib()
    buf = np.zeros(64, dtype=np.int8)
    assert (
        lib.hk_gather_nd(ctypes.byref(NdParams(1, 1, 1, 1, 3, 0, _dims([2]))), _p(buf), _p(buf), _p(buf))
        == BAD_PARAM
    )
    assert (
        lib.hk_scatter_nd(ctypes.byref(NdParams(1, 1, 1, 2, 4, 1, _dims([2]))), _p(buf), _p(buf), _p(buf))
        == BAD_PARAM
    )
    dus = UpdateSliceParams(2, 1, 4, _dims([2, 2]), _dims([3, 1]))
    assert lib.hk_dynamic_update_slice(ctypes.byref(dus), _p(buf), _p(buf), _p(buf), _p(buf)) == BAD_PARAM
    rs = ReverseSequenceParams(2, 1, 4, 1, 1, _dims([2, 2]))
    assert lib.hk_reverse_sequence(ctypes.byref(rs), _p(buf), _p(buf), _p(buf)) == BAD_PARAM
    assert lib.hk_cumsum(ctypes.byref(CumsumParams(1, 2, 1, 3, False, False)), _p(buf), _p(buf)) == BAD_PARAM
