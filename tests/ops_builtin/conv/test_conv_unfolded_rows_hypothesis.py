"""Goal size's k x k convolutions (hk_conv_unfolded_mve.c's assembly blocks) against the reference.

At ``optimization.goal: size`` a k x k convolution whose window rows are whole vectors (filter
width x input channels a multiple of 16) runs each output row's span of windows (two rows' where
each pixel pairs with the one below it), and each pair of edge pixels cut the same way, through
unfolded_rows_asm: window rows entered part-way into eight unrolled steps (rows of more than eight
vectors loop over them), the pixel pointers stepped to the next input row between rows (and the
filter pointers too when an edge cuts the window's width), the requantization and the stores
inside; a pixel left alone takes unfolded_lone_asm (its dots and its shape's filter sums in one
pass). Hypothesis draws the geometry those blocks must get right: 3x3, 5x5, 1x3, 3x1 and 2x2
filters, strides 1 and 2, SAME and VALID padding, dilated rows, input channels from 9 to 80 (whole
vectors per window row or not, up to 25 vectors per row), a last group of fewer than four
filters, input offsets zero and not, left shifts (the general requantization), and row slices
with what is left of pad_top (the row loops' calls). One program
per draw runs on the M55 at -O2 (the assembly), -O0 (its intrinsics stand-in) and without MVE (the
portable loop), each output byte for byte against the numpy reference.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ops_builtin.conv.test_conv_paths import conv_case
from ops_builtin.conv.test_conv_unfolded_hypothesis import _no_folding, program
from ops_builtin.support.cross_check import FEW_BUILDS, check_program, drawn_cases, paths

pytestmark = [pytest.mark.cross]

PATHS = paths("m55-mve", "m55-mve-O0", "m55-portable")


@st.composite
def rows_case(draw):
    """Keyword arguments of conv_case for a k x k convolution goal size runs, wide enough for
    spans of several pairs."""
    kh, kw = draw(st.sampled_from([(3, 3), (3, 3), (5, 5), (1, 3), (3, 1), (2, 2)]))
    channels = draw(st.sampled_from([9, 12, 16, 24, 32, 40, 48, 64, 80]))
    stride = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    dilation = (draw(st.sampled_from([1, 1, 2])), 1)
    return dict(
        c=channels,
        oc=draw(st.integers(1, 11)),
        kh=kh,
        kw=kw,
        stride=stride,
        dilation=dilation,
        mode=draw(st.sampled_from(["SAME", "SAME", "VALID"])),
        # A 5x5 filter dilated by 2 spans 10 rows: the height range then starts (and ends) there.
        size=(draw(st.integers(kh * dilation[0], max(9, kh * dilation[0]))), draw(st.integers(kw + 1, 12))),
        left=draw(st.booleans()),
        zp_in=draw(st.sampled_from([0, 0, -128, 127, None])),
        seed=draw(st.integers(0, 2**32 - 1)),
    )


@pytest.mark.parametrize("path_name", sorted(PATHS))
@FEW_BUILDS
@given(drawn=st.lists(rows_case(), min_size=6, max_size=8), seed=st.integers(0, 2**16))
def test_k_by_k_spans_match_the_reference(path_name, drawn, seed, tmp_path_factory):
    cases = [_no_folding(c) for c in drawn_cases(drawn, lambda rng, **kw: conv_case(rng, **kw))]
    text, calls = program(cases, seed)
    check_program(
        text,
        tmp_path_factory.mktemp("conv_unfolded_rows"),
        PATHS[path_name],
        ("conv_unfolded",),
        calls,
        unit="calls",
    )
