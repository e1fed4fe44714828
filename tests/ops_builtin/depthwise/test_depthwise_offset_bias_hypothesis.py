"""hk_depthwise_s8_offset_bias (goal size's once-per-layer fold) against numpy, then in use.

Goal size stores no ``offset_bias`` constant, so its int8 depthwise row loops fold the input offset
into the bias once per layer on their own stack (conv_rows.c.mako) and every row call starts its
whole windows from it instead of folding again. The fold must equal bias + input_offset * the sum
of each output channel's taps in wrapping int32 for every shape the row loops may hand it:
hypothesis draws channel counts around Helium's four-channel steps (and their scalar tail), depth
multipliers, filters up to 5x5, input offsets at the int8 limits and missing biases. One program
holds a draw's cases, each checked element by element, and the last case also runs
hk_depthwise_s8 from the computed fold against the reference interpreter's bytes (the kernel
cases of test_conv_paths), on Helium at -O2 and -O0 and on the M55 without MVE or DSP.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ops_builtin.conv.test_conv_paths import DW_FIELDS, c_array, case_arrays, dw_case
from ops_builtin.support.cross_check import FEW_BUILDS, check_program, paths

pytestmark = [pytest.mark.cross]

PATHS = paths("m55-mve", "m55-mve-O0", "m55-portable", "m4-dsp")


@st.composite
def fold_case(draw):
    """Shape, offset and seed of one fold."""
    return dict(
        channels=draw(st.sampled_from([1, 3, 4, 5, 8, 13, 64, 67])),
        multiplier=draw(st.integers(1, 2)),
        kh=draw(st.integers(1, 5)),
        kw=draw(st.integers(1, 5)),
        offset=draw(st.sampled_from([-127, -1, 0, 1, 128])),
        with_bias=draw(st.booleans()),
        seed=draw(st.integers(0, 2**32 - 1)),
    )


def reference_fold(w: np.ndarray, bias: np.ndarray | None, offset: int) -> np.ndarray:
    """bias + offset * the taps' sum per output channel, wrapped to int32 as the C does."""
    sums = w.reshape(-1, w.shape[-1]).astype(np.int64).sum(axis=0) * offset
    start = np.zeros_like(sums) if bias is None else bias.astype(np.int64)
    return ((start + sums + 2**31) % 2**32 - 2**31).astype(np.int32)


def fold_program(drawn: list[dict]) -> tuple[str, int]:
    """The C program: each drawn fold checked against reference_fold, then one KWS-shaped
    depthwise run from a computed fold against the reference output."""
    parts = ['#include <stdio.h>\n#include <string.h>\n#include "hk_depthwise.h"\n#include "hk_isa.h"\n\n']
    parts.append("static int32_t folded[512];\nstatic int8_t out[4096];\n\n")
    calls = []
    for i, d in enumerate(drawn):
        rng = np.random.default_rng(d["seed"])
        out_c = d["channels"] * d["multiplier"]
        w = rng.integers(-128, 128, size=(1, d["kh"], d["kw"], out_c), dtype=np.int8)
        if "fill" in d:  # every tap at one value: the sums' extremes
            w[...] = d["fill"]
        # Biases at the int32 limits make the sum wrap.
        bias = (
            rng.integers(-(2**31), 2**31, size=out_c, dtype=np.int64).astype(np.int32)
            if d["with_bias"]
            else None
        )
        expected = reference_fold(w, bias, d["offset"])
        parts.append(c_array("int8_t", f"f{i}_w", w))
        parts.append(c_array("int32_t", f"f{i}_y", expected))
        bias_arg = "NULL"
        if bias is not None:
            parts.append(c_array("int32_t", f"f{i}_b", bias))
            bias_arg = f"f{i}_b"
        fields = (
            f".batches = 1, .input_height = 1, .input_width = 1, .input_channels = {d['channels']}, "
            f".depth_multiplier = {d['multiplier']}, .filter_height = {d['kh']}, "
            f".filter_width = {d['kw']}, .output_height = 1, .output_width = 1, .stride_height = 1, "
            f".stride_width = 1, .dilation_height = 1, .dilation_width = 1, "
            f".input_offset = {d['offset']}"
        )
        calls.append(f"""    {{
        const hk_depthwise_params_t p = {{{fields}}};
        memset(folded, 0x5A, sizeof folded);
        const int32_t status = hk_depthwise_s8_offset_bias(&p, f{i}_w, {bias_arg}, folded);
        if (status != 0 || memcmp(folded, f{i}_y, sizeof f{i}_y) != 0) {{
            printf("fold {i} differs (status %ld)\\n", (long)status);
            ++failures;
        }}
    }}
""")
    # A whole layer as goal size's row loop runs it: the KWS shape, SAME padding, no stored fold.
    case = dw_case(np.random.default_rng(3), 64, 3, 3, size=(6, 5), fast=False)
    arrays, bias = case_arrays(case, 0)
    parts += arrays
    init = ", ".join(f".{k} = {case.fields[k]}" for k in DW_FIELDS)
    calls.append(f"""    {{
        hk_depthwise_params_t p = {{{init}, .output_multiplier = c0_m, .output_shift = c0_s}};
        int32_t status = hk_depthwise_s8_offset_bias(&p, c0_w, {bias}, folded);
        p.offset_bias = folded;
        memset(out, 0x5A, sizeof out);
        status |= hk_depthwise_s8(&p, c0_x, c0_w, {bias}, out);
        if (status != 0 || memcmp(out, c0_y, {case.expected.size}u) != 0) {{
            printf("the depthwise run from the fold differs\\n");
            ++failures;
        }}
    }}
""")
    total = len(drawn) + 1
    parts.append('\nint main(void)\n{\n    int failures = 0;\n    printf("path %s\\n", HK_ISA_PATH);\n')
    parts.extend(calls)
    parts.append(f'    printf("%d of {total} cases differ\\n", failures);\n    return failures;\n}}\n')
    return "".join(parts), total


@pytest.mark.parametrize("path_name", sorted(PATHS))
@FEW_BUILDS
@given(drawn=st.lists(fold_case(), min_size=6, max_size=10))
def test_the_run_time_fold_matches_the_reference(path_name, drawn, tmp_path_factory):
    text, total = fold_program(drawn)
    check_program(text, tmp_path_factory.mktemp("dw_fold"), PATHS[path_name], ("depthwise",), total)


# Helium sums eight channels a step in int16 lanes for filters of at most 256 taps (exact: 256
# int8 taps sum within int16) and four a step in int32 above that. These folds sit at the edge:
# 256 taps all -128 (the int16 minimum exactly) or all 127, and 272 taps (the int32 loop), with
# channel counts that leave a four-step and a scalar tail after the eight-channel steps.
EDGE_FOLDS = [
    dict(channels=13, multiplier=1, kh=16, kw=16, offset=128, with_bias=True, seed=1, fill=-128),
    dict(channels=8, multiplier=1, kh=16, kw=16, offset=-127, with_bias=False, seed=2, fill=127),
    dict(channels=13, multiplier=1, kh=16, kw=17, offset=128, with_bias=True, seed=3, fill=-128),
    dict(channels=5, multiplier=2, kh=16, kw=16, offset=-1, with_bias=True, seed=4),
]


@pytest.mark.parametrize("path_name", sorted(PATHS))
def test_the_fold_at_the_int16_lane_limit(path_name, tmp_path_factory):
    text, total = fold_program(EDGE_FOLDS)
    check_program(text, tmp_path_factory.mktemp("dw_fold_edge"), PATHS[path_name], ("depthwise",), total)
