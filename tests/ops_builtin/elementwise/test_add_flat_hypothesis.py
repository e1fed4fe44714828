"""Helium's flat int8 ADD run against the reference on cases hypothesis draws.

hk_binary_mve.c runs an int8 ADD whose inputs both advance (no broadcast: a residual add) in one
loop per set of rounding steps its call needs (add_flat_mve): each input's rounding shift is
left out where its exponent is 0 (the input with the larger scale has one), and the output
shift's fixup where the activation's lower bound is at or above the output offset (a fused
ReLU). Hypothesis draws flat ADDs (and SUBs, which keep every step) over lengths around whole
vectors, scales that give either input or neither the exponent 0, zero points, and clamps from
the full range to a ReLU; one program holding a draw's cases is cross-built for Helium at -O2
and -O0 and for the M55 without MVE (its DSP path), each compared byte for byte with the numpy
reference.
"""

from __future__ import annotations

import numpy as np
import pytest
from helia_aot_ops_builtin.common.rescale import add_sub_rescale
from hypothesis import given
from hypothesis import strategies as st

from ops_builtin.common.test_fc_pool_binary_paths import Case, binary_quant_case, program
from ops_builtin.support.cross_check import FEW_BUILDS, check_program, paths

pytestmark = [pytest.mark.cross]

PATHS = paths("m55-mve", "m55-mve-O0", "m55-dsp")


@st.composite
def flat_case(draw) -> dict:
    """Arguments of add_case: one flat ADD or SUB."""
    return dict(
        op=draw(st.sampled_from(["ADD", "ADD", "ADD", "SUB"])),
        n=draw(st.integers(1, 70)),
        scales=draw(st.sampled_from(["first", "second", "equal", "drawn"])),
        act=draw(st.sampled_from(["full", "relu", "relu", "narrow"])),
        seed=draw(st.integers(0, 2**32 - 1)),
    )


def add_case(*, op: str, n: int, scales: str, act: str, seed: int) -> Case:
    """A flat call: `scales` makes input 1 or 2 the larger (its exponent 0), equal, or drawn."""
    rng = np.random.default_rng(seed)
    a = rng.integers(-128, 127, (n,), endpoint=True).astype(np.int8)
    b = rng.integers(-128, 127, (n,), endpoint=True).astype(np.int8)
    zp1, zp2, zp_out = (int(v) for v in rng.integers(-128, 127, 3, endpoint=True))
    small, large = sorted(float(np.float32(v)) for v in rng.uniform(0.01, 0.1, 2))
    s1, s2 = {
        "first": (large, small),
        "second": (small, large),
        "equal": (large, large),
        "drawn": (float(np.float32(rng.uniform(0.01, 0.1))), float(np.float32(rng.uniform(0.01, 0.1)))),
    }[scales]
    so = float(np.float32(max(s1, s2) * rng.uniform(0.7, 3.0)))
    r = add_sub_rescale(op, False, s1, zp1, s2, zp2, so, zp_out)
    lo, hi = {"full": (-128, 127), "relu": (zp_out, 127), "narrow": (-20, 40)}[act]
    q = {name: getattr(r, name) for name in r.__slots__ if name != "pot_scale"}
    q.update(activation_min=lo, activation_max=hi)
    return binary_quant_case(op, a, b, q)


@pytest.mark.parametrize("path_name", sorted(PATHS))
@FEW_BUILDS
@given(drawn=st.lists(flat_case(), min_size=8, max_size=12))
def test_flat_add_matches_the_reference(path_name, drawn, tmp_path_factory):
    cases = [add_case(**kwargs) for kwargs in drawn]
    # Always the ResNet-8 residual adds' form: one input's exponent 0, a ReLU, whole vectors.
    cases += [add_case(op="ADD", n=64, scales=s, act="relu", seed=7) for s in ("first", "second")]
    check_program(
        program(cases), tmp_path_factory.mktemp("add_flat"), PATHS[path_name], ("binary",), len(cases)
    )
