"""Helium's im2col int8 CONV_2D (hk_conv_im2col) against the reference on cases hypothesis draws.

The family gathers each output pixel's receptive field into a column and multiplies it by
filters packed at conversion (``im2col_packing``), four filters against two pixels at a time.
Hypothesis draws convolutions over few input channels (1 to 8: the first layers it is chosen
for), kernel sizes up to 10 x 4, strides, SAME / VALID / explicit padding, dilations, zero points,
per-channel multipliers (some shifting left), clamps, odd pixel counts and filter counts that
are not a multiple of four. One program holding all of a draw's cases is cross-built for Helium
at -O2 (the assembly) and -O0 (its intrinsics stand-in) and for the M55 without MVE (where the
entry hands the call to hk_conv_s8), each compared byte for byte with the numpy reference and
with hk_conv_s8 on the same call. On Helium the im2col entry gets a zeroed filter beside the
packed one: it must read only the packed filters, so a pass proves the fast path ran.

Assembly blocks this test checks (test_asm_inventory.py lists every block with its test):
im2col_dot4x2, im2col_dot4x2_q and im2col_dot4x2_pipe (hk_conv_im2col_mve.c; the pipelined
form for columns of two or three vectors, which the MLPerf first layers and most draws have).
"""

from __future__ import annotations

import numpy as np
import pytest
from helia_aot_ops_builtin.conv.im2col_packing import (
    im2col_column,
    im2col_general,
    im2col_half,
    im2col_packed,
    im2col_quant,
)
from hypothesis import given
from hypothesis import strategies as st

from ops_builtin.conv.test_conv_paths import CONV_FIELDS, Case, c_array, conv_case
from ops_builtin.support.cross_check import FEW_BUILDS, check_program, drawn_cases, paths

pytestmark = [pytest.mark.cross]

# m55-dsp: without MVE the entry hands the call to hk_conv_s8
PATHS = paths("m55-mve", "m55-mve-O0", "m55-dsp")


def im2col_program(cases: list[Case]) -> str:
    """A main that runs every case through hk_conv_s8_im2col and hk_conv_s8 and counts the
    calls whose bytes differ from the reference."""
    parts = ['#include <stdio.h>\n#include <string.h>\n#include "hk_conv_im2col.h"\n#include "hk_isa.h"\n\n']
    scratch = max(c.scratch for c in cases)
    out_size = max(c.expected.size for c in cases)
    zeros = max(c.w.size for c in cases)
    parts.append(f"static uint8_t scratch[{scratch}] __attribute__((aligned(16)));\n")
    parts.append(f"static int8_t out[{out_size}];\n")
    parts.append(f"static const int8_t zeros[{zeros}];\n\n")
    calls = []
    for i, c in enumerate(cases):
        kh, kw, fic = c.w.shape[1:]
        for name, arr, ctype in (
            ("x", c.x, "int8_t"),
            ("w", c.w, "int8_t"),
            ("k", im2col_packed(c.w), "int8_t"),
            ("q", im2col_quant(c.folded, c.mult, c.shift), "int32_t"),
            ("b", c.bias, "int32_t"),
            ("f", c.folded, "int32_t"),
            ("m", c.mult, "int32_t"),
            ("s", c.shift, "int32_t"),
            ("y", c.expected, "int8_t"),
        ):
            parts.append(c_array(ctype, f"c{i}_{name}", arr))
        init = ", ".join(f".{k} = {c.fields[k]}" for k in CONV_FIELDS)
        init += f", .output_multiplier = c{i}_m, .output_shift = c{i}_s, .offset_bias = c{i}_f"
        # An unpadded 1x1 filter reads its pixels in place: no scratch at all.
        direct = (kh, kw, c.fields["pad_top"], c.fields["pad_left"]) == (1, 1, 0, 0)
        init += (
            ", .scratch = NULL, .scratch_size = 0"
            if direct
            else f", .scratch = scratch, .scratch_size = {c.scratch}"
        )
        calls.append(f"""    {{
        const hk_conv_im2col_params_t q = {{.conv = {{{init}}}, .packed = c{i}_k,
                                            .column = {im2col_column(kh, kw, fic)}, .quant = c{i}_q,
                                            .general = {im2col_general(c.mult, c.shift)},
                                            .half = {int(im2col_half(kh, kw, fic))}}};
        /* On Helium only the packed filters may be read. */
        const int8_t *filter = HK_HAVE_MVE ? zeros : c{i}_w;
        memset(out, 0x5A, sizeof out);
        int32_t status = hk_conv_s8_im2col(&q, c{i}_x, filter, c{i}_b, out);
        if (status != 0 || memcmp(out, c{i}_y, {c.expected.size}u) != 0) {{
            printf("case {i} im2col differs (status %ld)\\n", (long)status);
            ++failures;
        }}
        memset(out, 0x5A, sizeof out);
        status = hk_conv_s8(&q.conv, c{i}_x, c{i}_w, c{i}_b, out);
        if (status != 0 || memcmp(out, c{i}_y, {c.expected.size}u) != 0) {{
            printf("case {i} conv differs (status %ld)\\n", (long)status);
            ++failures;
        }}
    }}
""")
    parts.append('\nint main(void)\n{\n    int failures = 0;\n    printf("path %s\\n", HK_ISA_PATH);\n')
    parts.extend(calls)
    parts.append(
        f'    printf("%d of {2 * len(cases)} calls differ\\n", failures);\n    return failures;\n}}\n'
    )
    return "".join(parts)


@st.composite
def im2col_case(draw):
    """Keyword arguments of conv_case for a convolution over few input channels."""
    kh = draw(st.integers(1, 10))
    kw = draw(st.integers(1, 4))  # 1x1: pointwise, two pixels per vector
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    return dict(
        c=draw(st.integers(1, 8)),
        oc=draw(st.integers(1, 13)),
        kh=kh,
        kw=kw,
        stride=(draw(st.integers(1, 3)), draw(st.integers(1, 3))),
        dilation=dilation,
        mode=draw(st.sampled_from(["SAME", "VALID", "FREE"])),
        size=(
            draw(st.integers((kh - 1) * dilation[0] + 1, 20)),
            draw(st.integers((kw - 1) * dilation[1] + 1, 9)),
        ),
        left=draw(st.booleans()),
        seed=draw(st.integers(0, 2**32 - 1)),
    )


def first_layers() -> list[Case]:
    """The MLPerf first layers' geometries (small images): KWS 10x4 stride 2 over one channel,
    ResNet 3x3 over three, VWW 3x3 stride 2 over three and its pointwise 8 -> 16."""
    rng = np.random.default_rng(17)
    return [
        conv_case(rng, 1, 64, 10, 4, stride=(2, 2), size=(13, 10)),
        conv_case(rng, 3, 16, 3, 3, size=(8, 8)),
        conv_case(rng, 3, 8, 3, 3, stride=(2, 2), size=(9, 10)),
        conv_case(rng, 8, 16, 1, 1, size=(5, 7)),  # VWW's pointwise 8 -> 16
    ]


@pytest.mark.parametrize("path_name", sorted(PATHS))
@FEW_BUILDS
@given(drawn=st.lists(im2col_case(), min_size=10, max_size=14))
def test_im2col_matches_the_reference(path_name, drawn, tmp_path_factory):
    cases = first_layers() + drawn_cases(drawn, conv_case)
    check_program(
        im2col_program(cases),
        tmp_path_factory.mktemp("conv_im2col"),
        PATHS[path_name],
        ("conv_im2col",),
        2 * len(cases),
        unit="calls",
    )
