"""The onnx requantization kernels' fast paths against the numpy QDQ model, on random shapes.

What the converter emits: the packed convolution (``hk_onnx_conv_packed_s8``: CONV_2D and
FULLY_CONNECTED with the filter packed and the input offset folded into the bias by the same
functions the operators call, pixels read in place or gathered into a patch), the depthwise
convolution (Helium sixteen and eight channels a step, four under a predicate; DSP four
channels in registers), and ADD, SUB and MUL quantized by the reciprocal of the output scale
where that provably gives the division's integer, as are a float input's QuantizeLinear
(ONNX_QUANTIZE: NaN, infinities, subnormals and values past the range among the inputs) and the
batch normalization between quantized nodes (ONNX_BATCH_NORMALIZATION: Helium's vectors only where
the converter found no subnormal in any step, drawn parameters with a subnormal mean or multiplier
for the scalar loop). On the host the portable C runs them; the cross test builds one program of
drawn cases per path (Helium at -O2 and -O0, the Cortex-M55
without Helium, the Cortex-M4's DSP) and runs it under QEMU; the last two round with
``hk_onnx_rne``'s VCVTR, Helium with VCVTN and the host on the float's bits.

The binary cases cover every pair of int8 operands (a row of all 256 values against a column of
all 256, both broadcast) at arbitrary float scales, where the multiply by the reciprocal and the
division meet their ties, plus power-of-two scales, where many results are exact ties.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np
import pytest
from helia_aot_ops_builtin.fully_connected.fully_connected import fold_fc_bias, pack_fc_filter
from helia_aot_ops_builtin.onnx_requant.onnx_qlinear import batch_norm_meets_no_subnormal
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.onnx_requant.onnx_requant_ctypes import (
    BinaryParams,
    ConvParams,
    QuantizeParams,
    call_qlinear,
    ptr,
)
from ops_builtin.onnx_requant.test_onnx_batch_normalization import draw_batch_norm, fit
from ops_builtin.onnx_requant.test_onnx_requant_cross import Case, program
from ops_builtin.support import onnx_qdq_refmodels as ref
from ops_builtin.support.cbuild import build_kernels
from ops_builtin.support.cross_check import FEW_BUILDS, drawn_cases, paths, run_program

HOST = settings(max_examples=20, deadline=None)
ONE_BUILD = settings(FEW_BUILDS, max_examples=1)
CROSS_PATHS = paths("m55-mve", "m55-mve-O0", "m55-portable", "m4-dsp")
PATCH_BYTES = 4096  # the cross program's patch buffer: more than any drawn window


def _scale(rng: np.random.Generator, ties: bool) -> float:
    """A power of two times a small integer (products land on exact halves) or any float."""
    if ties:
        return float(rng.integers(1, 8) * 2.0 ** rng.integers(-9, -3))
    return float(rng.uniform(0.5, 2.0) * 2.0 ** rng.integers(-9, -3))


def _out_size(size: int, f: int, s: int, d: int, same: bool) -> tuple[int, int]:
    eff = (f - 1) * d + 1
    if same:
        out = -(-size // s)
        return out, max((out - 1) * s + eff - size, 0) // 2
    return max((size - eff) // s + 1, 0), 0


def conv_draw(depthwise: bool):
    """Keyword sets of one convolution: batches, image, channels, filter, stride, dilation,
    padding, and whether its scales make ties."""
    return st.fixed_dictionaries(
        {
            "n": st.integers(1, 2),
            "h": st.integers(1, 7),
            "w": st.integers(1, 7),
            "ic": st.one_of(st.integers(1, 40), st.sampled_from([8, 16, 32, 64])),
            "oc": st.integers(1, 41),
            "fh": st.integers(1, 3),
            "fw": st.integers(1, 3),
            "stride": st.integers(1, 2),
            "dilation": st.integers(1, 2),
            "same": st.booleans(),
            "mdepth": st.sampled_from([1, 1, 1, 2]) if depthwise else st.just(1),
            "ties": st.booleans(),
            "seed": st.integers(0, 2**32 - 1),
        }
    )


def conv_data(rng, n, h, w, ic, oc, fh, fw, stride, dilation, same, mdepth, ties, depthwise) -> dict:
    """Inputs, constants, geometry and the numpy model's outputs of one drawn convolution."""
    (oh, pt), (ow, pl) = _out_size(h, fh, stride, dilation, same), _out_size(w, fw, stride, dilation, same)
    if depthwise:
        oc = ic * mdepth
    x = rng.integers(-128, 128, (n, h, w, ic)).astype(np.int8)
    wt = rng.integers(-127, 128, (1, fh, fw, oc) if depthwise else (oc, fh, fw, ic)).astype(np.int8)
    bias = rng.integers(-3000, 3000, oc).astype(np.int32)
    zx, zy = int(rng.integers(-128, 128)), int(rng.integers(-20, 20))
    sx = _scale(rng, ties)
    mult = ref.conv_multipliers(sx, [_scale(rng, ties) for _ in range(oc)], _scale(rng, ties) * 64)
    lo, hi = (zy, 127) if rng.integers(0, 2) else (-128, 127)
    geometry = ((stride, stride), (dilation, dilation), (pt, pl), (oh, ow), mult, zy, lo, hi)
    if depthwise:
        want = ref.depthwise(x, zx, wt, bias, mdepth, *geometry)
    else:
        want = ref.conv(x, zx, wt, bias, *geometry)
    fields = (
        n,
        h,
        w,
        ic,
        oh,
        ow,
        oc,
        fh,
        fw,
        stride,
        stride,
        dilation,
        dilation,
        pt,
        pl,
        mdepth,
        -zx,
        zy,
        lo,
        hi,
    )
    rows = wt.reshape(oc, -1)
    return {
        "x": x,
        "w": wt,
        "bias": bias,
        "mult": np.ascontiguousarray(mult, np.float32),
        "packed": pack_fc_filter(rows),
        "offset_bias": fold_fc_bias(rows, bias, -zx, 0),
        "fields": fields,
        "want": want,
    }


def binary_data(rng, kind: str, ties: bool, broadcast: bool) -> dict:
    """ADD, SUB or MUL of every int8 pair (a row of all values against a column of all values)
    or of two same-shape operands (the contiguous run), and the numpy model's outputs."""
    if broadcast:
        a = rng.permutation(np.arange(-128, 128)).astype(np.int8).reshape(1, 256)
        b = rng.permutation(np.arange(-128, 128)).astype(np.int8).reshape(256, 1)
        shape, a_strides, b_strides = (256, 256), (0, 1), (1, 0)
    else:
        shape = (int(rng.integers(1, 5)), int(rng.integers(1, 40)))
        a = rng.integers(-128, 128, shape).astype(np.int8)
        b = rng.integers(-128, 128, shape).astype(np.int8)
        a_strides = b_strides = (shape[1], 1)
    sa, sb = _scale(rng, ties), _scale(rng, ties)
    sy = sa * sb * 256 if kind == "mul" else (sa + sb) * float(rng.uniform(0.5, 2.0))
    za, zb, zy = (int(v) for v in rng.integers(-128, 128, 3))
    lo, hi = (zy, 127) if rng.integers(0, 4) == 0 else (-128, 127)
    return {
        "a": a,
        "b": b,
        "shape": shape,
        "a_strides": a_strides,
        "b_strides": b_strides,
        "quant": (za, zb, zy, sa, sb, sy, lo, hi),
        "want": ref.binary(kind, a, sa, za, b, sb, zb, sy, zy, lo, hi).reshape(shape),
    }


def quantize_data(rng, n: int, ties: bool) -> dict:
    """A float input's QuantizeLinear: halves of a step (ties), values past the range, NaN, the
    infinities and subnormals among them."""
    scale = float(np.float32(_scale(rng, ties)))
    zp = int(rng.integers(-128, 128))
    x = ((rng.integers(-300, 300, n) + (0.5 if ties else rng.uniform(-1, 1, n))) * scale).astype(np.float32)
    specials = np.array([np.nan, np.inf, -np.inf, 1e-40, -1e-42, 3e38, 0.0], np.float32)
    x[rng.permutation(n)[: min(n, 7)]] = specials[: min(n, 7)]
    return {"x": x, "scale": scale, "zp": zp, "want": ref.quantize_linear(x, scale, zp)}


def batch_norm_data(rng, outer: int, channels: int, inner: int, subnormal: bool) -> dict:
    """A batch normalization's operands (one channel's mean or multiplier subnormal when asked:
    the vector path must stand aside) and the numpy model's outputs."""
    x = rng.integers(-128, 128, (outer, channels, inner)).astype(np.int8)
    sx, zx = float(np.float32(rng.uniform(0.01, 0.1))), int(rng.integers(-20, 20))
    mean, offset = (rng.standard_normal(channels).astype(np.float32) for _ in range(2))
    multiplier = rng.uniform(0.5, 2.0, channels).astype(np.float32)
    if subnormal:
        (mean if rng.integers(0, 2) else multiplier)[int(rng.integers(0, channels))] = np.float32(1e-40)
    sy, zy = float(np.float32(rng.uniform(0.01, 0.1))), int(rng.integers(-128, 0))
    vector = batch_norm_meets_no_subnormal(sx, zx, mean, multiplier, offset, sy)
    return {
        "x": x,
        "mean": mean,
        "multiplier": multiplier,
        "offset": offset,
        "fields": (outer, channels, inner, sx, zx, sy, zy, int(vector)),
        "want": ref.batch_norm(x, 1, sx, zx, mean, multiplier, offset, sy, zy),
    }


def _conv_params(data: dict) -> ConvParams:
    params = ConvParams(*data["fields"])
    params.multiplier, params.bias = data["mult"].ctypes.data, data["bias"].ctypes.data
    return params


def _kernels():
    library = build_kernels("onnx_requant")
    library.hk_onnx_conv_patch_size.restype = ctypes.c_int32
    return library


@HOST
@given(drawn=conv_draw(False), own_patch=st.booleans())
def test_packed_conv_matches_the_qdq_model(drawn, own_patch):
    """The packed kernel, its patch exactly hk_onnx_conv_patch_size bytes (a canary after it),
    or none (NULL: the planner dropped it), gathering into the output's unwritten tail and,
    for the pixels that write it, a chunk at a time on the stack."""
    data = conv_data(
        np.random.default_rng(drawn["seed"]),
        depthwise=False,
        **{k: v for k, v in drawn.items() if k != "seed"},
    )
    params = _conv_params(data)
    kernels = _kernels()
    size = kernels.hk_onnx_conv_patch_size(ctypes.byref(params))
    fh, fw, pads = data["fields"][7], data["fields"][8], data["fields"][13:15]
    in_place = (fh, fw, *pads) == (1, 1, 0, 0)
    assert size == (0 if in_place else fh * fw * data["x"].shape[3])
    patch = np.full(size + 16, 0x5A, np.int8)
    out = np.zeros(data["want"].shape, np.int8)
    status = kernels.hk_onnx_conv_packed_s8(
        ctypes.byref(params),
        ptr(data["x"]),
        ptr(data["packed"]),
        ptr(data["offset_bias"]),
        ptr(patch) if own_patch else None,
        ptr(out),
    )
    assert status == 0
    np.testing.assert_array_equal(out, data["want"])
    assert np.all(patch[size:] == 0x5A)


@HOST
@given(drawn=conv_draw(True))
def test_depthwise_matches_the_qdq_model(drawn):
    data = conv_data(
        np.random.default_rng(drawn["seed"]),
        depthwise=True,
        **{k: v for k, v in drawn.items() if k != "seed"},
    )
    out = np.zeros(data["want"].shape, np.int8)
    status = _kernels().hk_onnx_depthwise_s8(
        ctypes.byref(_conv_params(data)), ptr(data["x"]), ptr(data["w"]), ptr(out)
    )
    assert status == 0
    np.testing.assert_array_equal(out, data["want"])


def _binary_params(data: dict) -> BinaryParams:
    params = BinaryParams()
    params.dims = 2
    for i in range(2):
        params.shape[i], params.a_strides[i], params.b_strides[i] = (
            data["shape"][i],
            data["a_strides"][i],
            data["b_strides"][i],
        )
    za, zb, zy, sa, sb, sy, lo, hi = data["quant"]
    params.a_zero_point, params.b_zero_point, params.output_zero_point = za, zb, zy
    params.a_scale, params.b_scale, params.output_scale = sa, sb, sy
    params.act_min, params.act_max = lo, hi
    return params


@HOST
@given(
    kind=st.sampled_from(["add", "sub", "mul"]),
    ties=st.booleans(),
    broadcast=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_binary_by_the_reciprocal_matches_the_division(kind, ties, broadcast, seed):
    data = binary_data(np.random.default_rng(seed), kind, ties, broadcast)
    out = np.zeros(data["shape"], np.int8)
    fn = getattr(_kernels(), f"hk_onnx_{kind}_s8")
    assert fn(ctypes.byref(_binary_params(data)), ptr(data["a"]), ptr(data["b"]), ptr(out)) == 0
    np.testing.assert_array_equal(out, data["want"])


@HOST
@given(n=st.integers(1, 300), ties=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_quantize_by_the_reciprocal_matches_the_division(n, ties, seed):
    data = quantize_data(np.random.default_rng(seed), n, ties)
    out = np.zeros(n, np.int8)
    call_qlinear("onnx_quantize_f32_s8", QuantizeParams(n, 1.0, 0, data["scale"], data["zp"]), data["x"], out)
    np.testing.assert_array_equal(out, data["want"])


def test_batch_norm_vectors_only_without_subnormals():
    """The converter's check: typical parameters pass; a subnormal operand, or a step that
    underflows for some int8 input, sends the kernel to the scalar loop."""
    ones = np.ones(3, np.float32)
    assert batch_norm_meets_no_subnormal(0.05, 3, ones * 0.2, ones, ones * -0.1, 0.04)
    assert not batch_norm_meets_no_subnormal(0.05, 3, np.float32([0.2, 1e-40, 0.0]), ones, ones, 0.04)
    assert not batch_norm_meets_no_subnormal(0.05, 3, ones * 0.2, ones * 1e-37, ones * 0.0, 0.04)
    assert not batch_norm_meets_no_subnormal(0.05, 3, ones * 0.2, ones, np.float32([np.inf, 0, 0]), 0.04)


# -- the cross program: every drawn case once per path ----------------------------------------


def _conv_init(data: dict) -> str:
    names = (
        "batches input_height input_width input_channels output_height output_width output_channels "
        "filter_height filter_width stride_height stride_width dilation_height dilation_width pad_top "
        "pad_left depth_multiplier input_offset output_offset act_min act_max"
    ).split()
    return (
        ", ".join(f".{k} = {v}" for k, v in zip(names, data["fields"], strict=True))
        + ", .multiplier = $m, .bias = $b"
    )


def conv_case(rng, depthwise: bool, patch: str = "onnx_patch", **drawn) -> Case:
    """One drawn convolution; ``patch`` is the packed kernel's buffer (NULL: none of its own)."""
    data = conv_data(rng, depthwise=depthwise, **drawn)
    label = f"{'depthwise' if depthwise else 'packed conv'} {data['fields']} patch {patch}"
    if depthwise:
        arrays = {"x": data["x"], "w": data["w"], "b": data["bias"], "m": data["mult"]}
        call = "hk_onnx_depthwise_s8($p, $x, $w, out)"
    else:
        arrays = {
            "x": data["x"],
            "pw": data["packed"],
            "ob": data["offset_bias"],
            "b": data["bias"],
            "m": data["mult"],
        }
        call = f"hk_onnx_conv_packed_s8($p, $x, $pw, $ob, {patch}, out)"
    return Case(label, "hk_onnx_conv_params_t", _conv_init(data), call, arrays, data["want"])


def binary_case(rng, kind: str, ties: bool, broadcast: bool) -> Case:
    data = binary_data(rng, kind, ties, broadcast)
    za, zb, zy, sa, sb, sy, lo, hi = data["quant"]

    def five(values) -> str:
        return "{" + ", ".join(str(int(v)) for v in [*values, *[1] * (5 - len(values))]) + "}"

    init = (
        f".dims = 2, .shape = {five(data['shape'])}, .a_strides = {five(data['a_strides'])}, "
        f".b_strides = {five(data['b_strides'])}, .a_zero_point = {za}, .b_zero_point = {zb}, "
        f".output_zero_point = {zy}, .a_scale = {float(np.float32(sa)).hex()}f, "
        f".b_scale = {float(np.float32(sb)).hex()}f, .output_scale = {float(np.float32(sy)).hex()}f, "
        f".act_min = {lo}, .act_max = {hi}"
    )
    label = f"{kind} {'every pair' if broadcast else data['shape']}{' ties' if ties else ''}"
    return Case(
        label,
        "hk_onnx_binary_params_t",
        init,
        f"hk_onnx_{kind}_s8($p, $a, $b, out)",
        {"a": data["a"], "b": data["b"]},
        data["want"],
    )


def quantize_case(rng, n: int, ties: bool) -> Case:
    data = quantize_data(rng, n, ties)
    init = (
        f".size = {n}, .input_scale = 1.0f, .input_zero_point = 0, "
        f".output_scale = {float(np.float32(data['scale'])).hex()}f, .output_zero_point = {data['zp']}"
    )
    return Case(
        f"quantize {n}{' ties' if ties else ''}",
        "hk_onnx_quantize_params_t",
        init,
        "hk_onnx_quantize_f32_s8($p, $x, out)",
        {"x": data["x"]},
        data["want"],
    )


def batch_norm_case(rng, outer: int, channels: int, inner: int, subnormal: bool) -> Case:
    data = batch_norm_data(rng, outer, channels, inner, subnormal)
    names = "outer channels inner input_scale input_zero_point output_scale output_zero_point vector".split()
    init = ", ".join(
        f".{k} = {float(np.float32(v)).hex() + 'f' if isinstance(v, float) else v}"
        for k, v in zip(names, data["fields"], strict=True)
    )
    return Case(
        f"batch norm {(outer, channels, inner)} vector {data['fields'][-1]}",
        "hk_onnx_batch_norm_params_t",
        init,
        "hk_onnx_batch_norm_s8($p, $mean, $mult, $offset, $x, out)",
        {"x": data["x"], "mean": data["mean"], "mult": data["multiplier"], "offset": data["offset"]},
        data["want"],
    )


def batch_norm_affine_case(rng, outer: int, channels: int, inner: int, subnormal: bool) -> Case:
    """The integer-line kernel on the lines the converter fits to drawn parameters (Helium: four
    channels a vector where inner is 1). ``subnormal`` draws coarse binary fractions instead,
    whose outputs land on half steps, so the fit stands aside and the case runs the float kernel."""
    d = draw_batch_norm(rng, channels, ties=subnormal)
    x = np.resize(np.arange(-128, 128, dtype=np.int8), (outer, channels, inner))
    want = ref.batch_norm(x, 1, d["sx"], d["zx"], d["mean"], d["multiplier"], d["offset"], d["sy"], d["zy"])
    fitted = fit(d)
    if fitted is None:
        return batch_norm_case(rng, outer, channels, inner, False)
    scale, bias, shift = fitted
    return Case(
        f"batch norm lines {(outer, channels, inner)}",
        "hk_onnx_batch_norm_affine_params_t",
        f".outer = {outer}, .channels = {channels}, .inner = {inner}, .shift = {shift}",
        "hk_onnx_batch_norm_affine_s8($p, $a, $b, $x, out)",
        {"x": x, "a": scale, "b": bias},
        want,
    )


def quantize_draw():
    return st.fixed_dictionaries(
        {"n": st.integers(1, 70), "ties": st.booleans(), "seed": st.integers(0, 2**32 - 1)}
    )


def batch_norm_draw():
    """A dense layer's outputs (inner 1: one run across the channels) or a feature map's."""
    return st.fixed_dictionaries(
        {
            "outer": st.integers(1, 2),
            "channels": st.integers(1, 40),
            "inner": st.sampled_from([1, 1, 3, 9]),
            "subnormal": st.booleans(),
            "seed": st.integers(0, 2**32 - 1),
        }
    )


def binary_draw():
    """Same-shape operands (the every-pair cases, 64 KiB of expected bytes each, are fixed)."""
    return st.fixed_dictionaries(
        {
            "kind": st.sampled_from(["add", "sub", "mul"]),
            "ties": st.booleans(),
            "broadcast": st.just(False),
            "seed": st.integers(0, 2**32 - 1),
        }
    )


def cross_source(
    folder: Path,
    convs: list[dict],
    depthwise: list[dict],
    binaries: list[dict],
    quantizes: list[dict],
    norms: list[dict],
) -> Path:
    cases = (
        drawn_cases(convs[::2], lambda rng, **kw: conv_case(rng, False, **kw))
        # Every other one without a buffer of its own, as where the planner dropped it.
        + drawn_cases(convs[1::2], lambda rng, **kw: conv_case(rng, False, "NULL", **kw))
        + drawn_cases(depthwise, lambda rng, **kw: conv_case(rng, True, **kw))
        + drawn_cases(binaries, binary_case)
        + drawn_cases(quantizes, quantize_case)
        + drawn_cases(norms, batch_norm_case)
        + drawn_cases(norms, batch_norm_affine_case)
        # Gathered windows with and without a buffer of their own, whatever was drawn: ResNet-8's
        # 3x3x16 layer, and taps straddling chunks (depth 45) over more units than one pass (70).
        + [
            conv_case(np.random.default_rng(35), False, patch, **kw)
            for patch in ("onnx_patch", "NULL")
            for kw in (
                {"n": 1, "h": 6, "w": 5, "ic": 16, "oc": 16, "fh": 3, "fw": 3, "stride": 1, "dilation": 1},
                {"n": 2, "h": 5, "w": 4, "ic": 5, "oc": 70, "fh": 3, "fw": 3, "stride": 2, "dilation": 1},
            )
            for kw in [{**kw, "same": True, "mdepth": 1, "ties": False}]
        ]
        # Every int8 pair at a float scale and at a power-of-two one, whatever was drawn.
        + [binary_case(np.random.default_rng(35), k, t, True) for k, t in (("add", False), ("mul", True))]
    )
    text = program(cases)
    includes = '#include "hk_onnx_requant.h"\n#include "hk_onnx_qlinear.h"\n'
    text = text.replace(
        '#include "hk_onnx_requant.h"\n', f"{includes}\nstatic int8_t onnx_patch[{PATCH_BYTES}];\n", 1
    )
    path = folder / "main.c"
    path.write_text(text)
    return path


@pytest.mark.cross
@pytest.mark.parametrize("path_name", sorted(CROSS_PATHS))
@ONE_BUILD
@given(
    convs=st.lists(conv_draw(False), min_size=6, max_size=8),
    depthwise=st.lists(conv_draw(True), min_size=6, max_size=8),
    binaries=st.lists(binary_draw(), min_size=3, max_size=4),
    quantizes=st.lists(quantize_draw(), min_size=2, max_size=3),
    norms=st.lists(batch_norm_draw(), min_size=4, max_size=5),
)
def test_every_path_matches_the_qdq_model(
    path_name, convs, depthwise, binaries, quantizes, norms, tmp_path_factory
):
    folder = tmp_path_factory.mktemp(f"onnx_fast_{path_name}")
    source = cross_source(folder, convs, depthwise, binaries, quantizes, norms)
    count = source.read_text().count("differs\\n")
    run = run_program(source, folder, CROSS_PATHS[path_name], ("onnx_requant", "onnx_qlinear"), timeout=300)
    assert f"0 of {count} cases differ" in run.stdout, run.stdout
