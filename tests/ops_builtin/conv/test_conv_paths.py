"""The int8 CONV_2D and DEPTHWISE_CONV_2D kernels give the reference's bytes on every path.

The kernels pick Helium, DSP or portable C at compile time (hk_isa.h), so the host tests only
ever see the portable path. Here one program holding a fixed set of cases (inputs, filters,
requantization constants and the numpy reference's outputs) is cross-built for each path and
run under QEMU: Cortex-M55 (Helium; also unoptimized, where intrinsics stand in for the assembly
loop), Cortex-M55 without MVE (DSP), Cortex-M55 without MVE or DSP (portable) and Cortex-M4
(DSP). The program prints the path it was built for, so a compiler that stopped defining a
feature macro would fail here rather than test the wrong code.

The cases cover what selects code inside the fast paths: whole and partial 16-byte vectors of
the receptive field and 64-byte chunks, filter counts that are not a multiple of four, channels
below, at and past multiples of 16 (the depthwise 16-channel blocks and their 4-channel tail),
windows cut by every image edge, strides and dilations, zero-point extremes, left-shifting
multipliers, clamps wider than int8, and the generic loops (no folded bias, grouped filters,
depth multipliers above one). Rows of hk_requant_row_s8 on extreme values check the three
requantization forms (hk_requant.h) against the reference on every path as well.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pytest
from helia_aot_ops_builtin.common.weighted_prepare import conv_s8_scratch_bytes, offset_bias

from ops_builtin.support import conv_family_refmodels as ref
from ops_builtin.support.cross_check import PATHS, run_program

pytestmark = [
    pytest.mark.cross,
]


CONV_FIELDS = (
    "batches",
    "input_height",
    "input_width",
    "input_channels",
    "filter_height",
    "filter_width",
    "filter_input_channels",
    "output_height",
    "output_width",
    "output_channels",
    "stride_height",
    "stride_width",
    "dilation_height",
    "dilation_width",
    "pad_top",
    "pad_left",
    "input_offset",
    "output_offset",
    "act_min",
    "act_max",
)
DW_FIELDS = (
    "batches",
    "input_height",
    "input_width",
    "input_channels",
    "depth_multiplier",
    "filter_height",
    "filter_width",
    "output_height",
    "output_width",
    "stride_height",
    "stride_width",
    "dilation_height",
    "dilation_width",
    "pad_top",
    "pad_left",
    "input_offset",
    "output_offset",
    "act_min",
    "act_max",
)


@dataclass(slots=True)
class Case:
    """One kernel call: its params fields, data arrays and the reference output."""

    kind: str  # "conv" or "dw"
    fields: dict
    x: np.ndarray
    w: np.ndarray
    bias: np.ndarray | None
    mult: np.ndarray
    shift: np.ndarray
    folded: np.ndarray | None
    scratch: int
    expected: np.ndarray


def _axis(rng, size, filt, stride, dilation, mode):
    if mode == "FREE":  # explicit padding, windows may leave the image on both sides
        return int(rng.integers(1, 5)), int(rng.integers(0, 3))
    out, pad = ref.litert_out_pad(mode, size, filt, stride, dilation)
    return max(out, 1), pad


def _quant(rng, n, left):
    mult = rng.integers(1 << 30, (1 << 31) - 1, n, endpoint=True).astype(np.int32)
    shift = rng.integers(-14, 3 if left else 0, n, endpoint=True).astype(np.int32)
    return mult, shift


def conv_case(
    rng,
    c,
    oc,
    kh,
    kw,
    *,
    stride=(1, 1),
    dilation=(1, 1),
    mode="SAME",
    groups=1,
    fast=True,
    left=False,
    zp_in=None,
    size=(6, 5),
    right_only=False,
) -> Case:
    """A convolution case; ``right_only`` clips every shift to at most -1 (the DSP path's Q30
    requantization, hk_requant.h, then applies to every filter)."""
    fic = c // groups
    h, w_ = size
    (oh, pt), (ow, pl) = (
        _axis(rng, h, kh, stride[0], dilation[0], mode),
        _axis(rng, w_, kw, stride[1], dilation[1], mode),
    )
    zp_in = int(rng.integers(-128, 127, endpoint=True)) if zp_in is None else zp_in
    zp_out = int(rng.integers(-128, 127, endpoint=True))
    x = rng.integers(-128, 127, (1, h, w_, c), endpoint=True).astype(np.int8)
    w = rng.integers(-127, 127, (oc, kh, kw, fic), endpoint=True).astype(np.int8)
    bias = rng.integers(-(1 << 16), 1 << 16, oc).astype(np.int32)
    mult, shift = _quant(rng, oc, left)
    if right_only:
        shift = np.minimum(shift, -1).astype(np.int32)
    act = (-128, 127) if rng.random() < 0.5 else (-300, 300)
    if rng.random() < 0.3:
        act = (int(zp_out), 127)  # a RELU-like clamp
    return conv_call_case(
        x, w, bias, mult, shift, (oh, ow), stride, (pt, pl), dilation, zp_in, zp_out, act, fast=fast
    )


def conv_call_case(
    x, w, bias, mult, shift, out_hw, stride, pads, dilation, zp_in, zp_out, act, *, fast=True
) -> Case:
    """The Case of one int8 CONV_2D call on x (NHWC) with filters w (OHWI): its params fields,
    the numpy reference's bytes and, for the fast paths (fast), the folded bias and the scratch."""
    batches, h, w_, c = x.shape
    oc, kh, kw, fic = w.shape
    (oh, ow), (pt, pl) = out_hw, pads
    fields = dict(
        batches=batches,
        input_height=h,
        input_width=w_,
        input_channels=c,
        filter_height=kh,
        filter_width=kw,
        filter_input_channels=fic,
        output_height=oh,
        output_width=ow,
        output_channels=oc,
        stride_height=stride[0],
        stride_width=stride[1],
        dilation_height=dilation[0],
        dilation_width=dilation[1],
        pad_top=pt,
        pad_left=pl,
        input_offset=-zp_in,
        output_offset=zp_out,
        act_min=act[0],
        act_max=act[1],
    )
    acc = ref.conv_accumulate(x, w, (oh, ow), stride, (pt, pl), dilation, input_offset=-zp_in)
    expected = ref.requantize(acc, bias, mult, shift, zp_out, act, np.int8)
    folded = offset_bias(w, bias, -zp_in, 0, pad_to=4) if fast else None
    scratch = conv_s8_scratch_bytes(kh, kw, fic, c, oc) if fast else 0
    return Case("conv", fields, x, w, bias, mult, shift, folded, scratch, expected)


def dw_case(
    rng,
    c,
    kh,
    kw,
    *,
    dm=1,
    stride=(1, 1),
    dilation=(1, 1),
    mode="SAME",
    fast=True,
    left=False,
    zp_in=None,
    size=(6, 5),
    with_bias=True,
    right_only=False,
) -> Case:
    """A depthwise case; ``right_only`` clips every shift to at most -1 (the DSP path's Q30
    requantization, hk_requant.h, then applies to every channel)."""
    h, w_ = size
    oc = c * dm
    (oh, pt), (ow, pl) = (
        _axis(rng, h, kh, stride[0], dilation[0], mode),
        _axis(rng, w_, kw, stride[1], dilation[1], mode),
    )
    zp_in = int(rng.integers(-128, 127, endpoint=True)) if zp_in is None else zp_in
    zp_out = int(rng.integers(-128, 127, endpoint=True))
    x = rng.integers(-128, 127, (1, h, w_, c), endpoint=True).astype(np.int8)
    w = rng.integers(-127, 127, (1, kh, kw, oc), endpoint=True).astype(np.int8)
    bias = rng.integers(-(1 << 16), 1 << 16, oc).astype(np.int32) if with_bias else None
    mult, shift = _quant(rng, oc, left)
    if right_only:
        shift = np.minimum(shift, -1).astype(np.int32)
    # The full range, a clamp wider than int8, or a ReLU (the lower bound at the output zero
    # point, where Helium's requantization leaves out its rounding fixup).
    pick = rng.random()
    act = (-128, 127) if pick < 0.4 else (-300, 300) if pick < 0.7 else (zp_out, 127)
    fields = dict(
        batches=1,
        input_height=h,
        input_width=w_,
        input_channels=c,
        depth_multiplier=dm,
        filter_height=kh,
        filter_width=kw,
        output_height=oh,
        output_width=ow,
        stride_height=stride[0],
        stride_width=stride[1],
        dilation_height=dilation[0],
        dilation_width=dilation[1],
        pad_top=pt,
        pad_left=pl,
        input_offset=-zp_in,
        output_offset=zp_out,
        act_min=act[0],
        act_max=act[1],
    )
    acc = ref.depthwise_accumulate(x, w, dm, (oh, ow), stride, (pt, pl), dilation, input_offset=-zp_in)
    expected = ref.requantize(acc, bias, mult, shift, zp_out, act, np.int8)
    folded = offset_bias(w, bias, -zp_in, 3) if fast else None
    return Case("dw", fields, x, w, bias, mult, shift, folded, 0, expected)


def cases() -> list[Case]:
    rng = np.random.default_rng(20240611)
    out = [
        conv_case(rng, 1, 8, 10, 4, stride=(2, 2), size=(12, 6)),  # KWS's first layer
        conv_case(rng, 3, 8, 3, 3, stride=(2, 2), size=(7, 7)),  # 27 taps: 2 vectors
        conv_case(rng, 16, 16, 3, 3, size=(5, 5)),  # 144 taps: chunks
        conv_case(rng, 64, 5, 3, 3, size=(3, 4)),  # 576 taps, 5 filters
        conv_case(rng, 64, 16, 1, 1, mode="VALID"),  # pointwise, direct
        conv_case(rng, 8, 16, 1, 1, stride=(2, 2), mode="VALID", size=(5, 7)),
        conv_case(rng, 17, 7, 1, 1, mode="FREE"),  # 1x1 with padding
        conv_case(rng, 5, 3, 2, 3, dilation=(2, 2), mode="SAME", size=(7, 6)),
        conv_case(rng, 20, 6, 3, 2, stride=(1, 2), dilation=(1, 2), mode="FREE", size=(5, 8)),
        conv_case(rng, 33, 4, 2, 2, mode="VALID", zp_in=-128),
        conv_case(rng, 16, 9, 3, 3, zp_in=127, left=True),  # left shifts
        conv_case(rng, 12, 6, 3, 3, groups=3),  # grouped: generic
        conv_case(rng, 16, 8, 3, 3, fast=False),  # no folded bias
        conv_case(rng, 48, 2, 1, 1, stride=(3, 1), mode="SAME", size=(7, 3)),
        conv_case(rng, 5, 7, 2, 3),  # 30 taps, 7 filters
        conv_case(rng, 25, 4, 2, 2, mode="VALID"),  # 100: chunk + 36
        conv_case(rng, 32, 13, 3, 3, size=(5, 5)),  # rows in place, 13
        conv_case(rng, 24, 8, 2, 2, size=(4, 5)),  # 48-byte rows
        conv_case(rng, 16, 4, 3, 3, dilation=(2, 1), size=(7, 6)),  # dilated rows
        conv_case(rng, 8, 5, 1, 1, mode="VALID"),  # 4 pixels a pass
        conv_case(rng, 16, 3, 1, 1, mode="VALID", size=(3, 3)),  # 9 pixels
        conv_case(rng, 16, 6, 1, 1, mode="VALID", left=True),
        dw_case(rng, 64, 3, 3, size=(5, 4)),  # 16-channel blocks
        dw_case(rng, 8, 3, 3, stride=(2, 2), size=(7, 7)),  # 4-channel blocks
        dw_case(rng, 20, 3, 3, mode="FREE"),  # 16 + 4 channels
        dw_case(rng, 35, 5, 5, dilation=(2, 1), size=(8, 6)),  # 16+16+3 channels
        dw_case(rng, 16, 3, 3, left=True),  # left: 4-lane path
        dw_case(rng, 32, 2, 3, stride=(1, 2), mode="VALID", zp_in=-128, with_bias=False),
        dw_case(rng, 17, 3, 3, zp_in=127, mode="FREE", with_bias=False),
        dw_case(rng, 3, 3, 3, dm=4),  # multiplier: generic
        dw_case(rng, 16, 3, 3, fast=False),  # no folded bias
        dw_case(rng, 1, 3, 1, size=(9, 1)),
        # Helium's two-pixel loop (rows in place, or few filters over gathered windows): pairs
        # that straddle the image edge and rows, an odd last pixel, partial filter groups.
        conv_case(rng, 16, 5, 3, 3, size=(6, 7)),
        conv_case(rng, 32, 6, 3, 3, stride=(2, 2), mode="VALID", size=(9, 11)),
        conv_case(rng, 3, 3, 3, 3, stride=(2, 2), size=(9, 9)),
        conv_case(rng, 16, 2, 2, 3, dilation=(2, 1), mode="FREE", size=(7, 5)),
        # Without offset_bias the DSP and plain-C walks give the columns whose windows lie inside
        # the image's width the whole filter row, the others hk_window_taps' cut: strides, dilated
        # and padded columns, an image narrower than the filter (no inside column at all).
        dw_case(rng, 8, 3, 3, stride=(2, 2), size=(7, 7), fast=False),
        dw_case(rng, 12, 2, 3, stride=(1, 2), dilation=(1, 2), mode="FREE", size=(5, 9), fast=False),
        dw_case(rng, 5, 3, 5, size=(4, 3), fast=False),
        dw_case(rng, 4, 1, 4, stride=(1, 3), mode="VALID", size=(3, 10), fast=False, with_bias=False),
    ]
    return out


@dataclass(slots=True)
class RequantRow:
    """One hk_requant_row_s8 call on extreme values, for the mode hk_requant_mode picks."""

    acc: np.ndarray
    mult: np.ndarray
    shift: np.ndarray
    offset: int
    act: tuple[int, int]
    expected: np.ndarray


def requant_rows() -> list[RequantRow]:
    """General (left shifts, INT32_MIN multipliers), right-only and narrow-shift rows, with
    accumulators at and near the int32 limits (where the narrow form's add saturates); the last
    (multipliers in [2^30, 2^31), every shift in [-31, -1], the full int8 clamp) takes the DSP
    path's single-SMMLAR form (HK_REQUANT_Q30), as the third does with a narrower clamp."""
    rng = np.random.default_rng(7)
    edge = np.array([2**31 - 1, -(2**31), 2**31 - 2, -(2**31) + 1, 0, 1, -1, 2**30, -(2**30)], np.int64)
    rows = []
    for low, high, n, odd_mult in (
        (-31, 8, 37, True),
        (-31, 0, 38, False),
        (-23, -1, 41, False),
        (-31, -1, 43, False),
    ):
        acc = np.concatenate([edge, rng.integers(-(2**31), 2**31, n - edge.size)]).astype(np.int32)
        mult = rng.integers(1 << 30, 2**31, n).astype(np.int32)
        mult[:3] = 2**31 - 1
        if odd_mult:
            mult[3:6] = -(2**31)
            mult[6:9] = rng.integers(-(2**31), 0, 3)
        shift = rng.integers(low, high, n, endpoint=True).astype(np.int32)
        shift[:2] = (low, high)
        offset = int(rng.integers(-128, 127, endpoint=True))
        act = (-128, 127) if low < -23 else (-5, 100)
        if high == -1 and low == -31:
            shift[:5] = (-1, -1, -1, -2, -31)  # e = 1 at the int32 limits
        expected = ref.requantize(acc, None, mult, shift, offset, act, np.int8)
        rows.append(RequantRow(acc, mult, shift, offset, act, expected))
    return rows


def c_array(ctype: str, name: str, values) -> str:
    flat = ", ".join(str(int(v)) for v in np.asarray(values).reshape(-1))
    n = max(np.asarray(values).size, 1)
    return f"static const {ctype} {name}[{n}] __attribute__((aligned(16))) = {{{flat or '0'}}};\n"


def folded_into_bias(c: Case) -> Case | None:
    """Case ``c`` as goal size calls it where the input offset folds into the bias it replaces:
    the bias ``bias + input_offset * Sum(w)`` per output channel, an input offset of 0 and the
    same expected bytes; None where that is not exact (a window reaching outside the image,
    whose padded taps would then miss their offset term) or there is no bias to replace."""
    f = c.fields
    inside = all(
        f[f"pad_{edge}"] == 0
        and (f[f"output_{axis}"] - 1) * f[f"stride_{axis}"]
        + (f[f"filter_{axis}"] - 1) * f[f"dilation_{axis}"]
        + 1
        <= f[f"input_{axis}"]
        for edge, axis in (("top", "height"), ("left", "width"))
    )
    if not inside or c.bias is None:
        return None
    folded = offset_bias(c.w, c.bias, f["input_offset"], 0 if c.kind == "conv" else 3)
    return replace(c, fields=dict(f, input_offset=0), bias=folded, folded=None, scratch=0)


def case_arrays(c: Case, i: int) -> tuple[list[str], str]:
    """The C arrays of case ``i`` (input, filter, multipliers, shifts, expected output, and the bias
    when it has one) and the bias argument a kernel call takes (``NULL`` without one)."""
    parts = [
        c_array(ctype, f"c{i}_{name}", arr)
        for name, arr, ctype in (
            ("x", c.x, "int8_t"),
            ("w", c.w, "int8_t"),
            ("m", c.mult, "int32_t"),
            ("s", c.shift, "int32_t"),
            ("y", c.expected, "int8_t"),
        )
    ]
    if c.bias is None:
        return parts, "NULL"
    parts.append(c_array("int32_t", f"c{i}_b", c.bias))
    return parts, f"c{i}_b"


def program(all_cases: list[Case], rows: list[RequantRow] | None = None) -> str:
    parts = [
        '#include <stdio.h>\n#include <string.h>\n#include "hk_conv.h"\n#include "hk_depthwise.h"\n'
        '#include "hk_isa.h"\n#include "hk_requant.h"\n\n'
    ]
    scratch = max([c.scratch for c in all_cases] + [16])
    out_size = max(c.expected.size for c in all_cases)
    parts.append(f"static uint8_t scratch[{scratch}] __attribute__((aligned(16)));\n")
    parts.append(f"static int8_t out[{out_size}];\n\n")
    calls = []
    for i, c in enumerate(all_cases):
        arrays, bias = case_arrays(c, i)
        parts += arrays
        folded = "NULL"
        if c.folded is not None:
            parts.append(c_array("int32_t", f"c{i}_f", c.folded))
            folded = f"c{i}_f"
        fields = CONV_FIELDS if c.kind == "conv" else DW_FIELDS
        init = ", ".join(f".{k} = {c.fields[k]}" for k in fields)
        init += f", .output_multiplier = c{i}_m, .output_shift = c{i}_s, .offset_bias = {folded}"
        if c.kind == "conv":
            init += f", .scratch = {'scratch' if c.scratch else 'NULL'}, .scratch_size = {c.scratch}"
            call = f"hk_conv_s8(&p{i}, c{i}_x, c{i}_w, {bias}, out)"
            ptype = "hk_conv_params_t"
        else:
            call = f"hk_depthwise_s8(&p{i}, c{i}_x, c{i}_w, {bias}, out)"
            ptype = "hk_depthwise_params_t"
        calls.append(f"""    {{
        const {ptype} p{i} = {{{init}}};
        memset(out, 0x5A, sizeof out);
        const int32_t status = {call};
        if (status != 0 || memcmp(out, c{i}_y, {c.expected.size}u) != 0) {{
            printf("case {i} ({c.kind}) differs (status %ld)\\n", (long)status);
            ++failures;
        }}
    }}
""")
    rows = requant_rows() if rows is None else rows
    for i, r in enumerate(rows):
        for name, arr, ctype in (
            ("a", r.acc, "int32_t"),
            ("m", r.mult, "int32_t"),
            ("s", r.shift, "int32_t"),
            ("y", r.expected, "int8_t"),
        ):
            parts.append(c_array(ctype, f"r{i}_{name}", arr))
        n = r.acc.size
        calls.append(f"""    hk_requant_row_s8(r{i}_a, r{i}_m, r{i}_s, {n}, {r.offset}, {r.act[0]},
                      {r.act[1]},
                      hk_requant_mode(r{i}_m, r{i}_s, {n}), out);
    if (memcmp(out, r{i}_y, {n}u) != 0) {{
        printf("requantization row {i} differs\\n");
        ++failures;
    }}
""")
    parts.append('\nint main(void)\n{\n    int failures = 0;\n    printf("path %s\\n", HK_ISA_PATH);\n')
    parts.extend(calls)
    total = len(all_cases) + len(rows)
    parts.append(f'    printf("%d of {total} cases differ\\n", failures);\n    return failures;\n}}\n')
    return "".join(parts)


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("conv_paths") / "main.c"
    path.write_text(program(cases()))
    return path


@pytest.mark.parametrize("path_name", sorted(PATHS))
def test_every_path_matches_the_reference(path_name, source, tmp_path):
    run = run_program(source, tmp_path, PATHS[path_name], ("conv", "depthwise"))
    assert f"0 of {len(cases()) + len(requant_rows())} cases differ" in run.stdout
