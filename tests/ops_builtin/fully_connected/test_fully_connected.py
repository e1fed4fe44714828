"""Property tests of hk_fully_connected against numpy models of LiteRT's reference kernel.

LiteRT's reference FULLY_CONNECTED requantizes in double precision (round(acc * scale)), so the
model does too; the per-tensor path also applies a filter offset. Integer outputs must match
exactly and float outputs bit for bit (the model sums in input order). The int8 kernel is
checked with row-major weights, with the converter's folded bias, and with its packed weights;
the integer requantization that cores without a double FPU use is compiled in on the host by
HK_FC_REQUANT_INTEGER and checked on ties, near-ties and every scale range.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import subprocess
import tempfile
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from helia_aot_ops_builtin.families import include_flags, kernel_sources
from helia_aot_ops_builtin.fully_connected.fully_connected import fold_fc_bias, pack_fc_filter
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.support import conv_family_refmodels as ref
from ops_builtin.support import float16_cases
from ops_builtin.support.cbuild import CFLAGS, build_kernels
from ops_builtin.support.single_op import (
    SingleOp,
    T,
    check_against_reference,
    const,
    options,
    seeded_integers,
    seeded_uniform,
)

STATUS_OK, STATUS_BAD_PARAM = 0, 5
F32 = np.float32
P = ctypes.c_void_p


class FcParams(ctypes.Structure):
    _fields_ = [
        (n, ctypes.c_int32)
        for n in (
            "batches",
            "input_features",
            "output_features",
            "input_offset",
            "filter_offset",
            "output_offset",
            "act_min",
            "act_max",
        )
    ] + [
        ("output_scale", ctypes.POINTER(ctypes.c_double)),
        ("per_channel", ctypes.c_int32),
        ("act_min_f32", ctypes.c_float),
        ("act_max_f32", ctypes.c_float),
        ("folded_bias", ctypes.POINTER(ctypes.c_int32)),
        ("packed_filter", ctypes.c_int32),
    ]


@cache
def _integer_requant_library() -> ctypes.CDLL:
    """The family built with HK_FC_REQUANT_INTEGER: the requantization of the Cortex-M4."""
    files = kernel_sources("fully_connected", "fully_connected_generic")
    flags = [*CFLAGS, "-DHK_FC_REQUANT_INTEGER"]
    digest = hashlib.sha256(" ".join(flags).encode())
    for path in files:
        digest.update(path.read_bytes())
    lib = Path(tempfile.gettempdir()) / f"hk_fc_integer_{os.getuid()}_{digest.hexdigest()[:16]}.so"
    if not lib.exists():
        tmp = lib.with_suffix(f".{os.getpid()}.tmp")
        subprocess.run(
            [
                "gcc",
                *flags,
                *include_flags(),
                *(str(p) for p in files if p.suffix == ".c"),
                "-o",
                str(tmp),
                "-lm",
            ],
            check=True,
            capture_output=True,
            text=True,
        )
        os.replace(tmp, lib)
    return ctypes.CDLL(str(lib))


def _fn(name, integer_requant=False):
    lib = (
        _integer_requant_library()
        if integer_requant
        else build_kernels("fully_connected", "fully_connected_generic")
    )
    fn = getattr(lib, name)
    fn.argtypes = [ctypes.POINTER(FcParams), P, P, P, P]
    fn.restype = ctypes.c_int32
    return fn


def _scales(rng, n, per_channel, spread=(1e-4, 2e-2)):
    """Effective scales as LiteRT forms them: double(s_in) * double(s_w) / double(s_out)."""
    s_in, s_out = (np.float32(v) for v in rng.uniform(1e-3, 5e-2, 2))
    s_w = rng.uniform(*spread, n if per_channel else 1).astype(np.float32)
    return float(s_in) * s_w.astype(np.float64) / float(s_out)


def _run(
    name,
    x,
    w,
    bias,
    out_dtype,
    *,
    scales=None,
    per_channel=False,
    in_off=0,
    f_off=0,
    out_off=0,
    act=(0, 0),
    act_f=(0.0, 0.0),
    layout="rows",
    integer_requant=False,
):
    """Call the kernel; int8 ``layout`` "rows" (weights and bias as given), "folded" (the
    converter's folded bias) or "packed" (folded bias and packed weights, as modules do)."""
    y = np.zeros((x.shape[0], w.shape[0]), out_dtype)
    p = FcParams(
        batches=x.shape[0],
        input_features=x.shape[1],
        output_features=w.shape[0],
        input_offset=in_off,
        filter_offset=f_off,
        output_offset=out_off,
        act_min=act[0],
        act_max=act[1],
        per_channel=int(per_channel),
        act_min_f32=act_f[0],
        act_max_f32=act_f[1],
    )
    if scales is not None:
        scales = np.ascontiguousarray(scales, np.float64)
        p.output_scale = scales.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    weights = w
    if layout != "rows":
        folded = fold_fc_bias(w, bias, in_off, f_off)
        p.folded_bias = folded.ctypes.data_as(ctypes.POINTER(ctypes.c_int32))
        bias = None
        if layout == "packed":
            weights = pack_fc_filter(w)
            p.packed_filter = 1
    status = _fn(name, integer_requant)(
        ctypes.byref(p),
        x.ctypes.data,
        weights.ctypes.data,
        None if bias is None else bias.ctypes.data,
        y.ctypes.data,
    )
    return status, y


dims = st.tuples(st.integers(1, 4), st.integers(1, 40), st.integers(1, 12))
# Depths across whole and partial 16-byte chunks and 4-byte words, units across groups of four.
wide_dims = st.tuples(st.integers(1, 2), st.integers(1, 70), st.integers(1, 14))
layouts = st.sampled_from(["rows", "folded", "packed"])


@settings(max_examples=200)
@given(
    st.one_of(dims, wide_dims),
    st.booleans(),
    st.booleans(),
    layouts,
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_fc_s8_matches_reference(shape, per_channel, with_bias, layout, integer_requant, seed):
    b, k, n = shape
    rng = np.random.default_rng(seed)
    x = rng.integers(-128, 127, (b, k), dtype=np.int8, endpoint=True)
    w = rng.integers(-127, 127, (n, k), dtype=np.int8, endpoint=True)
    bias = rng.integers(-5000, 5000, n, dtype=np.int32) if with_bias else None
    zp_in, zp_out, zp_w = (int(v) for v in rng.integers(-128, 127, 3, endpoint=True))
    zp_w = 0 if per_channel else zp_w
    scales = _scales(rng, n, per_channel)
    lo, hi = sorted(int(v) for v in rng.integers(-128, 127, 2, endpoint=True))
    status, y = _run(
        "hk_fully_connected_s8",
        x,
        w,
        bias,
        np.int8,
        scales=scales,
        per_channel=per_channel,
        in_off=-zp_in,
        f_off=-zp_w,
        out_off=zp_out,
        act=(lo, hi),
        layout=layout,
        integer_requant=integer_requant,
    )
    expected = ref.fully_connected_int(x, w, bias, -zp_in, -zp_w, zp_out, scales, (lo, hi), np.int8)
    assert status == STATUS_OK
    np.testing.assert_array_equal(y, expected)


@settings(max_examples=150)
@given(st.one_of(dims, wide_dims), st.booleans(), st.booleans(), st.booleans(), st.integers(0, 2**32 - 1))
def test_fc_s8_generic_matches_reference(shape, per_channel, with_bias, integer_requant, seed):
    """hk_fully_connected_s8_generic (``kernel: generic``): row-major weights and the plain bias,
    the same bytes as the packed entry with either requantization."""
    b, k, n = shape
    rng = np.random.default_rng(seed)
    x = rng.integers(-128, 127, (b, k), dtype=np.int8, endpoint=True)
    w = rng.integers(-127, 127, (n, k), dtype=np.int8, endpoint=True)
    bias = rng.integers(-5000, 5000, n, dtype=np.int32) if with_bias else None
    zp_in, zp_out, zp_w = (int(v) for v in rng.integers(-128, 127, 3, endpoint=True))
    zp_w = 0 if per_channel else zp_w
    scales = _scales(rng, n, per_channel)
    lo, hi = sorted(int(v) for v in rng.integers(-128, 127, 2, endpoint=True))
    status, y = _run(
        "hk_fully_connected_s8_generic",
        x,
        w,
        bias,
        np.int8,
        scales=scales,
        per_channel=per_channel,
        in_off=-zp_in,
        f_off=-zp_w,
        out_off=zp_out,
        act=(lo, hi),
        integer_requant=integer_requant,
    )
    expected = ref.fully_connected_int(x, w, bias, -zp_in, -zp_w, zp_out, scales, (lo, hi), np.int8)
    assert status == STATUS_OK
    np.testing.assert_array_equal(y, expected)


def test_fc_s8_generic_rejects_packed_weights():
    """The generic entry reads row-major weights only; packed ones are a caller error."""
    x = np.zeros((1, 3), np.int8)
    w = np.zeros((4, 3), np.int8)
    args = dict(scales=np.ones(1), act=(-128, 127), layout="packed")
    assert _run("hk_fully_connected_s8", x, w, None, np.int8, **args)[0] == STATUS_OK
    assert _run("hk_fully_connected_s8_generic", x, w, None, np.int8, **args)[0] == STATUS_BAD_PARAM


@settings(max_examples=150)
@given(dims, st.booleans(), st.booleans(), st.booleans(), st.integers(0, 2**32 - 1))
def test_fc_s16_matches_reference(shape, per_channel, with_bias, bias32, seed):
    b, k, n = shape
    rng = np.random.default_rng(seed)
    x = rng.integers(-32768, 32767, (b, k), dtype=np.int16, endpoint=True)
    w = rng.integers(-127, 127, (n, k), dtype=np.int8, endpoint=True)
    bias_t = np.int32 if bias32 else np.int64
    bias = rng.integers(-(1 << 22), 1 << 22, n).astype(bias_t) if with_bias else None
    scales = _scales(rng, n, per_channel, (1e-6, 1e-4))
    status, y = _run(
        "hk_fully_connected_s16_b32" if bias32 else "hk_fully_connected_s16",
        x,
        w,
        bias,
        np.int16,
        scales=scales,
        per_channel=per_channel,
        act=(-32768, 32767),
    )
    expected = ref.fully_connected_int(x, w, bias, 0, 0, 0, scales, (-32768, 32767), np.int16)
    assert status == STATUS_OK
    np.testing.assert_array_equal(y, expected)


def test_fc_double_requantization_rounds_halves_away_from_zero():
    # acc * scale lands exactly on +-2.5 and +-0.5: std::round gives 3, -3, 1, -1.
    x = np.array([[5, -5, 1, -1]], np.int8).reshape(4, 1)
    w = np.ones((1, 1), np.int8)
    for integer_requant in (False, True):
        status, y = _run(
            "hk_fully_connected_s8",
            x,
            w,
            None,
            np.int8,
            scales=np.array([0.5]),
            act=(-128, 127),
            integer_requant=integer_requant,
        )
        assert status == STATUS_OK
        assert y.ravel().tolist() == [3, -3, 1, -1]


def _requantize_accumulators(acc, scales, out_off=0, integer_requant=True):
    """Each unit's accumulator set through its bias (x = 0, weights 0), one scale per unit."""
    acc = np.asarray(acc, np.int64)
    x = np.zeros((1, 1), np.int8)
    w = np.zeros((acc.size, 1), np.int8)
    status, y = _run(
        "hk_fully_connected_s8",
        x,
        w,
        acc.astype(np.int32),
        np.int8,
        scales=scales,
        per_channel=True,
        out_off=out_off,
        act=(-128, 127),
        layout="packed",
        integer_requant=integer_requant,
    )
    assert status == STATUS_OK
    expected = ref.fully_connected_int(x, w, acc, 0, 0, out_off, scales, (-128, 127), np.int8)
    return y.ravel(), expected.ravel()


@pytest.mark.parametrize("integer_requant", [False, True])
def test_fc_requantization_is_exact_at_and_next_to_ties(integer_requant):
    """Products on a tie, one double ulp either side of it, and accumulators whose exact
    product misses a tie by less than the double's rounding: the shortcut must defer to the
    double arithmetic there and agree everywhere else."""
    scales, accs = [], []
    for exponent in range(-31, 0):
        base = 2.0**exponent
        for scale in (base, np.nextafter(base, 0.0), np.nextafter(base, 1.0), base * 0.75):
            for tie in (0.5, 1.5, 57.5, -0.5, -3.5, -99.5):
                acc = int(round(tie / scale))
                for a in (acc - 1, acc, acc + 1):
                    if -(1 << 31) <= a < (1 << 31):
                        scales.append(scale)
                        accs.append(a)
    got, expected = _requantize_accumulators(accs, np.array(scales), integer_requant=integer_requant)
    np.testing.assert_array_equal(got, expected)


@settings(max_examples=150)
@given(
    st.integers(0, 2**32 - 1),
    st.sampled_from([(1e-12, 1e-6), (1e-6, 1e-2), (1e-2, 0.3), (0.2, 4.0), (4.0, 1e6)]),
)
def test_fc_integer_requantization_matches_double_for_any_scale(seed, spread):
    """Random accumulators over the whole int32 range and scales from tiny to huge, including
    those outside the shortcut's range and products that saturate."""
    rng = np.random.default_rng(seed)
    n = 64
    accs = np.concatenate(
        [
            rng.integers(-(1 << 31), 1 << 31, n // 2),
            rng.integers(-5000, 5000, n // 2 - 2),
            [-(1 << 31), (1 << 31) - 1],
        ]
    )
    scales = np.exp(rng.uniform(np.log(spread[0]), np.log(spread[1]), n))
    got, expected = _requantize_accumulators(accs, scales, out_off=int(rng.integers(-128, 128)))
    np.testing.assert_array_equal(got, expected)


@settings(max_examples=120)
@given(
    dims,
    st.booleans(),
    st.sampled_from([(-3.4028235e38, 3.4028235e38), (0.0, 6.0), (-1.0, 1.0)]),
    st.integers(0, 2**32 - 1),
)
def test_fc_f32_matches_reference_bit_for_bit(shape, with_bias, act, seed):
    b, k, n = shape
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((b, k)).astype(F32)
    w = rng.standard_normal((n, k)).astype(F32)
    bias = rng.standard_normal(n).astype(F32) if with_bias else None
    status, y = _run("hk_fully_connected_f32", x, w, bias, F32, act_f=act)
    expected = ref.fully_connected_float(x, w, bias, act)
    assert status == STATUS_OK
    np.testing.assert_array_equal(y.view(np.uint32), expected.view(np.uint32))


def test_fc_rejects_missing_scales_and_negative_sizes():
    x = np.zeros((2, 3), np.int8)
    w = np.zeros((4, 3), np.int8)
    status, _ = _run("hk_fully_connected_s8", x, w, None, np.int8, act=(-128, 127))
    assert status == STATUS_BAD_PARAM
    status, _ = _run("hk_fully_connected_s8", x, w, None, np.int8, scales=np.ones(1), act=(1, 0))
    assert status == STATUS_BAD_PARAM
    p = FcParams(batches=-1, input_features=3, output_features=4)
    status = _fn("hk_fully_connected_f32")(ctypes.byref(p), x.ctypes.data, w.ctypes.data, None, x.ctypes.data)
    assert status == STATUS_BAD_PARAM


# FULLY_CONNECTED alone in a model, per element type, against LiteRT's reference kernels
# (tests/ops_builtin/support/single_op.py).


REFERENCE_CASES = {
    "float32": SingleOp(
        "FULLY_CONNECTED",
        [
            T((2, 8), "float32"),
            const((6, 8), "float32", seeded_uniform(11754, -1, 1, 48)),
            const((6,), "float32", np.arange(6) * 0.5),
        ],
        [T((2, 6), "float32")],
        options("FullyConnectedOptionsT"),
    ),
    "int8": SingleOp(
        "FULLY_CONNECTED",
        [
            T((3, 10), "int8", (0.05, 3)),
            const((4, 10), "int8", seeded_integers(11755, -127, 128, 40), (0.02, 0)),
            const((4,), "int32", [5, -9, 100, 0], (0.001, 0)),
        ],
        [T((3, 4), "int8", (0.1, -3))],
        options("FullyConnectedOptionsT", fusedActivationFunction=3),
    ),
}
"""Case name -> its one-operator model."""


def test_fully_connected_matches_the_reference(tmp_path):
    check_against_reference(REFERENCE_CASES, tmp_path)


FLOAT16 = float16_cases.named("fully_connected_2x40", "fully_connected_1x9", "fully_connected_2x40_fast")
"""The float16 cases (support/float16_cases.py): the float16 model against its float32 twin run by
the reference, within the bound docs/float16.md states."""


@pytest.mark.parametrize("case", FLOAT16, ids=[c.name for c in FLOAT16])
def test_fully_connected_float16_matches_its_float32_twin(case, tmp_path):
    float16_cases.check_on_host(case, tmp_path)
