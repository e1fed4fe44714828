"""The int16x8 and float32 fast paths give the portable kernels' outputs, bit for bit, on every core.

CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED have Helium paths for int16 activations with int8
weights (hk_conv_s16_mve.c, hk_depthwise_s16_mve.c, hk_fully_connected_s16_mve.c) and for float32
(hk_conv_f32_mve.c, hk_depthwise_f32_mve.c, hk_fully_connected_f32_mve.c), chosen at compile
time. The host tests only see the portable C, which the other kernel tests tie to the LiteRT
reference. Here hypothesis draws the cases (geometries, strides, dilations, padding, channel
counts around the vector widths, int64 and int32 biases, shifts inside and outside the range
the depthwise lanes requantize, biases past 2^30, activation clamps); one program holding them
all is built once for the host (the portable path, with UBSan) and once per core path, and every
path must print the host's digest of each output: Cortex-M55 with Helium (-O2 and -O0), with
integer-only Helium (the int16 paths, float32 portable), without Helium (DSP), and Cortex-M4.
The float32 paths keep each output's summation order, so they match exactly too (the M55's
float bound, CORE_FLOAT_ULP in tests/e2e/corpus.py, is 4 ULP; these paths use none of it).

Assembly blocks this test checks (test_asm_inventory.py lists every block with its test):
wide_smmulr (hk_binary_wide_dsp.c) and hk_doubling_high_q30 (hk_requant.h).
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from helia_aot.testing import cross_build_program, run_qemu
from helia_aot_ops_builtin.common.rescale import add_sub_rescale, mul_rescale
from helia_aot_ops_builtin.elementwise.broadcast_geometry import broadcast_geometry
from helia_aot_ops_builtin.families import KERNEL_PATH, include_flags, kernel_sources
from hypothesis import given, settings
from hypothesis import strategies as st

pytestmark = [pytest.mark.cross]

# (core, extra compiler flags, the path hk_isa.h must report)
PATHS = {
    "m55-mve": ("m55", (), "mve"),
    "m55-mve-O0": ("m55", ("-O0",), "mve"),
    "m55-mve-int": ("m55", ("-mcpu=cortex-m55+nomve.fp",), "mve"),
    "m55-dsp": ("m55", ("-mcpu=cortex-m55+nomve",), "dsp"),
    "m4-dsp": ("m4", (), "dsp"),
}
FAMILIES = ("conv", "depthwise", "fully_connected", "binary")
CTYPES = {
    np.dtype(np.int8): "int8_t",
    np.dtype(np.int16): "int16_t",
    np.dtype(np.int32): "int32_t",
    np.dtype(np.int64): "int64_t",
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
}


@dataclass(slots=True)
class Case:
    """One kernel call: params fields, named arrays, the call and its output's element type."""

    label: str
    params_type: str
    fields: dict
    arrays: dict = field(default_factory=dict)
    call: str = ""
    out_type: str = "int16_t"
    out_count: int = 0


def _out_size(size, filt, stride, dilation, pad):
    span = (filt - 1) * dilation + 1
    return max((size + 2 * pad - span) // stride + 1, 1)


@st.composite
def geometry(draw, depthwise=False):
    """A 2-D window: sizes, filter, stride, dilation and explicit padding (edges cut windows)."""
    kh, kw = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    sh, sw = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    dh, dw = draw(st.sampled_from([1, 1, 2])), draw(st.sampled_from([1, 1, 2]))
    h, w = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    ph, pw = draw(st.integers(0, 2)), draw(st.integers(0, 2))
    channels = draw(st.sampled_from([1, 3, 4, 7, 8, 9, 16, 17, 24]))
    return dict(
        kh=kh, kw=kw, sh=sh, sw=sw, dh=dh, dw=dw, h=h, w=w, ph=ph, pw=pw, c=channels,
        oh=_out_size(h, kh, sh, dh, ph), ow=_out_size(w, kw, sw, dw, pw),
    )  # fmt: skip


def _window_fields(g: dict, prefix_taps: bool) -> dict:
    fields = dict(
        batches=1,
        input_height=g["h"],
        input_width=g["w"],
        input_channels=g["c"],
        filter_height=g["kh"],
        filter_width=g["kw"],
        output_height=g["oh"],
        output_width=g["ow"],
        stride_height=g["sh"],
        stride_width=g["sw"],
        dilation_height=g["dh"],
        dilation_width=g["dw"],
        pad_top=g["ph"],
        pad_left=g["pw"],
    )
    return fields


def _quant(rng, n, products: int, *, lanes: bool):
    """Q31 multipliers and shifts that bring a sum of `products` random int16 x int8 products to
    mid-range int16 outputs (so rounding shows instead of saturating), within [-16, 0] (the
    depthwise lanes' range); with lanes False one channel's shift lies beyond either end, or at
    10, where the 64-bit requantization passes int32 and keeps its low bits (finding 3:947)."""
    mult = rng.integers(1 << 30, (1 << 31) - 1, n, endpoint=True).astype(np.int32)
    centre = -round(10 + 0.5 * np.log2(max(products, 1)))
    shift = np.clip(centre + rng.integers(-2, 2, n, endpoint=True), -16, 0).astype(np.int32)
    if not lanes:
        shift[int(rng.integers(0, n))] = int(rng.choice([-20, 1, 10]))
    return mult, shift


def _int_clamp(rng):
    return (-32768, 32767) if rng.random() < 0.5 else tuple(sorted(rng.integers(-3000, 3000, 2)))


def _float_clamp(rng):
    choice = rng.integers(0, 3)
    return [(-3.4e38, 3.4e38), (0.0, 3.4e38), (0.0, 6.0)][choice]


def _floats(rng, shape):
    """Normal floats (no subnormal products: the M4 flushes them) with exact zeros among them."""
    values = rng.uniform(-2.0, 2.0, shape).astype(np.float32)
    values[np.abs(values) < 1e-3] = 0.0
    return values


@st.composite
def s16_conv_case(draw):
    g = draw(geometry())
    groups = draw(st.sampled_from([1, 2])) if g["c"] % 2 == 0 else 1
    oc = draw(st.sampled_from([1, 3, 4, 5, 8, 9])) * groups
    bias_kind = draw(st.sampled_from(["b64", "b64", "b32", "none"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    fic = g["c"] // groups
    mult, shift = _quant(rng, oc, g["kh"] * g["kw"] * fic, lanes=bool(rng.random() < 0.7))
    lo, hi = _int_clamp(rng)
    fields = _window_fields(g, True) | dict(
        filter_input_channels=fic,
        output_channels=oc,
        input_offset=0,
        output_offset=0,
        act_min=int(lo),
        act_max=int(hi),
        output_multiplier="$mult",
        output_shift="$shift",
    )
    arrays = dict(
        x=rng.integers(-32768, 32767, (g["h"], g["w"], g["c"]), endpoint=True).astype(np.int16),
        w=rng.integers(-127, 127, (oc, g["kh"], g["kw"], fic), endpoint=True).astype(np.int8),
        mult=mult,
        shift=shift,
    )
    if bias_kind == "b32":
        arrays["bias"] = rng.integers(-(1 << 20), 1 << 20, oc).astype(np.int32)
    elif bias_kind == "b64":
        bias = rng.integers(-(1 << 24), 1 << 24, oc).astype(np.int64)
        bias[0] = 1 << 34  # needs the 64-bit sum
        arrays["bias"] = bias
    bias = "$bias" if "bias" in arrays else "NULL"
    fn = "hk_conv_s16_b32" if bias_kind == "b32" else "hk_conv_s16"
    return Case(
        label=f"conv s16 {bias_kind} {g} oc={oc} groups={groups}",
        params_type="hk_conv_params_t",
        fields=fields,
        arrays=arrays,
        call=f"{fn}($p, $x, $w, {bias}, out)",
        out_count=g["oh"] * g["ow"] * oc,
    )


@st.composite
def s16_dw_case(draw):
    g = draw(geometry(depthwise=True))
    dm = draw(st.sampled_from([1, 1, 1, 2]))
    lanes = draw(st.booleans())
    bias_kind = draw(st.sampled_from(["small", "small", "large", "none"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    oc = g["c"] * dm
    mult, shift = _quant(rng, oc, g["kh"] * g["kw"], lanes=lanes)
    lo, hi = _int_clamp(rng)
    fields = _window_fields(g, False) | dict(
        depth_multiplier=dm,
        input_offset=0,
        output_offset=0,
        act_min=int(lo),
        act_max=int(hi),
        output_multiplier="$mult",
        output_shift="$shift",
    )
    arrays = dict(
        x=rng.integers(-32768, 32767, (g["h"], g["w"], g["c"]), endpoint=True).astype(np.int16),
        w=rng.integers(-128, 127, (g["kh"], g["kw"], oc), endpoint=True).astype(np.int8),
        mult=mult,
        shift=shift,
    )
    if bias_kind != "none":
        limit = (1 << 24) if bias_kind == "small" else (1 << 36)
        bias = rng.integers(-limit, limit, oc).astype(np.int64)
        if bias_kind == "large":
            bias[0] = (1 << 30) * (1 if rng.random() < 0.5 else -1)  # just past the lanes' range
        arrays["bias"] = bias
    bias_arg = "$bias" if "bias" in arrays else "NULL"
    return Case(
        label=f"dw s16 bias={bias_kind} lanes={lanes} dm={dm} {g}",
        params_type="hk_depthwise_params_t",
        fields=fields,
        arrays=arrays,
        call=f"hk_depthwise_s16($p, $x, $w, {bias_arg}, out)",
        out_count=g["oh"] * g["ow"] * oc,
    )


@st.composite
def s16_fc_case(draw):
    depth = draw(st.sampled_from([1, 7, 8, 9, 16, 31, 64]))
    units = draw(st.sampled_from([1, 3, 4, 5, 8, 13]))
    batches = draw(st.integers(1, 2))
    bias_kind = draw(st.sampled_from(["b64", "b32", "none"]))
    per_channel = draw(st.booleans())
    filter_offset = draw(st.sampled_from([0, 0, 0, 3]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    scales = rng.uniform(2.0**-20, 2.0**-8, units if per_channel else 1)
    lo, hi = _int_clamp(rng)
    arrays = dict(
        x=rng.integers(-32768, 32767, (batches, depth), endpoint=True).astype(np.int16),
        w=rng.integers(-127, 127, (units, depth), endpoint=True).astype(np.int8),
        scale=scales.astype(np.float64),
    )
    if bias_kind == "b64":
        bias = rng.integers(-(1 << 24), 1 << 24, units).astype(np.int64)
        bias[0] = -(1 << 34)  # needs the 64-bit sum
        arrays["bias"] = bias
    elif bias_kind == "b32":
        arrays["bias"] = rng.integers(-(1 << 20), 1 << 20, units).astype(np.int32)
    fields = dict(
        batches=batches,
        input_features=depth,
        output_features=units,
        input_offset=0,
        filter_offset=filter_offset,
        output_offset=int(rng.integers(-3, 3)),
        act_min=int(lo),
        act_max=int(hi),
        output_scale="$scale",
        per_channel=int(per_channel),
    )
    fn = "hk_fully_connected_s16_b32" if bias_kind == "b32" else "hk_fully_connected_s16"
    bias_arg = "$bias" if "bias" in arrays else "NULL"
    return Case(
        label=f"fc s16 {bias_kind} depth={depth} units={units} filter_offset={filter_offset}",
        params_type="hk_fully_connected_params_t",
        fields=fields,
        arrays=arrays,
        call=f"{fn}($p, $x, $w, {bias_arg}, out)",
        out_count=batches * units,
    )


@st.composite
def f32_case(draw):
    kind = draw(st.sampled_from(["conv", "dw", "fc"]))
    with_bias = draw(st.booleans())
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    lo, hi = _float_clamp(rng)
    if kind == "fc":
        depth = draw(st.sampled_from([1, 5, 8, 33]))
        units = draw(st.sampled_from([1, 3, 4, 8, 11]))
        batches = draw(st.integers(1, 2))
        arrays = dict(x=_floats(rng, (batches, depth)), w=_floats(rng, (units, depth)))
        fields = dict(batches=batches, input_features=depth, output_features=units)
        call, count, params = "hk_fully_connected_f32", batches * units, "hk_fully_connected_params_t"
        bias_n, label = units, f"fc f32 depth={depth} units={units}"
    else:
        g = draw(geometry())
        if kind == "conv":
            groups = draw(st.sampled_from([1, 2])) if g["c"] % 2 == 0 else 1
            oc = draw(st.sampled_from([1, 3, 4, 8, 9, 13])) * groups
            fic = g["c"] // groups
            arrays = dict(
                x=_floats(rng, (g["h"], g["w"], g["c"])), w=_floats(rng, (oc, g["kh"], g["kw"], fic))
            )
            fields = _window_fields(g, True) | dict(filter_input_channels=fic, output_channels=oc)
            call, params, label = "hk_conv_f32", "hk_conv_params_t", f"conv f32 {g} oc={oc} groups={groups}"
        else:
            dm = draw(st.sampled_from([1, 1, 1, 2]))
            oc = g["c"] * dm
            arrays = dict(x=_floats(rng, (g["h"], g["w"], g["c"])), w=_floats(rng, (g["kh"], g["kw"], oc)))
            fields = _window_fields(g, False) | dict(depth_multiplier=dm)
            call, params, label = "hk_depthwise_f32", "hk_depthwise_params_t", f"dw f32 {g} dm={dm}"
        count, bias_n = g["oh"] * g["ow"] * oc, oc
    fields |= dict(act_min_f32=f"{float(lo)!r}f", act_max_f32=f"{float(hi)!r}f")
    if with_bias:
        arrays["bias"] = _floats(rng, (bias_n,))
    bias_arg = "$bias" if with_bias else "NULL"
    return Case(
        label=f"{label} bias={with_bias}",
        params_type=params,
        fields=fields,
        arrays=arrays,
        call=f"{call}($p, $x, $w, {bias_arg}, out)",
        out_type="float",
        out_count=count,
    )


@st.composite
def binary_case(draw):
    """int16 ADD (general scales, and the power-of-two path the runs decline) and MUL, float32
    ADD, SUB and MUL; flat, broadcast along rows, from a scalar, or strided (declined)."""
    kind = draw(st.sampled_from(["s16", "f32"]))
    op = draw(st.sampled_from(["ADD", "MUL"] if kind == "s16" else ["ADD", "SUB", "MUL"]))
    shape = draw(st.lists(st.integers(1, 6), min_size=1, max_size=4))
    shapes = [tuple(d if draw(st.integers(0, 9)) < 7 else 1 for d in shape) for _ in range(2)]
    pot = kind == "s16" and op == "ADD" and draw(st.booleans())
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return _binary(kind, op, shapes, rng, pot=pot)


@st.composite
def s16_run_case(draw, op: str, layout: str):
    """int16 ADD and MUL runs as the Helium and DSP paths take them: flat tensors and broadcast
    rows of odd and even lengths (the DSP runs take two outputs per word), a scalar as either
    input, inputs sometimes at the extremes (-32768 * -32768 is the one product of 2^30), MUL
    multipliers from right shifts through 0 to left shifts."""
    n = draw(st.integers(1, 67))
    rows = draw(st.integers(2, 3))
    shapes = {
        "flat": [(n,), (n,)],
        "scalar0": [(1,), (n,)],
        "scalar1": [(n,), (1,)],
        "rows": [(rows, n), (1, n)],
    }[layout]
    salt = [("ADD", "MUL").index(op), ("flat", "scalar0", "scalar1", "rows").index(layout)]
    rng = np.random.default_rng([draw(st.integers(0, 2**32 - 1)), *salt])
    return _binary("s16", op, shapes, rng, pot=False, extremes=draw(st.booleans()), layout=layout)


def _binary(kind, op, shapes, rng, *, pot, extremes=False, layout="") -> Case:
    """One hk_binary call over inputs of `shapes` (int16 with LiteRT's rescaling, or float32)."""
    g = broadcast_geometry(*shapes)
    geometry = (
        f"{{.size = {g.size}, .broadcast = {'true' if g.broadcast else 'false'}, "
        f".shape = {{{', '.join(map(str, g.shape))}}}, "
        f".strides1 = {{{', '.join(map(str, g.strides1))}}}, "
        f".strides2 = {{{', '.join(map(str, g.strides2))}}}}}"
    )
    if kind == "f32":
        lo, hi = _float_clamp(rng)
        arrays = dict(a=_floats(rng, shapes[0]), b=_floats(rng, shapes[1]))
        fields = dict(geometry=geometry, float_min=f"{float(lo)!r}f", float_max=f"{float(hi)!r}f")
        out_type, op_label = "float", op
    else:
        s1, s2 = (float(np.float32(v)) for v in rng.uniform(2.0**-12, 2.0**-6, 2))
        factor = 1.0
        same_scale = bool(layout) and op == "ADD" and rng.random() < 0.3
        if same_scale:  # both real input multipliers 1/2 (the DSP run's shift-only form)
            s2 = s1
        if op == "MUL":
            factor = 2.0 ** rng.uniform(-2.5, 8.0)  # real multipliers from 2^-8 to 2^2.5
            r = mul_rescale(s1, 0, s2, 0, float(np.float32(s1 * s2 * factor)), 0)
        elif pot:
            r = add_sub_rescale(op, True, 2.0**-10, 0, 2.0**-12, 0, 2.0**-10, 0)
        else:
            so = float(np.float32(max(s1, s2) * rng.uniform(0.7, 3.0)))
            r = add_sub_rescale(op, True, s1, 0, s2, 0, so, 0, pot_scale_int16=False)
        lo, hi = _int_clamp(rng)
        q = {name: getattr(r, name) for name in r.__slots__}
        q.update(activation_min=int(lo), activation_max=int(hi))
        q["pot_scale"] = "true" if q["pot_scale"] else "false"
        quant = "{" + ", ".join(f".{k} = {v}" for k, v in q.items()) + "}"
        top = 32768
        if layout:
            # Inputs and clamps that leave most outputs unclamped (a wrong rounding shows).
            real = 1.0 / factor if op == "MUL" else 1.0
            top = int(np.clip(np.sqrt(2.0**14 / real) if op == "MUL" else 2.0**13, 4, 32768))
            if rng.random() < 0.5:
                lo, hi = int(rng.integers(-32768, -64)), int(rng.integers(64, 32767))
                q.update(activation_min=lo, activation_max=hi)
                quant = "{" + ", ".join(f".{k} = {v}" for k, v in q.items()) + "}"
        arrays = {
            key: rng.integers(-top, top - 1, shp, endpoint=True).astype(np.int16)
            for key, shp in zip("ab", shapes, strict=True)
        }
        if extremes:
            for values in arrays.values():
                flat = values.reshape(-1)
                picks = rng.random(flat.size) < 0.5
                flat[picks] = rng.choice(np.array([-32768, 32767], dtype=np.int16), int(picks.sum()))
        fields = dict(geometry=geometry, quant=quant)
        out_type = "int16_t"
        op_label = f"{op} pot={pot}"
        if layout:
            op_label += f" run {layout} n={max(shapes[0][-1], shapes[1][-1])} shift={r.output_shift}"
            op_label += f" extremes={extremes}" + (" same_scale" if same_scale else "")
    return Case(
        label=f"binary {kind} {op_label} {shapes[0]} {shapes[1]}",
        params_type="hk_binary_params_t",
        fields=fields,
        arrays=arrays,
        call=f"hk_{op.lower()}_{kind}($p, $a, $b, out)",
        out_type=out_type,
        out_count=g.size,
    )


def draw_cases(strategy, count: int) -> list[Case]:
    """`count` cases drawn by hypothesis, the same ones on every run (derandomized)."""
    drawn: list[Case] = []

    @settings(max_examples=count, derandomize=True, database=None, deadline=None)
    @given(strategy)
    def collect(case):
        assert case.out_count > 0
        drawn.append(case)

    collect()
    return drawn[:count]


@cache
def cases() -> list[Case]:
    return (
        draw_cases(s16_conv_case(), 25)
        + draw_cases(s16_dw_case(), 25)
        + draw_cases(s16_fc_case(), 20)
        + draw_cases(f32_case(), 30)
        + draw_cases(binary_case(), 30)
        + [
            case
            for op in ("ADD", "MUL")
            for layout in ("flat", "scalar0", "scalar1", "rows")
            for case in draw_cases(s16_run_case(op, layout), 4)
        ]
    )


def c_array(name: str, values: np.ndarray) -> str:
    values = np.asarray(values)
    ctype = CTYPES[values.dtype]
    flat = values.reshape(-1)
    if ctype in ("float", "double"):
        text = ", ".join(float(v).hex() for v in flat)
    elif ctype == "int64_t":
        text = ", ".join(f"INT64_C({int(v)})" for v in flat)
    else:
        text = ", ".join(str(int(v)) for v in flat)
    size = max(flat.size, 1)
    return f"static const {ctype} {name}[{size}] __attribute__((aligned(16))) = {{{text or '0'}}};\n"


def program(all_cases: list[Case]) -> str:
    """Runs every case and prints its index and an FNV-1a digest of its output bytes."""
    out_bytes = max(4 * c.out_count for c in all_cases)
    parts = [
        "#include <stdint.h>\n#include <stdio.h>\n#include <string.h>\n"
        '#include "hk_binary.h"\n#include "hk_conv.h"\n#include "hk_depthwise.h"\n'
        '#include "hk_fully_connected.h"\n'
        '#include "hk_isa.h"\n\n',
        f"static uint8_t out_bytes[{out_bytes}] __attribute__((aligned(16)));\n",
        "static uint32_t digest(const uint8_t *p, uint32_t n)\n{\n    uint32_t h = 2166136261u;\n"
        "    for (uint32_t i = 0; i < n; ++i) {\n        h = (h ^ p[i]) * 16777619u;\n    }\n"
        "    return h;\n}\n\n",
    ]
    body = []
    for i, c in enumerate(all_cases):
        names = {key: f"c{i}_{key}" for key in c.arrays}
        for key, arr in c.arrays.items():
            parts.append(c_array(names[key], arr))
        inits = []
        for key, value in c.fields.items():
            text = str(value)
            for name in sorted(names, key=len, reverse=True):
                text = text.replace(f"${name}", names[name])
            inits.append(f".{key} = {text}")
        call = c.call.replace("$p", f"&p{i}")
        for name in sorted(names, key=len, reverse=True):
            call = call.replace(f"${name}", names[name])
        call = call.replace("out)", f"({c.out_type} *)(void *)out_bytes)")
        size = 4 * c.out_count if c.out_type == "float" else 2 * c.out_count
        body.append(
            f"    {{\n        const {c.params_type} p{i} = {{{', '.join(inits)}}};\n"
            f"        memset(out_bytes, 0x5A, sizeof out_bytes);\n"
            f"        const int32_t status = {call};\n"
            f'        printf("case {i} %ld %08lx\\n", (long)status, '
            f"(unsigned long)digest(out_bytes, {size}u));\n    }}\n"
        )
    parts.append('\nint main(void)\n{\n    printf("path %s\\n", HK_ISA_PATH);\n')
    parts.extend(body)
    parts.append('    printf("done\\n");\n    return 0;\n}\n')
    return "".join(parts)


def digests(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith("case ")]


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("wide_fast_paths") / "main.c"
    path.write_text(program(cases()))
    return path


def _kernel_c_files() -> list[Path]:
    return [p for p in kernel_sources(*FAMILIES) if p.suffix == ".c"]


@pytest.fixture(scope="module")
def host_digests(source, tmp_path_factory) -> list[str]:
    """The portable kernels' outputs, built for the host with UBSan (no recovery)."""
    exe = tmp_path_factory.mktemp("wide_host") / "main"
    flags = [
        "-std=c99",
        "-O1",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-fsanitize=undefined",
        "-fno-sanitize-recover=all",
    ]
    sources = [str(source), *map(str, _kernel_c_files())]
    subprocess.run(["gcc", *flags, *include_flags(), *sources, "-o", str(exe), "-lm"], check=True)
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=True, timeout=120)
    assert "path portable\n" in run.stdout
    return digests(run.stdout)


def test_cases_cover_every_fast_path_and_its_fallbacks():
    """The drawn cases reach each new path and each way out of it (else a path goes untested)."""
    labels = [c.label for c in cases()]
    for needle in (
        "conv s16 b64", "conv s16 b32", "conv s16 none", "groups=2",
        "dw s16 bias=small lanes=True dm=1", "lanes=False", "bias=large", "dm=2",
        "fc s16 b64", "fc s16 b32", "filter_offset=3",
        "conv f32", "dw f32", "fc f32",
        "binary s16 ADD pot=False", "binary s16 ADD pot=True", "binary s16 MUL",
        "ADD pot=False run scalar0", "ADD pot=False run scalar1", "ADD pot=False run flat",
        "MUL pot=False run flat", "MUL pot=False run scalar0", "run rows", "extremes=True", "same_scale",
        "MUL pot=False run flat n=", "shift=-",
        "binary f32 ADD", "binary f32 SUB", "binary f32 MUL",
    ):  # fmt: skip
        assert any(needle in label for label in labels), needle


def test_host_portable_path_runs_every_case(host_digests):
    """Every case returns status 0 on the portable path, and outputs differ between cases."""
    assert len(host_digests) == len(cases())
    assert all(line.split()[2] == "0" for line in host_digests)
    assert len({line.split()[3] for line in host_digests}) > len(host_digests) // 2


@pytest.mark.parametrize("path_name", sorted(PATHS))
def test_fast_path_matches_portable(path_name, source, host_digests, tmp_path):
    core, flags, expected_path = PATHS[path_name]
    elf = cross_build_program(
        [source, *_kernel_c_files()], tmp_path, core, include_dirs=list(KERNEL_PATH), extra_cflags=flags
    )
    run = run_qemu(elf, core, timeout=120, count=False)
    assert f"path {expected_path}\n" in run.stdout, run.stdout
    assert run.returncode == 0 and "done" in run.stdout, run.stdout
    got = digests(run.stdout)
    labels = [c.label for c in cases()]
    wrong = [labels[i] for i, (a, b) in enumerate(zip(got, host_digests, strict=True)) if a != b]
    assert not wrong, f"{len(wrong)} cases differ from the portable path: {wrong[:5]}"
