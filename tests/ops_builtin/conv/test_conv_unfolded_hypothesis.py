"""Goal size's int8 CONV_2D (hk_conv_s8_unfolded) against the reference on cases hypothesis draws.

At ``optimization.goal: size`` convolutions run from the model's own bias with no folded
constant and no buffer: on Helium two pixels against four filters at a time, each window read
where it lies in the image, pixels paired only with a pixel whose window the image cuts the same
way, and the filters' sums taken at run time once per group of filters and window shape
(hk_conv_unfolded_mve.c). Row loops and patch stages call the kernel on a slice of output rows
(an input pointer moved down, fewer input rows, a smaller or zero pad_top), so every case here
is also run as such slices. Hypothesis draws geometry in and around that space (1x1 and k x k
filters, strides, padding on every edge, dilated rows, which Helium's loop handles, and dilated
columns, which fall back to the general loop; channel counts that are not multiples of 4 or 16;
short rows; odd pixel counts); one program holding a draw's cases is cross-built for the M55 at
-O2 (the assembly), at -O0 (its intrinsics stand-in) and without MVE (the portable loop), and
each output is checked byte for byte against the numpy reference. Every case whose windows all
lie in the image also runs in goal size's folded form (the input offset folded into the bias it
replaces, an input offset of 0: the kernel then skips the filters' sums).

Assembly blocks this test checks (test_asm_inventory.py lists every block with its test):
unfolded_chunk (hk_conv_unfolded_mve.c).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ops_builtin.conv.test_conv_paths import (
    CONV_FIELDS,
    Case,
    case_arrays,
    conv_call_case,
    conv_case,
    folded_into_bias,
)
from ops_builtin.support import conv_family_refmodels as ref
from ops_builtin.support.cross_check import FEW_BUILDS, check_program, drawn_cases, paths

pytestmark = [pytest.mark.cross]

PATHS = paths("m55-mve", "m55-mve-O0", "m55-portable")
ENTRIES = (
    "hk_conv_s8_unfolded",
    "hk_conv_s8_unfolded_in_place",
    "hk_conv_s8_unfolded_columns",
    "hk_conv_s8_unfolded_few_pointwise",
)
"""The family's entries (hk_conv_unfolded.h): the converter names one per layer by its geometry,
and each must give the reference's bytes for any call (its loops where they apply, else the
general loop), so every case and slice runs through each."""


def row_slices(rng: np.random.Generator, case: Case) -> list[tuple[int, int]]:
    """The whole output, then one random cut of its rows into consecutive slices."""
    oh = case.fields["output_height"]
    cuts = sorted({int(c) for c in rng.integers(1, oh, size=int(rng.integers(0, 3)))} if oh > 1 else set())
    bounds = [0, *cuts, oh]
    return [(0, oh)] + [(a, b) for a, b in zip(bounds, bounds[1:]) if b > a]


def slice_fields(case: Case, r0: int, r1: int) -> tuple[dict, int] | None:
    """The params of the call for output rows [r0, r1) as a row loop makes it (input from its
    first row in use, pad_top what is left of the padding), and the input byte it starts at;
    None when those rows' windows read no input row (all padding: no row loop calls that)."""
    f = dict(case.fields)
    if r0 == 0 and r1 == f["output_height"]:
        return f, 0
    sh, dh, kh = f["stride_height"], f["dilation_height"], f["filter_height"]
    top = r0 * sh - f["pad_top"]
    first = max(top, 0)
    last = min(f["input_height"], (r1 - 1) * sh - f["pad_top"] + (kh - 1) * dh + 1)
    if last <= first:
        return None
    f["input_height"] = last - first
    f["pad_top"] = first - top
    f["output_height"] = r1 - r0
    return f, first * f["input_width"] * f["input_channels"]


def program(cases: list[Case], seed: int) -> tuple[str, int]:
    """A C program calling each entry on every case and slice, counting the calls
    whose bytes differ from the reference's; returns the text and the number of calls."""
    rng = np.random.default_rng(seed)
    out_size = max(c.expected.size for c in cases)
    parts = [
        '#include <stdio.h>\n#include <string.h>\n#include "hk_conv_unfolded.h"\n#include "hk_isa.h"\n\n',
        f"static int8_t out[{out_size + 16}];\n\n",
    ]
    calls = []
    for i, c in enumerate(cases):
        arrays, bias = case_arrays(c, i)
        parts += arrays
        row_bytes = c.fields["output_width"] * c.fields["output_channels"]
        for r0, r1 in row_slices(rng, c):
            sliced = slice_fields(c, r0, r1)
            if sliced is None:
                continue
            f, start = sliced
            init = ", ".join(f".{k} = {f[k]}" for k in CONV_FIELDS)
            init += f", .output_multiplier = c{i}_m, .output_shift = c{i}_s"
            init += ", .offset_bias = NULL, .scratch = NULL, .scratch_size = 0"
            n = (r1 - r0) * row_bytes
            for entry in ENTRIES:
                calls.append(f"""    {{
        const hk_conv_params_t p = {{{init}}};
        memset(out, 0x5A, sizeof out);
        const int32_t status = {entry}(&p, c{i}_x + {start}, c{i}_w, {bias}, out);
        if (status != 0 || memcmp(out, c{i}_y + {r0 * row_bytes}, {n}u) != 0 ||
            out[{n}] != 0x5A) {{
            printf("case {i} rows {r0}..{r1} {entry} differs (status %ld)\\n", (long)status);
            ++failures;
        }}
        ++calls;
    }}
""")
    parts.append(
        '\nint main(void)\n{\n    int failures = 0, calls = 0;\n    printf("path %s\\n", HK_ISA_PATH);\n'
    )
    parts.extend(calls)
    parts.append('    printf("%d of %d calls differ\\n", failures, calls);\n    return failures;\n}\n')
    return "".join(parts), len(calls)


@st.composite
def unfolded_case(draw):
    """Keyword arguments of conv_case for a convolution goal size runs (no grouped filters)."""
    pointwise = draw(st.booleans())
    kh, kw = (1, 1) if pointwise else (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    channels = draw(st.sampled_from([3, 8, 12, 16, 17, 24, 32, 40, 64, 72]))
    oc = draw(st.integers(1, 11))
    stride = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    dilation = (draw(st.integers(1, 2)), draw(st.sampled_from([1, 1, 1, 2])))
    mode = draw(st.sampled_from(["SAME", "VALID", "FREE"]))
    size = (draw(st.integers(kh * dilation[0], 7)), draw(st.integers(kw * dilation[1], 7)))
    return dict(
        c=channels,
        oc=oc,
        kh=kh,
        kw=kw,
        stride=stride,
        dilation=dilation,
        mode=mode,
        size=size,
        left=draw(st.booleans()),
        zp_in=draw(st.sampled_from([None, -128, 127])),
        seed=draw(st.integers(0, 2**32 - 1)),
    )


def fixed_cases() -> list[Case]:
    """The MLPerf shapes goal size runs through this kernel, smaller: KWS's pointwise 64->64 on
    rows of 5, ResNet's 3x3 blocks and 1x1 stride-2 shortcuts, VWW's pointwise layers."""
    rng = np.random.default_rng(18)
    return [
        conv_case(rng, 64, 64, 1, 1, mode="VALID", size=(3, 5), fast=False),
        conv_case(rng, 16, 16, 3, 3, size=(6, 6), fast=False),
        conv_case(rng, 16, 32, 3, 3, stride=(2, 2), size=(8, 8), fast=False),
        conv_case(rng, 32, 12, 3, 3, size=(5, 5), fast=False),
        conv_case(rng, 64, 8, 3, 3, size=(4, 4), fast=False),
        conv_case(rng, 32, 20, 1, 1, stride=(2, 2), mode="VALID", size=(6, 6), fast=False),
        conv_case(rng, 128, 9, 1, 1, mode="VALID", size=(3, 3), fast=False),
        conv_case(rng, 8, 16, 1, 1, mode="VALID", size=(4, 7), fast=False),
        *pointwise_span_cases(rng),
    ]


def pointwise_span_cases(rng: np.random.Generator) -> list[Case]:
    """Pointwise calls whose pixels are one span (unfolded_pw_asm's loop): 1..4 vectors of
    channels, even and odd pixel counts, a last group of fewer than four filters, a stride
    along the width (pixels two columns apart), clamps inside the int8 range and left shifts
    (the requantization's general form, on values small enough that the shift shows in the
    output instead of saturating it)."""
    cases = []
    for c, oc, size, stride, act, shifts, reach in (
        (16, 7, (4, 4), (1, 1), (-50, 60), (-10, -5), 127),
        (32, 4, (3, 6), (1, 2), (-128, 127), (-10, -5), 127),
        (48, 6, (2, 5), (1, 1), (-20, 127), (-10, -5), 127),
        (64, 9, (1, 2), (1, 1), (-128, 90), (-10, -5), 127),
        (64, 5, (2, 3), (1, 1), (-128, 127), (-1, 2), 2),
    ):
        h, w_ = size
        x = rng.integers(-reach, reach, (1, h, w_, c), endpoint=True).astype(np.int8)
        w = rng.integers(-reach, reach, (oc, 1, 1, c), endpoint=True).astype(np.int8)
        bias = rng.integers(-4 * reach, 4 * reach, oc).astype(np.int32)
        mult = rng.integers(1 << 30, (1 << 31) - 1, oc).astype(np.int32)
        shift = rng.integers(*shifts, oc, endpoint=True).astype(np.int32)
        out_hw = (h, (w_ - 1) // stride[1] + 1)
        zp_in = int(rng.integers(-reach, reach))
        zp_out = int(rng.integers(-20, 20))
        cases.append(
            conv_call_case(
                x, w, bias, mult, shift, out_hw, stride, (0, 0), (1, 1), zp_in, zp_out, act, fast=False
            )
        )
    return cases


def _no_folding(case: Case) -> Case:
    case.folded = None
    case.scratch = 0
    return case


@pytest.mark.parametrize("path_name", sorted(PATHS))
@FEW_BUILDS
@given(drawn=st.lists(unfolded_case(), min_size=8, max_size=12), seed=st.integers(0, 2**16))
def test_unfolded_conv_matches_the_reference(path_name, drawn, seed, tmp_path_factory):
    cases = [_no_folding(c) for c in drawn_cases(drawn, lambda rng, **kw: conv_case(rng, **kw))]
    cases += fixed_cases()
    # Goal size's folded form where it is exact: the bias it replaces, an input offset of 0.
    cases += [f for f in map(folded_into_bias, cases) if f is not None]
    text, calls = program(cases, seed)
    check_program(
        text,
        tmp_path_factory.mktemp("conv_unfolded"),
        PATHS[path_name],
        ("conv_unfolded",),
        calls,
        unit="calls",
    )


def test_slices_cover_the_output_rows():
    """The slices row loops would make: each call's input rows hold every row its windows read,
    and together the slices give the reference's output."""
    rng = np.random.default_rng(3)
    for kh, stride, mode in ((3, 1, "SAME"), (3, 2, "SAME"), (1, 2, "VALID"), (2, 1, "FREE")):
        case = conv_case(rng, 5, 3, kh, 2, stride=(stride, 1), mode=mode, size=(7, 5), fast=False)
        rows = []
        for r0, r1 in row_slices(rng, case)[1:]:
            sliced = slice_fields(case, r0, r1)
            assert sliced is not None
            f, start = sliced
            h, w, c = f["input_height"], f["input_width"], f["input_channels"]
            x = case.x.reshape(-1)[start : start + h * w * c].reshape(1, h, w, c)
            acc = ref.conv_accumulate(
                x,
                case.w,
                (f["output_height"], f["output_width"]),
                (f["stride_height"], f["stride_width"]),
                (f["pad_top"], f["pad_left"]),
                (f["dilation_height"], f["dilation_width"]),
                input_offset=f["input_offset"],
            )
            rows.append(
                ref.requantize(
                    acc,
                    case.bias,
                    case.mult,
                    case.shift,
                    f["output_offset"],
                    (f["act_min"], f["act_max"]),
                    np.int8,
                )
            )
        np.testing.assert_array_equal(np.concatenate(rows, axis=1), case.expected)


@st.composite
def pointwise_case(draw):
    """A pointwise call of the shapes unfolded_pointwise's loop takes and the ones it leaves to
    the general loop: channels multiples of 16 up to 272 (one to seventeen vectors: the first
    pass entered part-way, then whole passes) and a few that are not, 1..11 filters (a last
    group of fewer than four), 1..40 pixels (odd counts: the last pixel paired with itself),
    strides 1-2 on each axis (rows of even and odd width), input offset 0 (the bias read as it
    is) or not (the sums taken per group), with and without a bias, and shifts that are all
    right shifts (the narrow epilogue), include 0 or include left shifts."""
    c = draw(st.sampled_from([16, 32, 48, 64, 80, 128, 144, 256, 272, 24, 40]))
    oc = draw(st.integers(1, 11))
    sh, sw = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    h, w_ = draw(st.integers(1, 5)), draw(st.integers(1, 8))
    zero_offset = draw(st.booleans())
    with_bias = draw(st.booleans())
    shifts = draw(st.sampled_from([(-10, -5), (-10, 0), (-1, 2)]))
    return dict(
        c=c,
        oc=oc,
        stride=(sh, sw),
        size=(h, w_),
        zero_offset=zero_offset,
        with_bias=with_bias,
        shifts=shifts,
        seed=draw(st.integers(0, 2**32 - 1)),
    )


def make_pointwise(rng, c, oc, stride, size, zero_offset, with_bias, shifts):
    """The Case of one drawn pointwise call (values small enough for left shifts to show)."""
    reach = 2 if shifts[1] > 0 else 127
    h, w_ = size
    x = rng.integers(-reach, reach, (1, h, w_, c), endpoint=True).astype(np.int8)
    w = rng.integers(-reach, reach, (oc, 1, 1, c), endpoint=True).astype(np.int8)
    bias = rng.integers(-4 * reach, 4 * reach, oc).astype(np.int32) if with_bias else np.zeros(oc, np.int32)
    mult = rng.integers(1 << 30, (1 << 31) - 1, oc).astype(np.int32)
    shift = rng.integers(*shifts, oc, endpoint=True).astype(np.int32)
    out_hw = ((h - 1) // stride[0] + 1, (w_ - 1) // stride[1] + 1)
    zp_in = 0 if zero_offset else int(rng.integers(-reach, reach))
    act = (-128, 127) if rng.random() < 0.5 else (int(rng.integers(-60, 0)), int(rng.integers(1, 90)))
    case = conv_call_case(
        x,
        w,
        bias,
        mult,
        shift,
        out_hw,
        stride,
        (0, 0),
        (1, 1),
        zp_in,
        int(rng.integers(-20, 20)),
        act,
        fast=False,
    )
    if not with_bias:
        case.bias = None  # a zero bias is what a missing one means: the same expected bytes
    return case


@pytest.mark.parametrize("path_name", sorted(PATHS))
@FEW_BUILDS
@given(drawn=st.lists(pointwise_case(), min_size=10, max_size=14), seed=st.integers(0, 2**16))
def test_pointwise_calls_match_the_reference(path_name, drawn, seed, tmp_path_factory):
    """unfolded_pointwise (hk_conv_unfolded_mve.c) on drawn pointwise geometry, whole and in row
    slices, byte for byte against the numpy reference on the M55 at -O2, at -O0 and without MVE."""
    cases = [_no_folding(c) for c in drawn_cases(drawn, make_pointwise)]
    text, calls = program(cases, seed)
    check_program(
        text,
        tmp_path_factory.mktemp("conv_pointwise"),
        PATHS[path_name],
        ("conv_unfolded",),
        calls,
        unit="calls",
    )
