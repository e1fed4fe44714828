"""Helium's 3x3 int8 DEPTHWISE_CONV_2D blocks against the reference on cases hypothesis draws.

hk_depthwise_mve.c runs whole 3x3 windows (dilation 1, channels a multiple of 8, right-shift
requantization) along a row in one assembly block per eight channels, from offset_bias or, without
it (goal size), from the bias plus the input offset times the taps' sum taken at run time; windows
cut to 2 or 3 rows and columns by the image edge take another block (the offset added per input,
from the plain bias); other windows take the sixteen-channel loop. Hypothesis draws
depthwise convolutions in and around that space (8 to 264 channels, strides, padding on every
edge, images narrower than the filter, input zero points at the int8 limits, left shifts and
dilations that take the other paths), and one program holding all of a draw's cases is
cross-built for Helium at -O2 and -O0 and for the M55 without MVE or DSP (the portable
reference path), each checked byte for byte against the numpy reference. Cases without padded
taps run again in goal size's folded form (the input offset in the bias it replaces, an input
offset of 0, no offset_bias: the blocks' taps' sums then add nothing). Few draws, each many
cases, so only a handful of builds run.

Assembly blocks this test checks (test_asm_inventory.py lists every block with its test):
dw_taps3x3_mve, dw_taps3x3_pair_mve, dw_edge_taps_mve and the post-increment blocks
DW_POST_FUNCTIONS makes for 16, 32 and 64 channels (hk_depthwise_mve.c), each of those counts
among the draws.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ops_builtin.conv.test_conv_paths import conv_case, dw_case, folded_into_bias, program, requant_rows
from ops_builtin.support.cross_check import FEW_BUILDS, check_program, drawn_cases, paths

pytestmark = [pytest.mark.cross]

PATHS = paths("m55-mve", "m55-mve-O0", "m55-portable")


@st.composite
def depthwise_case(draw):
    """Keyword arguments of dw_case for a depthwise convolution the 3x3 blocks may take."""
    in_space = draw(st.integers(0, 3)) > 0
    widths = [8, 16, 24, 32, 64, 136, 256, 264]  # 16, 32, 64: the post-increment blocks
    channels = draw(st.sampled_from(widths)) if in_space else draw(st.integers(1, 40))
    kh, kw = (3, 3) if in_space else (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    dilation = (1, 1) if in_space else (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    size = (draw(st.integers(1, 7)), draw(st.integers(1, 7)))
    size = (max(size[0], kh * dilation[0] - 1), max(size[1], kw * dilation[1] - 1))
    return dict(
        c=channels,
        kh=kh,
        kw=kw,
        stride=(draw(st.integers(1, 2)), draw(st.integers(1, 2))),
        dilation=dilation,
        mode=draw(st.sampled_from(["SAME", "VALID", "FREE"])),
        size=size,
        left=draw(st.integers(0, 7)) == 0,
        zp_in=draw(st.sampled_from([None, -128, 127])),
        with_bias=draw(st.booleans()),
        fast=draw(st.booleans()),
        seed=draw(st.integers(0, 2**32 - 1)),
    )


@pytest.mark.parametrize("path_name", sorted(PATHS))
@FEW_BUILDS
@given(drawn=st.lists(depthwise_case(), min_size=8, max_size=12))
def test_depthwise_blocks_match_the_reference(path_name, drawn, tmp_path_factory):
    cases = drawn_cases(drawn, dw_case)
    # Always one case with the KWS layers' shape: 64 channels, five columns, SAME padding.
    cases.append(dw_case(np.random.default_rng(0), 64, 3, 3, size=(6, 5)))
    # The same without offset_bias (goal size: the filter sums taken at run time).
    cases.append(dw_case(np.random.default_rng(1), 64, 3, 3, size=(6, 5), fast=False))
    # Goal size's folded form: VALID (no padded tap), the offset in the bias it replaces.
    cases.append(dw_case(np.random.default_rng(2), 64, 3, 3, mode="VALID", size=(6, 5), fast=False))
    cases += [f for f in map(folded_into_bias, cases) if f is not None and f.kind == "dw"]
    # And one convolution, which program() needs to use its scratch buffer.
    cases.append(conv_case(np.random.default_rng(0), 16, 4, 3, 3, size=(4, 4)))
    check_program(
        program(cases),
        tmp_path_factory.mktemp("depthwise_blocks"),
        PATHS[path_name],
        ("conv", "depthwise"),
        len(cases) + len(requant_rows()),
    )
