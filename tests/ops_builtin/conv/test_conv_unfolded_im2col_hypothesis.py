"""Goal size's int8 CONV_2D over few input channels (hk_conv_s8_unfolded_im2col) on cases
hypothesis draws, beside the portable path.

Why: at ``optimization.goal: size`` a convolution has neither the folded offset_bias nor a buffer
in the arena, and hk_conv_s8_unfolded hands its first layers (at most 8 input channels) to this
Helium entry, which gathers each window into a column on its own stack and takes the input
offset from each filter's sum computed at run time. Hypothesis draws convolutions over 1 to 8
input channels with kernels of 1 to 10 rows and columns, strides 1 and 2, SAME / VALID /
explicit padding, dilated rows, zero points, per-channel multipliers (some shifting left),
clamps, odd pixel counts and filter counts that are not a multiple of four, and row slices of
them (a band of input rows with its own pad_top, as row loops and patch stages call it). One
program holding all of a draw's cases is cross-built for Helium at -O2 (the assembly) and -O0
(its intrinsics stand-in) and for the M55 without MVE (where hk_conv_s8_unfolded runs the general
loop), each compared byte for byte with the numpy reference. On Helium the entry is also called
directly: it must take every call it covers (status 0, the reference's bytes) and refuse the
others, so a pass proves the new path ran where it should. Cases whose windows all lie in the
image run again in goal size's folded form (the bias it replaces holds the input offset's term,
the input offset is 0, so the sums the entry takes add nothing).

Assembly blocks this test checks (test_asm_inventory.py lists every block with its test):
UI_DOT4X2_RUN, ui_dot4x2_edge, ui_rows2 and ui_group (hk_conv_unfolded_im2col_mve.c).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ops_builtin.conv.test_conv_paths import CONV_FIELDS, Case, case_arrays, conv_case, folded_into_bias
from ops_builtin.support import conv_family_refmodels as ref
from ops_builtin.support.cross_check import FEW_BUILDS, check_program, drawn_cases, paths

pytestmark = [pytest.mark.cross]

PATHS = paths("m55-mve", "m55-mve-O0", "m55-dsp")


def pointwise(c: Case) -> bool:
    """Whether the call is pointwise with every pixel in the image (the pointwise loop's)."""
    f = c.fields
    return (
        (f["filter_height"], f["filter_width"], f["pad_top"], f["pad_left"]) == (1, 1, 0, 0)
        and (f["output_height"] - 1) * f["stride_height"] < f["input_height"]
        and (f["output_width"] - 1) * f["stride_width"] < f["input_width"]
    )


def covered(c: Case) -> bool:
    """Whether hk_conv_s8_unfolded_im2col takes the call (its header's conditions)."""
    f = c.fields
    taps = f["filter_height"] * f["filter_width"] * f["input_channels"]
    return f["input_channels"] <= 8 and f["dilation_width"] == 1 and (pointwise(c) or taps <= 64)


ENTRIES = ("hk_conv_s8_unfolded_columns", "hk_conv_s8_unfolded_few_pointwise", "hk_conv_s8_unfolded_in_place")
"""The family's entries a layer's geometry names (hk_conv_unfolded.h): each gives the
reference's bytes for any call, so every case runs through each."""


def column_calls(i: int, c: Case, bias: str) -> list[str]:
    """Case i through the Helium column entries, each of which must take exactly the calls it
    covers (the reference's bytes) and refuse the others having written nothing."""
    takes = {
        "hk_conv_s8_unfolded_im2col": covered(c),
        "hk_conv_s8_unfolded_im2col_windows": windows_covered(c),
        "hk_conv_s8_unfolded_im2col_pointwise": covered(c) and pointwise(c),
    }
    return [
        f"""        memset(out, 0x5A, sizeof out);
        status = {entry}(&p, c{i}_x, c{i}_w, {bias}, out);
        if ({int(taken)} ? status != 0 || memcmp(out, c{i}_y, {c.expected.size}u) != 0
                       : status != HK_STATUS_BAD_PARAM || out[0] != 0x5A) {{
            printf("case {i} {entry} differs (status %ld)\\n", (long)status);
            ++failures;
        }}
"""
        for entry, taken in takes.items()
    ]


def entry_calls(i: int, c: Case, bias: str) -> list[str]:
    """Case i through each of ENTRIES, counting wrong bytes or status."""
    return [
        f"""        memset(out, 0x5A, sizeof out);
        status = {entry}(&p, c{i}_x, c{i}_w, {bias}, out);
        if (status != 0 || memcmp(out, c{i}_y, {c.expected.size}u) != 0) {{
            printf("case {i} {entry} differs (status %ld)\\n", (long)status);
            ++failures;
        }}
"""
        for entry in ENTRIES
    ]


def windows_covered(c: Case) -> bool:
    """Whether hk_conv_s8_unfolded_im2col_windows takes the call: a covered call that is not
    pointwise, or a pointwise one whose window (one pixel) fits a column; no pointwise loop."""
    f = c.fields
    taps = f["filter_height"] * f["filter_width"] * f["input_channels"]
    return f["input_channels"] <= 8 and f["dilation_width"] == 1 and taps <= 64


def band(c: Case, first: int, last: int) -> Case:
    """Output rows [first, last) of c as a row loop calls them: only the input rows their
    windows reach, the rows above the band's first counted in its pad_top."""
    f = c.fields
    top = first * f["stride_height"] - f["pad_top"]
    reach = (last - 1) * f["stride_height"] - f["pad_top"]
    reach += (f["filter_height"] - 1) * f["dilation_height"] + 1
    y0, y1 = max(top, 0), min(max(reach, 1), f["input_height"])
    y0 = min(y0, y1 - 1)  # windows wholly below the image still need one row to point at
    fields = dict(f, input_height=y1 - y0, pad_top=y0 - top, output_height=last - first)
    return dataclasses.replace(
        c, fields=fields, x=c.x[:, y0:y1].copy(), expected=c.expected[:, first:last].copy()
    )


def unfolded_program(cases: list[Case]) -> str:
    """A main that runs every case through hk_conv_s8_unfolded and the other entries (and, on
    Helium, through hk_conv_s8_unfolded_im2col and its windows and pointwise parts, which must
    take exactly the calls they cover) and counts the calls whose status or bytes are wrong."""
    parts = [
        '#include <stdio.h>\n#include <string.h>\n#include "hk_conv_unfolded.h"\n'
        '#include "hk_conv_unfolded_im2col.h"\n#include "hk_isa.h"\n\n'
    ]
    out_size = max(c.expected.size for c in cases)
    parts.append(f"static int8_t out[{out_size}];\n\n")
    calls = []
    for i, c in enumerate(cases):
        arrays, bias = case_arrays(c, i)
        parts += arrays
        init = ", ".join(f".{k} = {c.fields[k]}" for k in CONV_FIELDS)
        init += f", .output_multiplier = c{i}_m, .output_shift = c{i}_s"
        calls.append(f"""    {{
        const hk_conv_params_t p = {{{init}}};
        memset(out, 0x5A, sizeof out);
        int32_t status = hk_conv_s8_unfolded(&p, c{i}_x, c{i}_w, {bias}, out);
        if (status != 0 || memcmp(out, c{i}_y, {c.expected.size}u) != 0) {{
            printf("case {i} unfolded differs (status %ld)\\n", (long)status);
            ++failures;
        }}
#if HK_HAVE_MVE
{"".join(column_calls(i, c, bias))}#endif
{"".join(entry_calls(i, c, bias))}    }}
""")
    parts.append('\nint main(void)\n{\n    int failures = 0;\n    printf("path %s\\n", HK_ISA_PATH);\n')
    parts.extend(calls)
    parts.append(f'    printf("%d of {len(cases)} cases differ\\n", failures);\n    return failures;\n}}\n')
    return "".join(parts)


@st.composite
def few_channel_case(draw):
    """Keyword arguments of conv_case for a convolution over few input channels, and the output
    rows of a band of it (None: the whole call)."""
    c = draw(st.integers(1, 8))
    kh = draw(st.integers(1, 10))
    kw = draw(st.integers(1, 10 if c <= 2 else 4))
    dilation = (draw(st.integers(1, 2)), draw(st.sampled_from([1, 1, 1, 2])))
    kwargs = dict(
        c=c,
        oc=draw(st.sampled_from([1, 2, 3, 4, 5, 7, 8, 13, 36])),
        kh=kh,
        kw=kw,
        stride=(draw(st.integers(1, 2)), draw(st.integers(1, 2))),
        dilation=dilation,
        mode=draw(st.sampled_from(["SAME", "VALID", "FREE"])),
        size=(
            (kh - 1) * dilation[0] + 1 + draw(st.integers(0, 8)),
            (kw - 1) * dilation[1] + 1 + draw(st.integers(0, 6)),
        ),
        left=draw(st.booleans()),
        seed=draw(st.integers(0, 2**32 - 1)),
    )
    return kwargs, draw(st.none() | st.tuples(st.floats(0, 1), st.floats(0, 1)))


def sliced(drawn) -> list[Case]:
    """The drawn cases, each whole or as the band of output rows its fractions pick."""
    cases = []
    for kwargs, rows in drawn:
        case = drawn_cases([kwargs], lambda rng, **kw: conv_case(rng, fast=False, **kw))[0]
        if rows is not None:
            oh = case.fields["output_height"]
            first = min(int(rows[0] * oh), oh - 1)
            last = first + 1 + min(int(rows[1] * (oh - first)), oh - first - 1)
            case = band(case, first, last)
        cases.append(case)
    return cases


def first_layers() -> list[Case]:
    """The MLPerf first layers' geometries (small images), whole and in bands: KWS 10x4 stride 2
    over one channel (64 filters: two passes of 32), ResNet 3x3 over three, VWW 3x3 stride 2
    over three and its pointwise 8 -> 16, one without a bias."""
    rng = np.random.default_rng(18)
    kws = conv_case(rng, 1, 64, 10, 4, stride=(2, 2), size=(13, 10), fast=False)
    resnet = conv_case(rng, 3, 16, 3, 3, size=(8, 8), fast=False)
    vww = conv_case(rng, 3, 8, 3, 3, stride=(2, 2), size=(9, 10), fast=False)
    pointwise = conv_case(rng, 8, 16, 1, 1, size=(5, 7), fast=False)
    with_bias = conv_case(rng, 2, 6, 3, 2, size=(5, 4), fast=False, zp_in=-128)
    f = with_bias.fields
    acc = ref.conv_accumulate(
        with_bias.x,
        with_bias.w,
        (f["output_height"], f["output_width"]),
        (f["stride_height"], f["stride_width"]),
        (f["pad_top"], f["pad_left"]),
        (f["dilation_height"], f["dilation_width"]),
        input_offset=f["input_offset"],
    )
    act = (f["act_min"], f["act_max"])
    expected = ref.requantize(acc, None, with_bias.mult, with_bias.shift, f["output_offset"], act, np.int8)
    no_bias = dataclasses.replace(with_bias, bias=None, expected=expected)
    return [
        kws,
        band(kws, 0, 3),
        band(kws, 11, 13),
        resnet,
        band(resnet, 3, 5),
        vww,
        band(vww, 4, 5),
        pointwise,
        band(pointwise, 1, 4),
        no_bias,
    ]


@pytest.mark.parametrize("path_name", sorted(PATHS))
@FEW_BUILDS
@given(drawn=st.lists(few_channel_case(), min_size=12, max_size=14))
def test_unfolded_im2col_matches_the_reference(path_name, drawn, tmp_path_factory):
    cases = first_layers() + sliced(drawn)
    # Goal size's folded form where it is exact: the bias it replaces, an input offset of 0.
    cases += [f for f in map(folded_into_bias, cases) if f is not None]
    check_program(
        unfolded_program(cases),
        tmp_path_factory.mktemp("conv_unfolded_im2col"),
        PATHS[path_name],
        ("conv_unfolded",),
        len(cases),
    )
