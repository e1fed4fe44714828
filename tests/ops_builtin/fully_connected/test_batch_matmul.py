"""Property tests of hk_batch_matmul against numpy models of LiteRT's reference BATCH_MATMUL.

Shapes are drawn at rank 2 to 5 with independent batch broadcasting on each side and every
adj_x/adj_y combination. int8 uses the per-tensor fixed-point multiplier and must match exactly;
float sums over the depth in order and must match bit for bit.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.support import conv_family_refmodels as ref
from ops_builtin.support import float16_cases
from ops_builtin.support.cbuild import build_kernels
from ops_builtin.support.single_op import SingleOp, T, check_against_reference, options

STATUS_OK, STATUS_BAD_PARAM = 0, 5
F32 = np.float32
P = ctypes.c_void_p
I3 = ctypes.c_int32 * 3


class BmmParams(ctypes.Structure):
    _fields_ = [("batch", I3), ("lhs_batch", I3), ("rhs_batch", I3)] + [
        (n, ctypes.c_int32)
        for n in (
            "rows",
            "depth",
            "cols",
            "adj_x",
            "adj_y",
            "lhs_offset",
            "rhs_offset",
            "output_offset",
            "output_multiplier",
            "output_shift",
            "act_min",
            "act_max",
        )
    ]


def _fn(name):
    fn = getattr(build_kernels("batch_matmul"), name)
    fn.argtypes = [ctypes.POINTER(BmmParams), P, P, P]
    fn.restype = ctypes.c_int32
    return fn


@st.composite
def problems(draw):
    """(lhs shape, rhs shape, adj_x, adj_y, seed) with broadcastable batch dimensions."""
    rank = draw(st.integers(2, 5))
    batch = [draw(st.integers(1, 3)) for _ in range(rank - 2)]
    lhs_b = [b if draw(st.booleans()) else 1 for b in batch]
    rhs_b = [b if draw(st.booleans()) else 1 for b in batch]
    rhs_rank = draw(st.integers(2, rank))  # rhs may have fewer dimensions
    rhs_b = rhs_b[len(rhs_b) - (rhs_rank - 2) :] if rhs_rank > 2 else []
    m, k, n = (draw(st.integers(1, 6)) for _ in range(3))
    adj_x, adj_y = draw(st.booleans()), draw(st.booleans())
    lhs = (*lhs_b, *((k, m) if adj_x else (m, k)))
    rhs = (*rhs_b, *((n, k) if adj_y else (k, n)))
    return lhs, rhs, adj_x, adj_y, draw(st.integers(0, 2**32 - 1))


def _params(lhs_shape, rhs_shape, adj_x, adj_y, **quant):
    lb = ([1] * 5 + list(lhs_shape[:-2]))[-3:]
    rb = ([1] * 5 + list(rhs_shape[:-2]))[-3:]
    ob = [max(a, b) for a, b in zip(lb, rb)]
    m = lhs_shape[-1] if adj_x else lhs_shape[-2]
    k = lhs_shape[-2] if adj_x else lhs_shape[-1]
    n = rhs_shape[-2] if adj_y else rhs_shape[-1]
    p = BmmParams(
        batch=I3(*ob),
        lhs_batch=I3(*lb),
        rhs_batch=I3(*rb),
        rows=m,
        depth=k,
        cols=n,
        adj_x=int(adj_x),
        adj_y=int(adj_y),
        **quant,
    )
    return p, (*ob, m, n)


def _operands(lhs, rhs, adj_x, adj_y):
    """Both operands as [.., rows, depth] and [.., depth, cols] views, broadcast to rank 5."""
    a = np.swapaxes(lhs, -1, -2) if adj_x else lhs
    b = np.swapaxes(rhs, -1, -2) if adj_y else rhs
    a = a.reshape((1,) * (5 - a.ndim) + a.shape)
    b = b.reshape((1,) * (5 - b.ndim) + b.shape)
    batch = np.broadcast_shapes(a.shape[:3], b.shape[:3])
    return (np.broadcast_to(a, (*batch, *a.shape[3:])), np.broadcast_to(b, (*batch, *b.shape[3:])))


@settings(max_examples=200)
@given(problems())
def test_batch_matmul_s8_matches_reference(case):
    lhs_shape, rhs_shape, adj_x, adj_y, seed = case
    rng = np.random.default_rng(seed)
    lhs = rng.integers(-128, 127, lhs_shape, dtype=np.int8, endpoint=True)
    rhs = rng.integers(-128, 127, rhs_shape, dtype=np.int8, endpoint=True)
    zl, zr, zo = (int(v) for v in rng.integers(-128, 127, 3, endpoint=True))
    mult = int(rng.integers(1 << 30, (1 << 31) - 1))
    shift = int(rng.integers(-16, 1, endpoint=True))
    p, out_shape = _params(
        lhs_shape,
        rhs_shape,
        adj_x,
        adj_y,
        lhs_offset=-zl,
        rhs_offset=-zr,
        output_offset=zo,
        output_multiplier=mult,
        output_shift=shift,
        act_min=-128,
        act_max=127,
    )
    y = np.zeros(out_shape, np.int8)
    status = _fn("hk_batch_matmul_s8")(ctypes.byref(p), lhs.ctypes.data, rhs.ctypes.data, y.ctypes.data)
    a, b = _operands(lhs.astype(np.int64) - zl, rhs.astype(np.int64) - zr, adj_x, adj_y)
    expected = ref.requantize(a @ b, None, mult, shift, zo, (-128, 127), np.int8)
    assert status == STATUS_OK
    np.testing.assert_array_equal(y, expected)


@settings(max_examples=150)
@given(problems())
def test_batch_matmul_f32_matches_reference_bit_for_bit(case):
    lhs_shape, rhs_shape, adj_x, adj_y, seed = case
    rng = np.random.default_rng(seed)
    lhs = rng.standard_normal(lhs_shape).astype(F32)
    rhs = rng.standard_normal(rhs_shape).astype(F32)
    p, out_shape = _params(lhs_shape, rhs_shape, adj_x, adj_y)
    y = np.zeros(out_shape, F32)
    status = _fn("hk_batch_matmul_f32")(ctypes.byref(p), lhs.ctypes.data, rhs.ctypes.data, y.ctypes.data)
    a, b = _operands(lhs, rhs, adj_x, adj_y)
    expected = np.zeros(out_shape, F32)
    for k in range(a.shape[-1]):  # the reference's order: depth ascending from 0.0f
        expected = expected + b[..., k, None, :] * a[..., :, k, None]
    assert status == STATUS_OK
    np.testing.assert_array_equal(y.view(np.uint32), expected.view(np.uint32))


def test_batch_matmul_rejects_unbroadcastable_batches():
    p, _ = _params((2, 3, 4), (2, 4, 5), False, False)
    p.lhs_batch = I3(1, 1, 3)  # neither the output's 2 nor 1
    buf = np.zeros(128, F32)
    status = _fn("hk_batch_matmul_f32")(ctypes.byref(p), buf.ctypes.data, buf.ctypes.data, buf.ctypes.data)
    assert status == STATUS_BAD_PARAM


# BATCH_MATMUL alone in a model, per element type, against LiteRT's reference kernels
# (tests/ops_builtin/support/single_op.py).

REFERENCE_CASES = {
    "float32": SingleOp(
        "BATCH_MATMUL",
        [T((2, 3, 4), "float32"), T((2, 4, 5), "float32")],
        [T((2, 3, 5), "float32")],
        options("BatchMatMulOptionsT"),
    ),
    "int8_adj_y": SingleOp(
        "BATCH_MATMUL",
        [T((2, 3, 6), "int8", (0.05, 3)), T((2, 5, 6), "int8", (0.04, 0))],
        [T((2, 3, 5), "int8", (0.3, -2))],
        options("BatchMatMulOptionsT", adjY=True),
    ),
}
"""Case name -> its one-operator model."""


def test_batch_matmul_matches_the_reference(tmp_path):
    check_against_reference(REFERENCE_CASES, tmp_path)


FLOAT16 = float16_cases.named("batch_matmul_adj_y", "batch_matmul_broadcast_const")
"""The float16 cases (support/float16_cases.py): the float16 model against its float32 twin run by
the reference, within the bound docs/float16.md states."""


@pytest.mark.parametrize("case", FLOAT16, ids=[c.name for c in FLOAT16])
def test_batch_matmul_float16_matches_its_float32_twin(case, tmp_path):
    float16_cases.check_on_host(case, tmp_path)
