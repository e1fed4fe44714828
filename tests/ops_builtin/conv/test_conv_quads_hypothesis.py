"""Helium's four-pixel int8 CONV_2D block against the reference on cases hypothesis draws.

hk_conv_mve.c runs every ungrouped convolution whose receptive field is whole 16-byte vectors
(filter_height * filter_width * channels a multiple of 16) four output pixels at a time against
two filters (conv_quads_run): four pixels of one output row with windows inside the image are
copied in one pass, any other pixel alone (its pixel, its filter rows, or its window gathered
with the zero point in the padding), and in the narrow requantization (every shift in
[-23, -1], what real layers have) the whole pair loop is assembly, with a C loop for the
other modes, an odd last filter and a last block of fewer than four pixels. Hypothesis draws
convolutions across all of that (1x1 and windows, strides, dilations, padding on every edge,
several images, 1 to 13 filters, narrow, right-only and left-shifting multipliers, clamps),
and one program holding a draw's cases is cross-built for Helium at -O2 (the assembly) and
-O0 (its intrinsics stand-in) and for the M55 without MVE (its DSP path) and without MVE or
DSP (the portable reference path), each checked byte for byte against the numpy reference.

Assembly blocks this test checks (test_asm_inventory.py lists every block with its test):
conv_quad2_mve and conv_quads_asm, whose forms CONV_QUADS_FORMS writes out (hk_conv_mve.c;
the ReLU form where a drawn clamp's lower bound is at or above the output zero point).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ops_builtin.conv.test_conv_paths import Case, conv_call_case, program
from ops_builtin.support.cross_check import FEW_BUILDS, check_program, drawn_cases, paths

pytestmark = [pytest.mark.cross]

PATHS = paths("m55-mve", "m55-mve-O0", "m55-dsp", "m55-portable")


def quad_case(rng, *, c, oc, kh, kw, stride, dilation, pads, size, batches, quant) -> Case:
    """One convolution with explicit padding (top, left; the output fills what is left)."""
    h, w_ = size
    pt, pl = pads
    oh = max((h + 2 * pt - (kh - 1) * dilation[0] - 1) // stride[0] + 1, 1)
    ow = max((w_ + 2 * pl - (kw - 1) * dilation[1] - 1) // stride[1] + 1, 1)
    zp_in = int(rng.integers(-128, 127, endpoint=True))
    zp_out = int(rng.integers(-128, 127, endpoint=True))
    x = rng.integers(-128, 127, (batches, h, w_, c), endpoint=True).astype(np.int8)
    w = rng.integers(-127, 127, (oc, kh, kw, c), endpoint=True).astype(np.int8)
    bias = rng.integers(-(1 << 16), 1 << 16, oc).astype(np.int32)
    mult = rng.integers(1 << 30, (1 << 31) - 1, oc, endpoint=True).astype(np.int32)
    low, high = {"narrow": (-23, -1), "right": (-12, 0), "left": (-12, 3)}[quant]
    shift = rng.integers(low, high, oc, endpoint=True).astype(np.int32)
    act = ((-128, 127), (zp_out, 127), (-300, 300), (-20, 40))[int(rng.integers(0, 4))]
    return conv_call_case(x, w, bias, mult, shift, (oh, ow), stride, (pt, pl), dilation, zp_in, zp_out, act)


@st.composite
def quad_kwargs(draw):
    """quad_case's arguments for a receptive field of whole vectors. Each draw shrinks toward
    a case the assembly takes (two filters, four pixels in a row, the narrow mode)."""
    kh, kw = draw(st.sampled_from([(3, 3), (1, 1), (3, 3), (1, 1), (2, 2), (1, 3), (3, 1)]))
    # channels such that kh * kw * c is a multiple of 16
    step = 16 // np.gcd(16, kh * kw)
    c = draw(st.sampled_from([m for m in range(step, 49, step)]))
    stride = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    pads = (draw(st.integers(0, kh - 1 + (dilation[0] - 1) * (kh - 1))), draw(st.integers(0, kw)))
    reach_h, reach_w = (kh - 1) * dilation[0] + 1, (kw - 1) * dilation[1] + 1
    size = (
        draw(st.integers(max(reach_h - pads[0], 1), 7)),
        draw(st.integers(max(reach_w - pads[1], 1), 11).map(lambda w: max(w, 8)) | st.integers(1, 4)),
    )
    return dict(
        c=c,
        oc=draw(st.integers(2, 13) | st.just(1)),
        kh=kh,
        kw=kw,
        stride=stride,
        dilation=dilation,
        pads=pads,
        size=size,
        batches=draw(st.integers(1, 2)),
        quant=draw(st.sampled_from(["narrow", "narrow", "right", "left"])),
        seed=draw(st.integers(0, 2**32 - 1)),
    )


def fixed_cases() -> list[Case]:
    """Shapes every draw includes: the MLPerf layers' kinds, scaled down (KWS's 64 -> 64
    pointwise, ResNet's 3x3 16 -> 16 with SAME padding and its stride-2 3x3 and 1x1)."""
    rng = np.random.default_rng(17)
    shapes = (
        dict(c=64, oc=64, kh=1, kw=1, stride=(1, 1), pads=(0, 0), size=(5, 5)),
        dict(c=16, oc=16, kh=3, kw=3, stride=(1, 1), pads=(1, 1), size=(6, 9)),
        dict(c=16, oc=32, kh=3, kw=3, stride=(2, 2), pads=(0, 0), size=(7, 9)),
        dict(c=16, oc=7, kh=1, kw=1, stride=(2, 2), pads=(0, 0), size=(8, 8)),
    )
    return [quad_case(rng, dilation=(1, 1), batches=1, quant="narrow", **s) for s in shapes]


@pytest.mark.parametrize("path_name", sorted(PATHS))
@FEW_BUILDS  # one build per example and path: each example is a dozen cases
@given(drawn=st.lists(quad_kwargs(), min_size=10, max_size=14))
def test_four_pixel_block_matches_the_reference(path_name, drawn, tmp_path_factory):
    cases = fixed_cases() + drawn_cases(drawn, quad_case)
    check_program(
        program(cases, rows=[]),
        tmp_path_factory.mktemp("conv_quads"),
        PATHS[path_name],
        ("conv", "depthwise"),
        len(cases),
        timeout=120,
    )
