"""Helium's two-pixel int8 CONV_2D loop against the reference on cases hypothesis draws.

hk_conv_mve.c takes two output pixels per filter load where windows are read in place by rows
(a filter row a multiple of 16 bytes) or where there are few filters (at most eight); its
assembly holds eight dot products in registers, and the last filter group of a receptive field
that is not whole vectors is read under a predicate. Hypothesis draws convolutions in and
around that space (rows of 16 to 64 bytes, 1 to 13 filters, strides, padding on every edge,
dilated rows, odd pixel counts), and one program holding all of a draw's cases is cross-built
for Helium at -O2 (the assembly) and -O0 (its intrinsics stand-in) and for the M55 without MVE
or DSP (the portable reference path), each checked byte for byte against the numpy reference.
Few draws, each many cases, so only a handful of builds run.

Assembly blocks this test checks (test_asm_inventory.py lists every block with its test):
conv_groups_asm_mve and conv_pair4_mve (hk_conv_mve.c).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ops_builtin.conv.test_conv_paths import conv_case, program, requant_rows
from ops_builtin.support.cross_check import FEW_BUILDS, check_program, drawn_cases, paths

pytestmark = [pytest.mark.cross]

PATHS = paths("m55-mve", "m55-mve-O0", "m55-portable")


@st.composite
def pair_case(draw):
    """Keyword arguments of conv_case for a convolution the two-pixel loop may take."""
    rows_in_place = draw(st.booleans())
    if rows_in_place:
        kw = draw(st.integers(1, 3))
        channels = draw(st.sampled_from([c for c in (16, 32, 48, 64) if c * kw <= 96] or [16]))
        oc = draw(st.integers(1, 13))
    else:
        kw = draw(st.integers(1, 4))
        channels = draw(st.integers(1, 12))
        oc = draw(st.integers(1, 8))
    kh = draw(st.integers(2, 3)) if rows_in_place else draw(st.integers(1, 3))
    stride = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    dilation = (draw(st.integers(1, 2)), 1)
    mode = draw(st.sampled_from(["SAME", "VALID", "FREE"]))
    size = (draw(st.integers(kh * dilation[0], 7)), draw(st.integers(kw, 7)))
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
        seed=draw(st.integers(0, 2**32 - 1)),
    )


@pytest.mark.parametrize("path_name", sorted(PATHS))
@FEW_BUILDS
@given(drawn=st.lists(pair_case(), min_size=8, max_size=12))
def test_two_pixel_loop_matches_the_reference(path_name, drawn, tmp_path_factory):
    cases = drawn_cases(drawn, conv_case)
    # Always one case with rows in place and an output past the requantization rows' 41
    # bytes (program() sizes its output buffer by the largest case).
    cases.append(conv_case(np.random.default_rng(0), 16, 13, 3, 3, size=(6, 7)))
    check_program(
        program(cases),
        tmp_path_factory.mktemp("conv_pairs"),
        PATHS[path_name],
        ("conv", "depthwise"),
        len(cases) + len(requant_rows()),
    )
