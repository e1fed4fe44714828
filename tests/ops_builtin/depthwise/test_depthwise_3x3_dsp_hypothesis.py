"""The DSP path's whole-window 3x3 int8 DEPTHWISE_CONV_2D loop against the reference on drawn cases.

hk_depthwise_dsp.c hands the whole 3x3 windows of a call with offset_bias, channels in fours and
every channel's requantization in the Q30 form (multipliers in [2^30, 2^31), shifts in [-31, -1])
to dw3x3_whole_dsp: four channels at a time over every whole window, the filter widened once per
call, the outputs requantized in registers (without a clamp a whole row of windows in one assembly
block, dw3x3_row_asm, the four outputs stored as one word); the windows cut by the image edge
stay with the per-pixel loop, which without a clamp runs each pixel's channels four at a time
in dw_edge_asm (its taps outside the image reading the input zero point); without a clamp or a
dilation and with at most 32 channels, dw3x3_edges takes those windows instead, gathering each
run of them along a row or down a column into a patch, zero point outside the image, that
dw3x3_row_asm runs over. Hypothesis draws
depthwise convolutions in and around that space (channel counts in fours and not, strides,
dilations, padding on every edge, images narrower than the filter, input zero points at the
int8 limits, clamps wider than int8, left shifts and shifts of 0 that keep the call off the
loop), and one program holding a draw's cases is cross-built for the
Cortex-M4 and the M55 without MVE (both DSP) and without MVE or DSP (the portable reference
path), each case checked byte for byte against the numpy reference.

Assembly blocks this test checks (test_asm_inventory.py lists every block with its test):
dw3x3_window, dw3x3_row_asm and dw_edge_asm (hk_depthwise_dsp.c).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ops_builtin.conv.test_conv_paths import conv_case, dw_case, program, requant_rows
from ops_builtin.support.cross_check import FEW_BUILDS, check_program, drawn_cases, paths

pytestmark = [pytest.mark.cross]

PATHS = paths("m4-dsp", "m55-dsp", "m55-portable")


@st.composite
def depthwise_case(draw):
    """Keyword arguments of dw_case for a depthwise convolution the whole-window loop may take."""
    in_space = draw(st.integers(0, 3)) > 0
    channels = draw(st.sampled_from([4, 8, 12, 16, 32, 64, 68])) if in_space else draw(st.integers(1, 20))
    dilation = (1, 1) if in_space else (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    size = (draw(st.integers(1, 9)), draw(st.integers(1, 9)))
    size = (max(size[0], 3 * dilation[0] - 1), max(size[1], 3 * dilation[1] - 1))
    return dict(
        c=channels,
        kh=3,
        kw=3,
        stride=(draw(st.integers(1, 2)), draw(st.integers(1, 2))),
        dilation=dilation,
        mode=draw(st.sampled_from(["SAME", "VALID", "FREE"])),
        size=size,
        left=draw(st.integers(0, 7)) == 0,
        right_only=in_space,
        zp_in=draw(st.sampled_from([None, -128, 127])),
        with_bias=draw(st.booleans()),
        seed=draw(st.integers(0, 2**32 - 1)),
    )


@pytest.mark.parametrize("path_name", sorted(PATHS))
@FEW_BUILDS
@given(drawn=st.lists(depthwise_case(), min_size=8, max_size=12))
def test_whole_window_3x3_loop_matches_the_reference(path_name, drawn, tmp_path_factory):
    cases = drawn_cases(drawn, dw_case)
    # Always the MLPerf shapes the loop was written for: VWW's first depthwise layer (8 channels,
    # 48x48 cut to 9x9 here) and a strided one, and KWS's (64 channels, 25x5).
    cases.append(dw_case(np.random.default_rng(0), 8, 3, 3, size=(9, 9), right_only=True))
    cases.append(dw_case(np.random.default_rng(1), 16, 3, 3, stride=(2, 2), size=(9, 8), right_only=True))
    cases.append(dw_case(np.random.default_rng(2), 64, 3, 3, size=(25, 5), right_only=True))
    # dw3x3_edges' runs cut to fit its patch: along rows longer than 62 windows (stride 1) and
    # 31 (stride 2), and down a column longer than 62.
    cases.append(dw_case(np.random.default_rng(3), 4, 3, 3, size=(4, 70), right_only=True))
    cases.append(dw_case(np.random.default_rng(4), 8, 3, 3, stride=(2, 2), size=(5, 70), right_only=True))
    cases.append(dw_case(np.random.default_rng(5), 4, 3, 3, size=(70, 4), right_only=True))
    # And one convolution, which program() needs to use its scratch buffer.
    cases.append(conv_case(np.random.default_rng(0), 16, 4, 3, 3, size=(4, 4)))
    check_program(
        program(cases),
        tmp_path_factory.mktemp("depthwise_3x3_dsp"),
        PATHS[path_name],
        ("conv", "depthwise"),
        len(cases) + len(requant_rows()),
    )
