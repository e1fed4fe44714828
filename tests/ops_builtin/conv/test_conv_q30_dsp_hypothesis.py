"""The DSP path's int8 CONV_2D loop with requantization in registers against the reference.

hk_conv_dsp.c runs a call whose every filter requantizes in the Q30 form (multipliers in
[2^30, 2^31), shifts in [-31, -1]) through conv_dots2_q30_s8: two pixels and two filters at a
time as conv_dots2_s8, but each filter pair's four sums are requantized in registers and stored
to the output pixels at once, with no accumulator row (the last taps % 4 in plain C); without a
clamp, with taps a multiple of eight and an even filter count, conv_pairs_q30_asm runs every
filter pair in one assembly block (its loop shapes by the taps: 8 alone, 16 once, 32 taps a
pass after an eight-tap prefix or none and a sixteen-tap run or none, as 32, 56, 72, 144 and 216
take them; an RGB 3x3 window's 27, whose last three taps it reads byte by byte). Hypothesis
draws convolutions in and around that space (pointwise and 3x3, input channels that make the taps
a multiple of four and not, odd filter counts, odd pixel counts, strides, padding, dilations,
input zero points at the int8 limits, RELU-like and wide clamps, and shifts of 0 or left shifts
that keep the call off the loop), and one program holding a draw's cases is cross-built for the
Cortex-M4 and the M55 without MVE (both DSP) and without MVE or DSP (the portable reference
path), each case checked byte for byte against the numpy reference.

For 8, 16, 32, 40, 64, 128 and 256 taps the pairs run hk_conv_taps.h's loops instead (one
block per tap count, HK_CONV_TAPS_PAIRS), whose requantization folds the rounding and the
output zero point into one QADD; the draws reach 8, 16 and 32 (pointwise over 8, 16 and 32
channels), and fixed cases add KWS's 64 and 40 (its 10x4 first layer), and 128 and 256.

The loop widens windows that lie inside the image where they lie (conv_widen2_rows_s8, no
gather copy) and gathers the others, so the drawn sizes (3 to 7) and paddings mix both in one call.

Assembly blocks this test checks (test_asm_inventory.py lists every block with its test):
conv_dots2_q30_body, conv_pairs_q30_asm and conv_widen2_rows_s8 (hk_conv_dsp.c),
HK_CONV_TAPS_PAIRS (hk_conv_taps.h).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ops_builtin.conv.test_conv_paths import conv_case, program, requant_rows
from ops_builtin.support.cross_check import FEW_BUILDS, check_program, drawn_cases, paths

pytestmark = [pytest.mark.cross]

PATHS = paths("m4-dsp", "m55-dsp", "m55-portable")


@st.composite
def q30_conv_case(draw):
    """Keyword arguments of conv_case for a convolution the Q30 loop may take."""
    in_space = draw(st.integers(0, 3)) > 0
    k = draw(st.sampled_from([1, 3]))
    return dict(
        c=draw(st.sampled_from([3, 4, 8, 12, 16, 24, 32, 56]) if in_space else st.integers(1, 20)),
        oc=draw(st.integers(1, 20)),
        kh=k,
        kw=k,
        stride=(draw(st.integers(1, 2)), draw(st.integers(1, 2))),
        dilation=(1, 1) if in_space else (draw(st.integers(1, 2)), 1),
        mode=draw(st.sampled_from(["SAME", "VALID"])),
        size=(draw(st.integers(3, 7)), draw(st.integers(3, 7))),
        left=draw(st.integers(0, 7)) == 0,
        right_only=in_space,
        zp_in=draw(st.sampled_from([None, -128, 127])),
        seed=draw(st.integers(0, 2**32 - 1)),
    )


@pytest.mark.parametrize("path_name", sorted(PATHS))
@FEW_BUILDS
@given(drawn=st.lists(q30_conv_case(), min_size=8, max_size=12))
def test_q30_loop_matches_the_reference(path_name, drawn, tmp_path_factory):
    cases = drawn_cases(drawn, conv_case)
    # Always the MLPerf shapes the loop was written for: VWW's pointwise layers (8 channels to 16,
    # an odd pixel count) and a 3x3 over 4 channels, and KWS's (64 to 64, 25x5 cut to 5x5).
    cases.append(conv_case(np.random.default_rng(0), 8, 16, 1, 1, mode="VALID", size=(5, 5), right_only=True))
    cases.append(conv_case(np.random.default_rng(1), 4, 7, 3, 3, stride=(2, 2), size=(7, 6), right_only=True))
    cases.append(
        conv_case(np.random.default_rng(2), 64, 64, 1, 1, mode="VALID", size=(5, 5), right_only=True)
    )
    # A pointwise 56 taps without a clamp: the eight-tap prefix, one sixteen-tap run, one 32-tap pass.
    cases.append(conv_case(np.random.default_rng(5), 56, 6, 1, 1, mode="VALID", size=(3, 3), right_only=True))
    # hk_conv_taps.h's loops that the draws above do not reach (HK_CONV_TAPS_PAIRS): 64 taps
    # unrolled with an odd filter pair count, and 128 and 256 taps at 32 a pass, odd pixel counts.
    cases.append(conv_case(np.random.default_rng(6), 64, 6, 1, 1, mode="VALID", size=(3, 3), right_only=True))
    cases.append(
        conv_case(np.random.default_rng(7), 128, 4, 1, 1, mode="VALID", size=(3, 1), right_only=True)
    )
    cases.append(
        conv_case(np.random.default_rng(8), 256, 2, 1, 1, mode="VALID", size=(1, 3), right_only=True)
    )
    # KWS's first convolution: a 10x4 window over one channel, 40 taps, stride 2.
    cases.append(
        conv_case(np.random.default_rng(9), 1, 4, 10, 4, stride=(2, 2), size=(13, 7), right_only=True)
    )
    # VWW's and ResNet-8's first layer: an RGB 3x3 window, 27 taps (the loop's three-tap end).
    cases.append(conv_case(np.random.default_rng(3), 3, 8, 3, 3, stride=(2, 2), size=(7, 6), right_only=True))
    # ResNet-8's 3x3 layers: 16 channels (48-byte window rows, read in place inside the image,
    # gathered at its edges) and a stride of two.
    cases.append(conv_case(np.random.default_rng(6), 16, 4, 3, 3, size=(6, 5), right_only=True))
    cases.append(
        conv_case(np.random.default_rng(7), 16, 6, 3, 3, stride=(2, 2), size=(7, 7), right_only=True)
    )
    check_program(
        program(cases),
        tmp_path_factory.mktemp("conv_q30_dsp"),
        PATHS[path_name],
        ("conv", "depthwise"),
        len(cases) + len(requant_rows()),
    )
