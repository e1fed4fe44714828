"""The onnx requantization kernels give the numpy QDQ model's bytes on the Cortex-M55 (Helium:
VCVTN requantization, vectorized inner products, depthwise channels, pooling windows and means)
and the Cortex-M4 (DSP: SMLAD inner products, FPv4 single-precision float), under QEMU.

One program holds a fixed set of cases (parameters, inputs and the expected outputs of
support/onnx_qdq_refmodels.py), cross-built once per core. The cases reach what selects code in
the fast paths: depths below, at and past the vector and word widths, channel counts with a
predicated tail (convolutions, poolings, means), a depthwise multiplier of one (Helium's vector
loop) and two (the scalar loop),
matrix operands read with strides (the generic loop) and with a nonzero second zero point, and
accumulators whose scaled values are exact rounding ties.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from ops_builtin.support import onnx_qdq_refmodels as ref
from ops_builtin.support.cross_check import paths, run_program

pytestmark = [pytest.mark.cross]

PATHS = paths("m55-mve", "m4-dsp")
CTYPES = {np.dtype(np.int8): "int8_t", np.dtype(np.int32): "int32_t", np.dtype(np.float32): "float"}


@dataclass(slots=True)
class Case:
    label: str
    params_type: str
    init: str  # with $<key> for each array
    call: str  # with $p for the params and $<key> for each array
    arrays: dict = field(default_factory=dict)
    expected: np.ndarray | None = None


def _scale(rng) -> float:
    return float(rng.integers(1, 8) * 2.0 ** rng.integers(-9, -3))


def depthwise_case(rng, n, h, w, ic, fh, fw, stride, mdepth=1) -> Case:
    """The convolutions the converter emits run the packed kernel, cross-tested in
    test_onnx_requant_fast_paths.py."""
    oh, ow = (h - fh) // stride + 1, (w - fw) // stride + 1  # VALID
    oc = ic * mdepth
    x = rng.integers(-128, 128, (n, h, w, ic)).astype(np.int8)
    wt = rng.integers(-127, 128, (1, fh, fw, oc)).astype(np.int8)
    bias = rng.integers(-3000, 3000, oc).astype(np.int32)
    zx, zy = int(rng.integers(-128, 128)), int(rng.integers(-20, 20))
    mult = ref.conv_multipliers(_scale(rng), [_scale(rng) for _ in range(oc)], _scale(rng) * 64).astype(
        np.float32
    )
    args = ((stride, stride), (1, 1), (0, 0), (oh, ow), mult, zy, -128, 127)
    want = ref.depthwise(x, zx, wt, bias, mdepth, *args)
    init = (
        f".batches = {n}, .input_height = {h}, .input_width = {w}, .input_channels = {ic}, "
        f".output_height = {oh}, .output_width = {ow}, .output_channels = {oc}, .filter_height = {fh}, "
        f".filter_width = {fw}, .stride_height = {stride}, .stride_width = {stride}, .dilation_height = 1, "
        f".dilation_width = 1, .depth_multiplier = {mdepth}, .input_offset = {-zx}, "
        f".output_offset = {zy}, .act_min = -128, .act_max = 127, .multiplier = $m, .bias = $b"
    )
    return Case(
        f"depthwise {h}x{w}x{ic}->{oc} k{fh}x{fw} s{stride} m{mdepth}",
        "hk_onnx_conv_params_t",
        init,
        "hk_onnx_depthwise_s8($p, $x, $w, out)",
        {"x": x, "w": wt, "b": bias, "m": mult},
        want,
    )


def matmul_case(rng, rows, cols, depth, zb=0, tie=False) -> Case:
    a = rng.integers(-128, 128, (1, rows, depth)).astype(np.int8)
    b_nk = rng.integers(-127, 128, (1, cols, depth)).astype(np.int8)  # read as [k, n] through strides
    za = int(rng.integers(-128, 128))
    bias = rng.integers(-5000, 5000, cols).astype(np.int32)
    sx, sw = _scale(rng), [_scale(rng) for _ in range(cols)]
    # An output scale that keeps the outputs off the clamp: about the accumulators' spread.
    mult = ref.conv_multipliers(sx, sw, sx * max(sw) * 48 * np.sqrt(depth)).astype(np.float32)
    if tie:  # every accumulator its (odd) bias, scaled by one half: all ties
        a[:] = 0
        b_nk[:] = 0
        za = 0
        bias = (2 * rng.integers(-60, 60, cols) + 1).astype(np.int32)
        mult = np.full(cols, 0.5, np.float32)
    want = ref.matmul(a, za, b_nk.transpose(0, 2, 1), zb, bias, mult, 3, -128, 127)
    init = (
        f".batches = 1, .rows = {rows}, .cols = {cols}, .depth = {depth}, .a_batch_stride = 0, "
        f".a_row_stride = {depth}, .a_depth_stride = 1, .b_batch_stride = 0, .b_depth_stride = 1, "
        f".b_col_stride = {depth}, .a_offset = {-za}, .b_offset = {-zb}, .output_offset = 3, "
        f".act_min = -128, .act_max = 127, .per_channel = 1, .multiplier = $m, .bias = $b"
    )
    return Case(
        f"matmul {rows}x{depth}x{cols} zb{zb}{' ties' if tie else ''}",
        "hk_onnx_matmul_params_t",
        init,
        "hk_onnx_matmul_s8($p, $a, $w, out)",
        {"a": a, "w": b_nk, "b": bias, "m": mult},
        want,
    )


def binary_case(rng, kind, shape) -> Case:
    a = rng.integers(-128, 128, shape).astype(np.int8)
    b = rng.integers(-128, 128, (shape[-1],)).astype(np.int8)  # broadcast along the last axis
    sa, sb = _scale(rng), _scale(rng)
    sy = sa * sb * 256 if kind == "mul" else (sa + sb) * 1.5  # outputs spread over the int8 range
    za, zb, zy = (int(v) for v in rng.integers(-128, 128, 3))
    want = ref.binary(kind, a, sa, za, b, sb, zb, sy, zy)
    dims = len(shape)
    strides = [int(np.prod(shape[i + 1 :])) for i in range(dims)]
    b_strides = [0] * (dims - 1) + [1]
    pad = [1] * (5 - dims), [0] * (5 - dims)

    def arr(values):
        return "{" + ", ".join(str(v) for v in values) + "}"

    init = (
        f".dims = {dims}, .shape = {arr([*shape, *pad[0]])}, .a_strides = {arr([*strides, *pad[1]])}, "
        f".b_strides = {arr([*b_strides, *pad[1]])}, .a_zero_point = {za}, .b_zero_point = {zb}, "
        f".output_zero_point = {zy}, .a_scale = {float(sa).hex()}f, .b_scale = {float(sb).hex()}f, "
        f".output_scale = {float(sy).hex()}f, .act_min = -128, .act_max = 127"
    )
    return Case(
        f"{kind} {shape}",
        "hk_onnx_binary_params_t",
        init,
        f"hk_onnx_{kind}_s8($p, $a, $b, out)",
        {"a": a, "b": b},
        want,
    )


def pool_case(rng, h, w, c, f, stride) -> Case:
    oh, ow = (h - f) // stride + 1, (w - f) // stride + 1
    x = rng.integers(-128, 128, (1, h, w, c)).astype(np.int8)
    sx = _scale(rng)
    sy = sx * float(rng.choice([0.375, 0.75, 1.0, 1.5]))  # outputs spread over the int8 range
    zx, zy = (int(v) for v in rng.integers(-30, 30, 2))
    want = ref.avg_pool(x, zx, sx, f, f, (stride, stride), (0, 0), (oh, ow), sy, zy, -128, 127)
    init = (
        f".batches = 1, .input_height = {h}, .input_width = {w}, .channels = {c}, .output_height = {oh}, "
        f".output_width = {ow}, .filter_height = {f}, .filter_width = {f}, .stride_height = {stride}, "
        f".stride_width = {stride}, .pad_top = 0, .pad_left = 0, .input_zero_point = {zx}, "
        f".output_zero_point = {zy}, .input_scale = {float(sx).hex()}f, .output_scale = {float(sy).hex()}f, "
        f".act_min = -128, .act_max = 127"
    )
    return Case(
        f"avg pool {h}x{w}x{c} f{f}",
        "hk_onnx_pool_params_t",
        init,
        "hk_onnx_avg_pool_s8($p, $x, out)",
        {"x": x},
        want,
    )


def mean_case(rng, outer, reduce, inner) -> Case:
    x = rng.integers(-128, 128, (outer, reduce, inner)).astype(np.int8)
    sx = _scale(rng)
    sy = sx * float(rng.choice([0.375, 0.75, 1.0, 1.5]))  # outputs spread over the int8 range
    zx, zy = (int(v) for v in rng.integers(-30, 30, 2))
    init = (
        f".outer = {outer}, .reduce = {reduce}, .inner = {inner}, .input_zero_point = {zx}, "
        f".output_zero_point = {zy}, .input_scale = {float(sx).hex()}f, .output_scale = {float(sy).hex()}f"
    )
    return Case(
        f"mean {outer}x{reduce}x{inner}",
        "hk_onnx_mean_params_t",
        init,
        "hk_onnx_mean_s8($p, $x, out)",
        {"x": x},
        ref.mean(x, zx, sx, sy, zy),
    )


def cases() -> list[Case]:
    rng = np.random.default_rng(3535)
    return [
        depthwise_case(rng, 1, 6, 6, 7, 3, 3, 1),
        depthwise_case(rng, 1, 5, 5, 9, 3, 3, 2),
        depthwise_case(rng, 1, 4, 4, 3, 2, 2, 1, mdepth=2),
        matmul_case(rng, 2, 5, 3),
        matmul_case(rng, 1, 9, 16),
        matmul_case(rng, 3, 7, 37),
        matmul_case(rng, 2, 4, 11, zb=-5),
        matmul_case(rng, 1, 41, 4, tie=True),
        binary_case(rng, "add", (3, 7)),
        binary_case(rng, "mul", (2, 2, 5)),
        binary_case(rng, "sub", (4, 3)),
        pool_case(rng, 6, 6, 5, 2, 2),
        pool_case(rng, 5, 4, 17, 3, 1),
        mean_case(rng, 2, 12, 7),
    ]


def _c_float(v: float) -> str:
    """A float32 constant in C, NaN and the infinities included."""
    if np.isnan(v):
        return '__builtin_nanf("")'
    if np.isinf(v):
        return "__builtin_inff()" if v > 0 else "-__builtin_inff()"
    return v.hex() + "f"


def c_array(name: str, values: np.ndarray) -> str:
    values = np.asarray(values)
    flat = values.reshape(-1)
    if values.dtype == np.float32:
        text = ", ".join(_c_float(float(v)) for v in flat)
    else:
        text = ", ".join(str(int(v)) for v in flat)
    return f"static const {CTYPES[values.dtype]} {name}[{max(flat.size, 1)}] = {{{text or '0'}}};\n"


def fill(template: str, names: dict) -> str:
    for key in sorted(names, key=len, reverse=True):
        template = template.replace(f"${key}", names[key])
    return template


def program(all_cases: list[Case]) -> str:
    out_bytes = max(c.expected.nbytes for c in all_cases)
    parts = [
        '#include <stdio.h>\n#include <string.h>\n#include "hk_isa.h"\n#include "hk_onnx_requant.h"\n\n',
        f"static int8_t out[{out_bytes}];\n\n",
    ]
    calls = []
    for i, c in enumerate(all_cases):
        names = {"p": f"&p{i}"}
        for key, arr in c.arrays.items():
            names[key] = f"c{i}_{key}"
            parts.append(c_array(names[key], arr))
        parts.append(c_array(f"c{i}_y", c.expected))
        calls.append(
            f"    {{\n        const {c.params_type} p{i} = {{{fill(c.init, names)}}};\n"
            f"        memset(out, 0x5A, sizeof out);\n"
            f"        if ({fill(c.call, names)} != 0 || memcmp(out, c{i}_y, {c.expected.nbytes}u) != 0) {{\n"
            f'            printf("case {i} ({c.label}) differs\\n");\n'
            "            ++failures;\n        }\n    }\n"
        )
    parts.append('\nint main(void)\n{\n    int failures = 0;\n    printf("path %s\\n", HK_ISA_PATH);\n')
    parts.extend(calls)
    parts.append(
        f'    printf("%d of {len(all_cases)} cases differ\\n", failures);\n    return failures;\n}}\n'
    )
    return "".join(parts)


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("onnx_requant_cross") / "main.c"
    path.write_text(program(cases()))
    return path


def test_cases_are_not_trivial():
    """Every case's expected output spans several values (a clamped one would hide errors), and
    the tie case's outputs are exactly what round half to even gives (not away from zero)."""
    all_cases = cases()
    for c in all_cases:
        assert np.unique(c.expected).size > 2, c.label
    tie = next(c for c in all_cases if c.label.endswith("ties"))
    assert np.array_equal(tie.expected.reshape(-1), (np.rint(tie.arrays["b"] * 0.5) + 3).astype(np.int8))


@pytest.mark.parametrize("path_name", sorted(PATHS))
def test_every_path_matches_the_qdq_model(path_name, source, tmp_path):
    run = run_program(source, tmp_path, PATHS[path_name], ("onnx_requant",))
    assert f"0 of {len(cases())} cases differ" in run.stdout, run.stdout
