"""Helium's 3x3 int8 DEPTHWISE_CONV_2D blocks against the reference on cases hypothesis draws.

hk_depthwise.c runs whole 3x3 windows (dilation 1, channels a multiple of 8, offset_bias,
right-shift requantization) along a row in one assembly block per eight channels, and windows cut
to 2 or 3 rows and columns by the image edge in another (the offset added per input, from the
plain bias); other windows take the sixteen-channel loop. Hypothesis draws
depthwise convolutions in and around that space (8 to 264 channels, strides, padding on every
edge, images narrower than the filter, input zero points at the int8 limits, left shifts and
dilations that take the other paths), and one program holding all of a draw's cases is
cross-built for Helium at -O2 and -O0 and for the M55 without MVE or DSP (the portable
reference path), each checked byte for byte against the numpy reference. Few draws, each many
cases, so only a handful of builds run.
"""

from __future__ import annotations

import numpy as np
import pytest
from helia_aot.testing import cross_build_program, run_qemu
from helia_aot_ops_builtin.kernels import KERNEL_DIR, kernel_sources
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .test_conv_paths import conv_case, dw_case, program, requant_rows

pytestmark = [pytest.mark.cross]

PATHS = {
    "m55-mve": ("m55", (), "mve"),
    "m55-mve-O0": ("m55", ("-O0",), "mve"),
    "m55-portable": ("m55", ("-mcpu=cortex-m55+nomve+nodsp",), "portable"),
}


@st.composite
def depthwise_case(draw):
    """Keyword arguments of dw_case for a depthwise convolution the 3x3 blocks may take."""
    in_space = draw(st.integers(0, 3)) > 0
    channels = draw(st.sampled_from([8, 16, 24, 64, 136, 256, 264])) if in_space else draw(st.integers(1, 40))
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
        seed=draw(st.integers(0, 2**32 - 1)),
    )


@pytest.mark.parametrize("path_name", sorted(PATHS))
@settings(
    max_examples=2,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(drawn=st.lists(depthwise_case(), min_size=8, max_size=12))
def test_depthwise_blocks_match_the_reference(path_name, drawn, tmp_path_factory):
    cases = []
    for kwargs in drawn:
        rng = np.random.default_rng(kwargs.pop("seed"))
        cases.append(dw_case(rng, kwargs.pop("c"), kwargs.pop("kh"), kwargs.pop("kw"), **kwargs))
    # Always one case with the KWS layers' shape: 64 channels, five columns, SAME padding.
    cases.append(dw_case(np.random.default_rng(0), 64, 3, 3, size=(6, 5)))
    # And one convolution, which program() needs to use its scratch buffer.
    cases.append(conv_case(np.random.default_rng(0), 16, 4, 3, 3, size=(4, 4)))
    work = tmp_path_factory.mktemp("depthwise_blocks")
    source = work / "main.c"
    source.write_text(program(cases))
    core, flags, expected_path = PATHS[path_name]
    kernels = [p for p in kernel_sources("conv", "depthwise") if p.suffix == ".c"]
    elf = cross_build_program([source, *kernels], work, core, include_dirs=[KERNEL_DIR], extra_cflags=flags)
    run = run_qemu(elf, core, timeout=60, count=False)
    assert f"path {expected_path}\n" in run.stdout, run.stdout
    assert run.returncode == 0, run.stdout
    assert f"0 of {len(cases) + len(requant_rows())} cases differ" in run.stdout
