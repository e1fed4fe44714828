"""Helium's eight-unit int8 FULLY_CONNECTED blocks against the reference on cases hypothesis draws.

On the M55 hk_fully_connected_s8 runs pairs of packed groups (eight units) per pass over the
input, one load of x per 16-byte chunk for all eight (hk_fc_dot8_packed_s8), then requantizes
the eight accumulators together: in double precision (fc_output8_mve), or with the integer form
the converter proved equal (fc_output8_int_mve, helia_aot_ops_builtin.fully_connected.fc_integer_requant). The
last group of four and the row-major units after the groups take the older loops. At -O2 the
blocks are assembly, at -O0 intrinsics. Hypothesis draws calls in and around that space (depths
that are and are not whole chunks, unit counts around multiples of eight and four, several
rows, input and output zero points at the int8 limits, filter zero points, per-tensor and
per-unit scales, activation clamps, with and without the integer requantization), and one
program holding all of a draw's cases is cross-built for Helium at -O2 and -O0 and for the M55
without MVE or DSP (the portable reference path), each checked byte for byte against the numpy
reference. Few draws, each many cases, so only a handful of builds run.

Assembly blocks this test checks (test_asm_inventory.py lists every block with its test):
fc_requant4, fc_output8_mve, fc_output8_int_mve and the hk_fc_blocks8 loops HK_FC_BLOCKS8_FUNCTION
defines (hk_fully_connected_mve.c), hk_fc_dot8_packed_s8 (hk_fc_dot.h).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ops_builtin.common.test_fc_pool_binary_paths import fc_case, program
from ops_builtin.support.cross_check import FEW_BUILDS, check_program, drawn_cases, paths

pytestmark = [pytest.mark.cross]

PATHS = paths("m55-mve", "m55-mve-O0", "m55-portable")


SATURATING_ACCS = [2**31 - 1, -(2**31), 72816, -72816, 72817, -72818, 40000, -40000]
SATURATING_ACCS += [300, -300, 0, 1, 2**20, -(2**20), 2**30, -(2**30)]
SATURATING_SCALES = np.array([0.45, 0.25, 0.45, 0.4999, 0.45, 0.45, 0.3, 0.3] * 2)


@st.composite
def fc_call(draw):
    """Keyword arguments of fc_case for an int8 call the eight-unit blocks may take."""
    per_channel = draw(st.booleans())
    return dict(
        batches=draw(st.integers(1, 3)),
        depth=draw(st.one_of(st.integers(1, 150), st.sampled_from([16, 64, 128, 640]))),
        units=draw(st.one_of(st.integers(1, 40), st.sampled_from([8, 16, 128]))),
        layout=draw(st.sampled_from(["packed", "packed", "packed", "folded"])),
        per_channel=per_channel,
        zp_w=0 if per_channel else draw(st.sampled_from([0, 0, -7, 12])),
        integer=draw(st.booleans()),
        seed=draw(st.integers(0, 2**32 - 1)),
    )


@pytest.mark.parametrize("path_name", sorted(PATHS))
@FEW_BUILDS
@given(drawn=st.lists(fc_call(), min_size=10, max_size=14))
def test_fc_blocks_match_the_reference(path_name, drawn, tmp_path_factory):
    cases = drawn_cases(drawn, fc_case)
    # Always the AD autoencoder's shapes: 640 -> 128, 128 -> 8 and 8 -> 128, per-unit scales.
    for depth, units in ((640, 128), (128, 8), (8, 128)):
        cases.append(fc_case(np.random.default_rng(depth), 1, depth, units, integer=True))
    # Outputs far outside int16 before the offset and the clamp: the blocks narrow the eight
    # results to int16 with saturation first, which must not change any clamped byte.
    for scales, integer in ((SATURATING_SCALES, True), (SATURATING_SCALES[::-1] * 8.0, False)):
        cases.append(
            fc_case(
                np.random.default_rng(1), 1, 1, 16, bias_acc=SATURATING_ACCS, scales=scales, integer=integer
            )
        )
    check_program(
        program(cases),
        tmp_path_factory.mktemp("fc_blocks"),
        PATHS[path_name],
        ("fully_connected", "pool", "binary"),
        len(cases),
        timeout=120,
    )
