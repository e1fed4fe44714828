"""The Cortex-M4 (DSP extension) int8 fast paths equal the reference on random cases.

tests/ops_builtin/conv/test_conv_paths.py pins chosen geometries on every path; this file
lets Hypothesis draw them for the paths the DSP build takes: the convolution's two-filter,
two-pixel dot loop (assembly, eight taps a pass, with a four-tap step and a byte tail around
it), the depthwise path that starts every window from offset_bias and reads the input zero
point for taps outside the image (3x3 unrolled, other windows looped, channels in rows of 64
with a tail of up to three), and the single-SMMLAR requantization of multipliers in
[2^30, 2^31); and the fully connected groups that read a row of at most 256 features widened
once (LDRD per word), two 16-feature chunks a pass with an odd one first. Each example's cases
go into one program, built once for the M4 and run under QEMU; the expected bytes are the numpy
reference's (conv_family_refmodels), which the portable path matches in the same program on
the other cores (test_conv_paths.py).

Assembly blocks this test checks (test_asm_inventory.py lists every block with its test):
conv_dots2_s8 (hk_conv_dsp.c) and the SXTB16 / SXTAB16 helpers it and the depthwise path use,
hk_sxtb16_odd and hk_sxtab16_odd (hk_simd.h), binary_smmlar and ADD_HALF_BLOCK
(hk_binary_scalar.c), fc_output_int_s8 (hk_fully_connected_dsp.c: the integer requantization of
the groups, drawn with and without a multiplier table).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.common import test_fc_pool_binary_paths as fc_paths
from ops_builtin.conv.test_conv_paths import RequantRow, conv_case, dw_case, program
from ops_builtin.support import conv_family_refmodels as ref
from ops_builtin.support.cross_check import PATHS, check_program, drawn_cases

pytestmark = [
    pytest.mark.cross,
]

SEEDS = st.integers(0, 2**32 - 1)
MODES = st.sampled_from(("SAME", "VALID", "FREE"))

CONV = st.fixed_dictionaries(
    {
        "kind": st.just("conv"),
        "c": st.integers(1, 40),
        "oc": st.integers(1, 9),
        "kh": st.integers(1, 4),
        "kw": st.integers(1, 4),
        "stride": st.tuples(st.integers(1, 2), st.integers(1, 2)),
        "dilation": st.tuples(st.integers(1, 2), st.integers(1, 1)),
        "mode": MODES,
        "size": st.tuples(st.integers(3, 7), st.integers(3, 7)),
        "seed": SEEDS,
    }
)
DEPTHWISE = st.fixed_dictionaries(
    {
        "kind": st.just("dw"),
        "c": st.integers(1, 72),  # past one 64-channel row
        "kh": st.sampled_from((3, 3, 1, 2, 5)),
        "kw": st.sampled_from((3, 3, 1, 2, 5)),
        "stride": st.tuples(st.integers(1, 2), st.integers(1, 2)),
        "dilation": st.tuples(st.integers(1, 2), st.integers(1, 2)),
        "mode": MODES,
        "size": st.tuples(st.integers(2, 7), st.integers(2, 7)),
        "with_bias": st.booleans(),
        "seed": SEEDS,
    }
)
ROWS = st.fixed_dictionaries({"n": st.integers(1, 40), "full_clamp": st.booleans(), "seed": SEEDS})


def build_case(params: dict):
    p = dict(params)
    rng = np.random.default_rng(p.pop("seed"))
    kind = p.pop("kind")
    if kind == "conv":
        return conv_case(rng, p.pop("c"), p.pop("oc"), p.pop("kh"), p.pop("kw"), **p)
    return dw_case(rng, p.pop("c"), p.pop("kh"), p.pop("kw"), **p)


def build_row(params: dict) -> RequantRow:
    """Multipliers in [2^30, 2^31) with right shifts (the DSP's HK_REQUANT_Q30 form), the
    accumulators anywhere in int32."""
    rng = np.random.default_rng(params["seed"])
    n = params["n"]
    acc = rng.integers(-(2**31), 2**31, n).astype(np.int32)
    mult = rng.integers(1 << 30, 2**31, n).astype(np.int32)
    shift = rng.integers(-31, -1, n, endpoint=True).astype(np.int32)
    offset = int(rng.integers(-128, 127, endpoint=True))
    act = (-128, 127) if params["full_clamp"] else (int(rng.integers(-128, 0)), int(rng.integers(0, 128)))
    expected = ref.requantize(acc, None, mult, shift, offset, act, np.int8)
    return RequantRow(acc, mult, shift, offset, act, expected)


@settings(max_examples=2, deadline=None)
@given(
    cases=st.lists(st.one_of(CONV, DEPTHWISE), min_size=6, max_size=10),
    rows=st.lists(ROWS, min_size=2, max_size=4),
)
def test_m4_fast_paths_match_the_reference(cases, rows, tmp_path_factory):
    built = [build_case(c) for c in cases]
    requant = [build_row(r) for r in rows]
    check_program(
        program(built, requant),
        tmp_path_factory.mktemp("dsp_paths"),
        PATHS["m4-dsp"],
        ("conv", "depthwise"),
        len(built) + len(requant),
    )


FC = st.fixed_dictionaries(
    {
        "batches": st.integers(1, 2),
        # past the 256 widened on the stack; chunks of 16 one, odd and even (two a pass); AD's 640
        "depth": st.one_of(st.integers(1, 300), st.sampled_from([16, 48, 64, 640])),
        "units": st.integers(1, 13),
        "layout": st.sampled_from(("packed", "packed", "folded")),
        "per_channel": st.booleans(),
        "zp_w": st.integers(-3, 3),
        # the integer requantization where the converter's proof accepts the scales (the DSP
        # groups' fc_output_int_s8), else the double one
        "integer": st.booleans(),
        "seed": SEEDS,
    }
)


@settings(max_examples=2, deadline=None)
@given(cases=st.lists(FC, min_size=6, max_size=10))
def test_m4_fully_connected_matches_the_reference(cases, tmp_path_factory):
    built = drawn_cases(cases, fc_paths.fc_case)
    # Always shallow layers with the integer requantization, whose outputs mostly stay inside
    # the clamp (deep random rows mostly saturate), so its rounding decides bytes.
    rng = np.random.default_rng(0)
    built += [
        fc_paths.fc_case(rng, 1, depth, 8, integer=True, per_channel=per_channel)
        for depth in (4, 16, 20, 40)
        for per_channel in (True, False)
    ]
    check_program(
        fc_paths.program(built),
        tmp_path_factory.mktemp("dsp_fc"),
        PATHS["m4-dsp"],
        ("fully_connected",),
        len(built),
    )


@st.composite
def binary_shapes(draw):
    """Two input shapes of an int8 ADD/SUB: equal (the flat run) or broadcast (rows, strides)."""
    shape = draw(st.lists(st.integers(1, 9), min_size=1, max_size=4))
    if draw(st.booleans()):
        return tuple(shape), tuple(shape)
    keep = st.lists(st.booleans(), min_size=len(shape), max_size=len(shape))
    first, second = draw(keep), draw(keep)
    return (
        tuple(d if k else 1 for d, k in zip(shape, first, strict=True)),
        tuple(d if k else 1 for d, k in zip(shape, second, strict=True)),
    )


BINARY = st.fixed_dictionaries(
    {
        "op": st.sampled_from(("ADD", "SUB")),
        "shapes": binary_shapes(),
        "equal_scales": st.booleans(),
        "act": st.sampled_from((None, (-10, 100), (-128, 0), (20, 127))),
        "seed": SEEDS,
    }
)


def binary_case(rng, op, shapes, equal_scales, act):
    return fc_paths.binary_case(rng, op, *shapes, equal_scales=equal_scales, act=act)


@settings(max_examples=2, deadline=None)
@given(cases=st.lists(BINARY, min_size=10, max_size=16))
def test_m4_add_sub_match_the_reference(cases, tmp_path_factory):
    """int8 ADD and SUB on the M4: add_sub_run_dsp (hk_binary_scalar.c: one MLA and one SMMLAR
    per input, the output offset inside the output shift's rounding constant) on flat and
    broadcast runs, random scales and zero points (an input at the larger scale has a shift of
    0), clamps or none."""
    built = drawn_cases(cases, binary_case)
    check_program(
        fc_paths.program(built),
        tmp_path_factory.mktemp("dsp_binary"),
        PATHS["m4-dsp"],
        ("binary",),
        len(built),
    )


TIES = st.fixed_dictionaries(
    {
        "op": st.sampled_from(("ADD", "SUB")),
        "left_shift": st.integers(0, 3),
        "multipliers": st.lists(
            st.one_of(st.integers(2**30, 2**31 - 1), st.integers(0, 2**31 - 1)), min_size=3, max_size=3
        ),
        "shifts": st.tuples(st.integers(-4, 0), st.integers(-4, 0), st.integers(-4, 0)),
        "offsets": st.lists(st.integers(-128, 127), min_size=3, max_size=3),
        "seed": SEEDS,
    }
)


def tie_case(rng, op, left_shift, multipliers, shifts, offsets):
    """A flat ADD/SUB whose small left shift and shifts of 0 to 4 bits make rounding ties common
    (the sign fixes of add_sub_run_dsp decide them), every input pair of a 64-value grid."""
    a, b = (v.astype(np.int8) for v in np.meshgrid(rng.permutation(256)[:64] - 128, np.arange(-128, 128, 4)))
    q = dict(
        input1_offset=offsets[0],
        input2_offset=offsets[1],
        output_offset=offsets[2],
        left_shift=left_shift,
        input1_multiplier=multipliers[0],
        input1_shift=shifts[0],
        input2_multiplier=multipliers[1],
        input2_shift=shifts[1],
        output_multiplier=multipliers[2],
        output_shift=shifts[2],
        activation_min=-128,
        activation_max=127,
    )
    return fc_paths.binary_quant_case(op, a.reshape(-1), b.reshape(-1), q)


HALF_TIES = st.fixed_dictionaries(
    {
        "half_first": st.booleans(),
        "multipliers": st.tuples(
            st.one_of(st.integers(2**30, 2**31 - 1), st.integers(2**20, 2**21 - 1).map(lambda j: j << 10)),
            st.integers(2**30, 2**31 - 1),
        ),
        "shifts": st.tuples(st.integers(-6, -1), st.integers(-12, -1)),
        "offsets": st.lists(st.integers(-128, 127), min_size=3, max_size=3),
        "lo": st.sampled_from((-128, -50, 0, 100)),
        "seed": SEEDS,
    }
)


def half_tie_case(rng, half_first, multipliers, shifts, offsets, lo):
    """LiteRT's form of an int8 ADD with differing scales (left shift 20, the input at the larger
    scale at multiplier 2^30 and shift 0): add_half_run_asm (hk_binary_scalar.c), either input the
    half one, multipliers with their low ten bits zero (rounding ties in the other input's
    multiply), ReLU-like minimums, every input pair of a grid (an odd count: its one-output
    start)."""
    a, b = (v.astype(np.int8) for v in np.meshgrid(rng.permutation(256)[:63] - 128, np.arange(-128, 128, 4)))
    half, other = (2**30, 0), (multipliers[0], shifts[0])
    (m1, s1), (m2, s2) = (half, other) if half_first else (other, half)
    q = dict(
        input1_offset=offsets[0],
        input2_offset=offsets[1],
        output_offset=offsets[2],
        left_shift=20,
        input1_multiplier=m1,
        input1_shift=s1,
        input2_multiplier=m2,
        input2_shift=s2,
        output_multiplier=multipliers[1],
        output_shift=shifts[1],
        activation_min=lo,
        activation_max=127,
    )
    return fc_paths.binary_quant_case("ADD", a.reshape(-1), b.reshape(-1), q)


@settings(max_examples=2, deadline=None)
@given(cases=st.lists(HALF_TIES, min_size=6, max_size=8))
def test_m4_add_half_run_rounds_as_the_reference(cases, tmp_path_factory):
    """add_half_run_asm against the reference on grids of every input pair."""
    built = drawn_cases(cases, half_tie_case)
    check_program(
        fc_paths.program(built),
        tmp_path_factory.mktemp("dsp_binary_half"),
        PATHS["m4-dsp"],
        ("binary",),
        len(built),
    )


@settings(max_examples=2, deadline=None)
@given(cases=st.lists(TIES, min_size=6, max_size=8))
def test_m4_add_sub_round_ties_as_the_reference(cases, tmp_path_factory):
    """add_sub_run_dsp's rounding on calls where ties are frequent: multipliers mostly in
    [2^30, 2^31) (LiteRT's), some anywhere in [0, 2^31), shifts of 0 to 4 bits (an output shift
    of 0 takes the portable run), left shifts 0 to 3."""
    built = drawn_cases(cases, tie_case)
    check_program(
        fc_paths.program(built),
        tmp_path_factory.mktemp("dsp_binary_ties"),
        PATHS["m4-dsp"],
        ("binary",),
        len(built),
    )
