"""Packed int4 weights: hk_unpack_s4 and the per-use kernels against numpy models.

LiteRT stores int4 two per byte, low nibble first, sign-extended when read (``unpack_int4``, the
converter's reader). ``hk_unpack_s4`` must give those values on every path (Helium splits sixteen
bytes at a time and interleaves them with a two-way store); ``hk_fully_connected_s8_s4`` must give
the int8 reference kernel's outputs on the unpacked weights (Helium and the DSP extension split
the nibbles in registers for rows that start on a byte; odd depths take the element loop), and
``hk_conv_s8_s4`` / ``hk_depthwise_s8_s4`` (the general loops on nibbles, with Helium and DSP
blocks for long runs and channel blocks) the int8 reference's on the unpacked filter. On the host
hypothesis draws many calls (UBSan, no recovery); on each core one program holding a draw's unpack
and fully connected cases, and one holding its convolution and depthwise cases, is cross-built for
Helium, DSP and plain C and run under QEMU (tests/e2e/test_int4_models.py runs whole models on
both cores).
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from helia_aot.air import pack_int4, unpack_int4
from helia_aot_ops_builtin.common.int4_weights import channel_words
from helia_aot_ops_builtin.fully_connected.fully_connected import fold_fc_bias
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.conv import test_conv
from ops_builtin.depthwise import test_depthwise
from ops_builtin.fully_connected.test_fully_connected import FcParams
from ops_builtin.support import conv_family_refmodels as ref
from ops_builtin.support.cbuild import build_kernels
from ops_builtin.support.cross_check import FEW_BUILDS, check_program, drawn_cases, paths

P = ctypes.c_void_p
CROSS_PATHS = paths("m55-mve", "m55-dsp", "m55-portable", "m4-dsp")


def _lib() -> ctypes.CDLL:
    lib = build_kernels("int4", "fully_connected_s4")
    lib.hk_unpack_s4.argtypes = [P, P, ctypes.c_int32]
    lib.hk_unpack_s4.restype = ctypes.c_int32
    lib.hk_fully_connected_s8_s4.argtypes = [ctypes.POINTER(FcParams), P, P, P, P]
    lib.hk_fully_connected_s8_s4.restype = ctypes.c_int32
    return lib


def _ptr(a: np.ndarray | None) -> int | None:
    return None if a is None else a.ctypes.data


@settings(max_examples=60, deadline=None)
@given(count=st.integers(0, 200), seed=st.integers(0, 2**32 - 1))
def test_unpack_gives_the_readers_values(count, seed):
    values = np.random.default_rng(seed).integers(-8, 8, count).astype(np.int8)
    packed = np.frombuffer(pack_int4(values) or b"\0", np.uint8).copy()
    assert np.array_equal(unpack_int4(packed, count), values)
    out = np.full(count + 1, 0x5A, np.int8)
    assert _lib().hk_unpack_s4(_ptr(packed), _ptr(out), count) == 0
    assert np.array_equal(out[:count], values)
    assert out[count] == 0x5A  # nothing written past the count


def test_unpack_sign_extends_every_nibble():
    packed = np.arange(256, dtype=np.uint8)
    out = np.zeros(512, np.int8)
    assert _lib().hk_unpack_s4(_ptr(packed), _ptr(out), 512) == 0
    low = np.where(packed & 15 > 7, (packed & 15).astype(int) - 16, packed & 15)
    high = np.where(packed >> 4 > 7, (packed >> 4).astype(int) - 16, packed >> 4)
    assert np.array_equal(out[0::2], low) and np.array_equal(out[1::2], high)
    assert _lib().hk_unpack_s4(None, _ptr(out), 4) == 5  # a NULL source is a bad parameter


def fc_s4_case(rng, batches, depth, units, per_channel, zp_w, folded):
    """(x, int4 weights, bias, params dict, folded bias or None, expected int8 output)."""
    x = rng.integers(-128, 128, (batches, depth)).astype(np.int8)
    w = rng.integers(-8, 8, (units, depth)).astype(np.int8)
    bias = rng.integers(-20000, 20000, units).astype(np.int32)
    zp_in, zp_out = (int(v) for v in rng.integers(-128, 128, 2))
    zp_w = 0 if per_channel else zp_w
    lo, hi = (-128, 127) if rng.random() < 0.5 else (zp_out, 127)
    scales = rng.uniform(1e-3, 4e-2, units if per_channel else 1)
    expected = ref.fully_connected_int(x, w, bias, -zp_in, -zp_w, zp_out, scales, (lo, hi), np.int8)
    fields = dict(
        batches=batches,
        input_features=depth,
        output_features=units,
        input_offset=-zp_in,
        filter_offset=-zp_w,
        output_offset=zp_out,
        act_min=lo,
        act_max=hi,
        per_channel=int(per_channel),
    )
    fold = fold_fc_bias(w, bias, -zp_in, -zp_w) if folded else None
    return x, w, bias, fields, np.asarray(scales, np.float64), fold, expected


@st.composite
def fc_s4_draw(draw):
    per_channel = draw(st.booleans())
    return dict(
        batches=draw(st.integers(1, 3)),
        depth=draw(st.one_of(st.integers(1, 80), st.sampled_from([32, 64, 96, 250]))),
        units=draw(st.integers(1, 12)),
        per_channel=per_channel,
        zp_w=draw(st.sampled_from([0, 0, 3, -8])),
        folded=draw(st.booleans()),
        seed=draw(st.integers(0, 2**32 - 1)),
    )


@settings(max_examples=60, deadline=None)
@given(drawn=fc_s4_draw())
def test_fc_s8_s4_matches_the_reference_on_the_unpacked_weights(drawn):
    seed = drawn.pop("seed")
    x, w, bias, fields, scales, fold, expected = fc_s4_case(np.random.default_rng(seed), **drawn)
    packed = np.frombuffer(pack_int4(w), np.uint8).copy()
    p = FcParams(**fields)
    p.output_scale = scales.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    if fold is not None:
        p.folded_bias = fold.ctypes.data_as(ctypes.POINTER(ctypes.c_int32))
    y = np.zeros_like(expected)
    status = _lib().hk_fully_connected_s8_s4(
        ctypes.byref(p), _ptr(x), _ptr(packed), None if fold is not None else _ptr(bias), _ptr(y)
    )
    assert status == 0
    assert np.array_equal(y, expected)


def _c_array(name: str, values: np.ndarray, ctype: str) -> str:
    flat = np.asarray(values).reshape(-1)
    text = ", ".join(float(v).hex() if ctype == "double" else str(int(v)) for v in flat) or "0"
    return f"static const {ctype} {name}[{max(flat.size, 1)}] __attribute__((aligned(16))) = {{{text}}};\n"


def program(unpacks: list[np.ndarray], fcs: list[tuple]) -> str:
    """One program: every unpack and FC case, its bytes compared with the reference's."""
    parts = [
        '#include <stdio.h>\n#include <string.h>\n#include "hk_fully_connected_s4.h"\n'
        '#include "hk_int4.h"\n#include "hk_isa.h"\n\n',
        "static int8_t out[4096] __attribute__((aligned(16)));\n\n",
    ]
    calls = []
    for i, values in enumerate(unpacks):
        parts.append(_c_array(f"u{i}_p", np.frombuffer(pack_int4(values) or b"\0", np.uint8), "uint8_t"))
        parts.append(_c_array(f"u{i}_y", values, "int8_t"))
        calls.append(
            f"    memset(out, 0x5A, sizeof out);\n"
            f"    if (hk_unpack_s4(u{i}_p, out, {values.size}) != 0 || "
            f"memcmp(out, u{i}_y, {values.size}u) != 0) {{\n"
            f'        printf("unpack {i} differs\\n");\n        ++failures;\n    }}\n'
        )
    for i, (x, w, bias, fields, scales, fold, expected) in enumerate(fcs):
        parts.append(_c_array(f"f{i}_x", x, "int8_t"))
        parts.append(_c_array(f"f{i}_w", np.frombuffer(pack_int4(w), np.uint8), "uint8_t"))
        parts.append(_c_array(f"f{i}_b", bias, "int32_t"))
        parts.append(_c_array(f"f{i}_s", scales, "double"))
        parts.append(_c_array(f"f{i}_y", expected, "int8_t"))
        init = ", ".join(f".{k} = {v}" for k, v in fields.items()) + f", .output_scale = f{i}_s"
        if fold is not None:
            parts.append(_c_array(f"f{i}_f", fold, "int32_t"))
            init += f", .folded_bias = f{i}_f"
        calls.append(
            f"    {{\n        const hk_fully_connected_params_t p = {{{init}}};\n"
            f"        memset(out, 0x5A, sizeof out);\n"
            f"        if (hk_fully_connected_s8_s4(&p, f{i}_x, f{i}_w, f{i}_b, out) != 0 || "
            f"memcmp(out, f{i}_y, {expected.size}u) != 0) {{\n"
            f'            printf("fc {i} differs\\n");\n            ++failures;\n        }}\n    }}\n'
        )
    parts.append('\nint main(void)\n{\n    int failures = 0;\n    printf("path %s\\n", HK_ISA_PATH);\n')
    parts.extend(calls)
    total = len(unpacks) + len(fcs)
    parts.append(f'    printf("%d of {total} cases differ\\n", failures);\n    return failures;\n}}\n')
    return "".join(parts)


@pytest.mark.cross
@pytest.mark.parametrize("path_name", sorted(CROSS_PATHS))
@FEW_BUILDS
@given(drawn=st.lists(fc_s4_draw(), min_size=8, max_size=10))
def test_every_path_matches_the_reference(path_name, drawn, tmp_path_factory):
    rng = np.random.default_rng(len(drawn))
    unpacks = [rng.integers(-8, 8, n).astype(np.int8) for n in (1, 2, 31, 32, 33, 64, 95, 1000)]
    fcs = drawn_cases(drawn, fc_s4_case)
    fcs.append(fc_s4_case(rng, 1, 640, 8, True, 0, True))  # whole Helium chunks, one row each
    check_program(
        program(unpacks, fcs),
        tmp_path_factory.mktemp("int4"),
        CROSS_PATHS[path_name],
        ("int4", "fully_connected_s4"),
        len(unpacks) + len(fcs),
        timeout=120,
    )


def _bias(rng: np.random.Generator, channels: int) -> np.ndarray:
    """Small biases, the first at an end of a channel word's 24 bits (hk_int4.h)."""
    bias = rng.integers(-(1 << 14), 1 << 14, channels).astype(np.int32)
    bias[0] = rng.choice([-(1 << 23), (1 << 23) - 1])
    return bias


def _window_fn(family: str, params: type) -> ctypes._CFuncPtr:
    fn = getattr(build_kernels(f"{family}_s4"), f"hk_{family}_s8_s4")
    fn.argtypes = [ctypes.POINTER(params), P, P, P, P]
    fn.restype = ctypes.c_int32
    return fn


def _window_call(family, params_type, geo, x, w, bias, y, mult, shift, zp_in, zp_out, act):
    """One call, each channel's bias and shift in its word (hk_int4.h), the bias argument NULL;
    a bias argument as well is refused (it would be a second bias)."""
    p = params_type(**geo, input_offset=-zp_in, output_offset=zp_out, act_min=act[0], act_max=act[1])
    p.output_multiplier = mult.ctypes.data_as(ctypes.POINTER(ctypes.c_int32))
    words = channel_words(bias, shift)
    assert words is not None
    p.output_shift = words.ctypes.data_as(ctypes.POINTER(ctypes.c_int32))
    packed = np.frombuffer(pack_int4(w), np.uint8).copy()
    fn = _window_fn(family, params_type)
    assert fn(ctypes.byref(p), _ptr(x), _ptr(packed), _ptr(words), _ptr(y)) != 0
    return fn(ctypes.byref(p), _ptr(x), _ptr(packed), None, _ptr(y))


@settings(max_examples=80, deadline=None)
@given(case=test_conv.geometries(), with_bias=st.booleans())
def test_conv_s8_s4_matches_the_reference_on_the_unpacked_filter(case, with_bias):
    geo, seed = case
    rng = np.random.default_rng(seed)
    xs, ws, ys = test_conv._shapes(geo)
    x = rng.integers(-128, 128, xs).astype(np.int8)
    w = rng.integers(-8, 8, ws).astype(np.int8)
    bias = _bias(rng, ys[3]) if with_bias else None
    zp_in, zp_out = (int(v) for v in rng.integers(-128, 128, 2))
    mult, shift, lo, hi = test_conv._quant(rng, geo, np.int8)
    y = np.zeros(ys, np.int8)
    status = _window_call(
        "conv", test_conv.ConvParams, geo, x, w, bias, y, mult, shift, zp_in, zp_out, (lo, hi)
    )
    acc = ref.conv_accumulate(x, w, input_offset=-zp_in, **test_conv._geometry_args(geo))
    assert status == 0
    np.testing.assert_array_equal(y, ref.requantize(acc, bias, mult, shift, zp_out, (lo, hi), np.int8))


@settings(max_examples=80, deadline=None)
@given(case=test_depthwise.geometries(), with_bias=st.booleans())
def test_depthwise_s8_s4_matches_the_reference_on_the_unpacked_filter(case, with_bias):
    geo, seed = case
    rng = np.random.default_rng(seed)
    xs, ws, ys = test_depthwise._shapes(geo)
    x = rng.integers(-128, 128, xs).astype(np.int8)
    w = rng.integers(-8, 8, ws).astype(np.int8)
    bias = _bias(rng, ys[3]) if with_bias else None
    zp_in, zp_out = (int(v) for v in rng.integers(-128, 128, 2))
    mult, shift, act = test_depthwise._quant(rng, ys[3], np.int8, (-16, 1))
    y = np.zeros(ys, np.int8)
    status = _window_call(
        "depthwise", test_depthwise.DepthwiseParams, geo, x, w, bias, y, mult, shift, zp_in, zp_out, act
    )
    acc = ref.depthwise_accumulate(x, w, input_offset=-zp_in, **test_depthwise._model_args(geo))
    assert status == 0
    np.testing.assert_array_equal(y, ref.requantize(acc, bias, mult, shift, zp_out, act, np.int8))


@st.composite
def window_s4_draw(draw, family: str):
    """A small window geometry with many channels (runs and channel blocks the fast paths take
    whole, with tails and odd starts), its data seed."""
    geo = {
        "batches": 1,
        "input_height": draw(st.integers(1, 4)),
        "input_width": draw(st.integers(1, 4)),
        "filter_height": draw(st.integers(1, 3)),
        "filter_width": draw(st.integers(1, 3)),
        "stride_height": draw(st.integers(1, 2)),
        "stride_width": draw(st.integers(1, 2)),
        "dilation_height": draw(st.integers(1, 2)),
        "dilation_width": draw(st.integers(1, 2)),
        "pad_top": draw(st.integers(0, 1)),
        "pad_left": draw(st.integers(0, 1)),
        "output_height": draw(st.integers(1, 2)),
        "output_width": draw(st.integers(1, 2)),
    }
    channels = st.one_of(st.integers(1, 40), st.sampled_from([16, 32, 33, 64, 70]))
    if family == "conv":
        geo["filter_input_channels"] = geo["input_channels"] = draw(channels)
        geo["output_channels"] = draw(st.integers(1, 3))
    else:
        geo["input_channels"] = draw(channels)
        geo["depth_multiplier"] = draw(st.sampled_from([1, 1, 1, 2]))
    return family, geo, draw(st.integers(0, 2**32 - 1))


def window_s4_case(rng, family, geo):
    """(family, geo, x, int4 filter, bias, multipliers, shifts, offsets and clamp, expected)."""
    module = test_conv if family == "conv" else test_depthwise
    xs, ws, ys = module._shapes(geo)
    x = rng.integers(-128, 128, xs).astype(np.int8)
    w = rng.integers(-8, 8, ws).astype(np.int8)
    bias = _bias(rng, ys[3])
    zp_in, zp_out = (int(v) for v in rng.integers(-128, 128, 2))
    mult = rng.integers(1 << 30, (1 << 31) - 1, ys[3], dtype=np.int32, endpoint=True)
    shift = rng.integers(-12, 0, ys[3], dtype=np.int32, endpoint=True)
    if family == "conv":
        acc = ref.conv_accumulate(x, w, input_offset=-zp_in, **test_conv._geometry_args(geo))
    else:
        acc = ref.depthwise_accumulate(x, w, input_offset=-zp_in, **test_depthwise._model_args(geo))
    expected = ref.requantize(acc, bias, mult, shift, zp_out, (-128, 127), np.int8)
    return family, geo, x, w, bias, mult, shift, (-zp_in, zp_out), expected


def window_program(cases: list[tuple]) -> str:
    """One program: every conv and depthwise case through hk_conv_s8_s4 / hk_depthwise_s8_s4,
    its bytes compared with the reference's."""
    parts = [
        '#include <stdio.h>\n#include <string.h>\n#include "hk_conv_s4.h"\n'
        '#include "hk_depthwise_s4.h"\n#include "hk_isa.h"\n\n',
        "static int8_t out[4096] __attribute__((aligned(16)));\n\n",
    ]
    calls = []
    for i, (family, geo, x, w, bias, mult, shift, (in_off, out_off), expected) in enumerate(cases):
        parts.append(_c_array(f"c{i}_x", x, "int8_t"))
        parts.append(_c_array(f"c{i}_w", np.frombuffer(pack_int4(w), np.uint8), "uint8_t"))
        parts.append(_c_array(f"c{i}_m", mult, "int32_t"))
        parts.append(_c_array(f"c{i}_s", channel_words(bias, shift), "int32_t"))  # bias and shift
        parts.append(_c_array(f"c{i}_y", expected, "int8_t"))
        fields = {**geo, "input_offset": in_off, "output_offset": out_off, "act_min": -128, "act_max": 127}
        init = ", ".join(f".{k} = {v}" for k, v in fields.items())
        init += f", .output_multiplier = c{i}_m, .output_shift = c{i}_s"
        kind = "hk_conv_params_t" if family == "conv" else "hk_depthwise_params_t"
        calls.append(
            f"    {{\n        const {kind} p = {{{init}}};\n"
            f"        memset(out, 0x5A, sizeof out);\n"
            f"        if (hk_{family}_s8_s4(&p, c{i}_x, c{i}_w, NULL, out) != 0 || "
            f"memcmp(out, c{i}_y, {expected.size}u) != 0 || out[{expected.size}] != 0x5A) {{\n"
            f'            printf("{family} {i} differs\\n");\n            ++failures;\n        }}\n    }}\n'
        )
    parts.append('\nint main(void)\n{\n    int failures = 0;\n    printf("path %s\\n", HK_ISA_PATH);\n')
    parts.extend(calls)
    parts.append(f'    printf("%d of {len(cases)} cases differ\\n", failures);\n    return failures;\n}}\n')
    return "".join(parts)


WINDOW_PATHS = paths("m55-mve", "m55-mve-O0", "m55-dsp", "m55-portable", "m4-dsp")


@pytest.mark.cross
@pytest.mark.parametrize("path_name", sorted(WINDOW_PATHS))
@FEW_BUILDS
@given(
    drawn=st.tuples(
        st.lists(window_s4_draw("conv"), min_size=5, max_size=6),
        st.lists(window_s4_draw("depthwise"), min_size=5, max_size=6),
    )
)
def test_window_paths_match_the_reference(path_name, drawn, tmp_path_factory):
    """hk_conv_s8_s4 and hk_depthwise_s8_s4 per use on every path: Helium and the DSP extension
    split the nibbles in registers (conv runs from a byte, after one nibble if odd; depthwise
    blocks of 8 or 4 channels with a depth multiplier of 1 and an even channel count, Helium's
    predicated tail of 2 to 6), the rest one nibble at a time, all equal to the reference on the
    unpacked filter."""
    draws = [*drawn[0], *drawn[1]]
    cases = [window_s4_case(np.random.default_rng(seed), family, geo) for family, geo, seed in draws]
    rng = np.random.default_rng(len(draws))
    whole = {
        "batches": 1,
        "input_height": 3,
        "input_width": 3,
        "filter_height": 3,
        "filter_width": 3,
        "stride_height": 1,
        "stride_width": 1,
        "dilation_height": 1,
        "dilation_width": 1,
        "pad_top": 1,
        "pad_left": 1,
        "output_height": 3,
        "output_width": 3,
    }
    # Whole Helium blocks; odd runs (every other one starts on a high nibble); an odd channel
    # count and a multiplier of 2 (depthwise one channel at a time); Helium's depthwise tail
    # block (2, 6 channels, and 4 after a block of 8).
    for channels, units in ((64, 2), (37, 3)):
        conv = {"input_channels": channels, "filter_input_channels": channels, "output_channels": units}
        cases.append(window_s4_case(rng, "conv", {**whole, **conv}))
    for channels, multiplier in ((24, 1), (13, 1), (10, 2), (6, 1), (12, 1), (2, 1)):
        depthwise = {"input_channels": channels, "depth_multiplier": multiplier}
        cases.append(window_s4_case(rng, "depthwise", {**whole, **depthwise}))
    check_program(
        window_program(cases),
        tmp_path_factory.mktemp("int4_window"),
        WINDOW_PATHS[path_name],
        ("conv_s4", "depthwise_s4"),
        len(cases),
        timeout=120,
    )


class _ChannelParams(ctypes.Structure):
    _fields_ = [("outer", ctypes.c_int32), ("channels", ctypes.c_int32), ("inner", ctypes.c_int32)]


@settings(max_examples=60, deadline=None)
@given(
    shape=st.lists(st.integers(1, 6), min_size=1, max_size=4),
    axis_seed=st.integers(0, 3),
    seed=st.integers(0, 2**32 - 1),
)
def test_dequantize_channel_is_the_references_float_product(shape, axis_seed, seed):
    """Weight-only recipes dequantize int8 (or unpacked int4) weights per channel: scale[c] times
    the int32 difference, one float32 multiply, as LiteRT's PerChannelDequantize."""
    rng = np.random.default_rng(seed)
    axis = axis_seed % len(shape)
    q = rng.integers(-128, 128, shape).astype(np.int8)
    scales = rng.uniform(1e-4, 0.5, shape[axis]).astype(np.float32)
    zero_points = rng.integers(-10, 10, shape[axis]).astype(np.int32)
    view = [1] * len(shape)
    view[axis] = shape[axis]
    expected = scales.reshape(view) * (q.astype(np.int32) - zero_points.reshape(view)).astype(np.float32)
    fn = build_kernels("dequantize_channel").hk_dequantize_channel_s8_f32
    fn.argtypes = [ctypes.POINTER(_ChannelParams), P, P, P, P]
    fn.restype = ctypes.c_int32
    p = _ChannelParams(
        int(np.prod(shape[:axis], dtype=np.int64)),
        shape[axis],
        int(np.prod(shape[axis + 1 :], dtype=np.int64)),
    )
    y = np.zeros(shape, np.float32)
    assert fn(ctypes.byref(p), _ptr(scales), _ptr(zero_points), _ptr(q), _ptr(y)) == 0
    assert np.array_equal(y.view(np.uint32), expected.astype(np.float32).view(np.uint32))
