"""FULLY_CONNECTED, pooling and int8 ADD/SUB/MUL give the reference's bytes on every path.

The kernels choose Helium, DSP or plain C at compile time, so the host tests only see the plain
C path (and, for FULLY_CONNECTED, the integer requantization by a define). One program holding
a fixed set of cases (inputs, parameters and the numpy reference's outputs) is cross-built for
each path and run under QEMU: Cortex-M55 (Helium, hardware double rounding), Cortex-M55 without
MVE (DSP), without MVE or DSP (plain C) and Cortex-M4 (DSP, integer requantization). The
program prints the path hk_isa.h saw, so a compiler that stopped defining a feature macro
fails here instead of testing the wrong code.

The cases cover what selects code inside the fast paths: FULLY_CONNECTED depths across whole
and partial 16-byte chunks and words, unit counts around groups of four, row-major, folded and
packed weights, filter offsets, per-tensor and per-unit scales, and accumulators on and next to
rounding ties; pooling channels below, at and past 16 and 4, windows cut by the image edges and
windows too large for 16-bit sums; binary runs that are flat, broadcast along rows, broadcast
from a scalar, or strided (the element loop), with input shifts of zero and left-shifting MUL.

Assembly blocks this test checks (test_asm_inventory.py lists every block with its test):
hk_fc_dot4_packed_s8, hk_fc_dot4_widened_s8 and hk_fc_odd (hk_fc_dot.h), hk_fc_vcvta
(hk_fc_requant.h), pool_sxtab16_odd (hk_pool_dsp.c), binary_srdhm (hk_binary_scalar.c).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from helia_aot_ops_builtin.common.rescale import add_sub_rescale, mul_rescale
from helia_aot_ops_builtin.elementwise.broadcast_geometry import broadcast_geometry
from helia_aot_ops_builtin.fully_connected.fc_integer_requant import integer_requant
from helia_aot_ops_builtin.fully_connected.fully_connected import fold_fc_bias, pack_fc_filter

from ops_builtin.support import conv_family_refmodels as ref
from ops_builtin.support.cross_check import paths, run_program
from ops_builtin.support.elementwise_refmodels import binary_quantized

pytestmark = [
    pytest.mark.cross,
]

# (core, extra compiler flags, the path hk_isa.h must report)
PATHS = paths("m55-mve", "m55-dsp", "m55-portable", "m4-dsp")
CTYPES = {
    np.dtype(np.int8): "int8_t",
    np.dtype(np.int16): "int16_t",
    np.dtype(np.int32): "int32_t",
    np.dtype(np.int64): "int64_t",
    np.dtype(np.float64): "double",
}


@dataclass(slots=True)
class Case:
    """One kernel call: the C params initializer, named data arrays and the expected output."""

    label: str
    params_type: str
    init: str  # the params initializer, with $<key> for each array
    call: str  # the call, with $p for the params and $<key> for each array
    arrays: dict = field(default_factory=dict)
    expected: np.ndarray | None = None


# -- FULLY_CONNECTED ---------------------------------------------------------------------------


def fc_case(
    rng,
    batches,
    depth,
    units,
    *,
    layout="packed",
    per_channel=True,
    zp_w=0,
    bias_acc=None,
    scales=None,
    kind="s8",
    integer=False,
    zp_out=None,
) -> Case:
    """An FC call; ``bias_acc`` replaces the data by zeros and sets each accumulator directly.
    ``layout`` "generic" calls hk_fully_connected_s8_generic (row-major)."""
    if kind == "s8":
        x = rng.integers(-128, 127, (batches, depth), endpoint=True).astype(np.int8)
        zp_in, drawn_out = (int(v) for v in rng.integers(-128, 127, 2, endpoint=True))
        zp_out = drawn_out if zp_out is None else zp_out
        bias = rng.integers(-20000, 20000, units).astype(np.int32)
        lo, hi = (-128, 127) if rng.random() < 0.5 else (int(zp_out), 127)
    else:
        x = rng.integers(-32768, 32767, (batches, depth), endpoint=True).astype(np.int16)
        zp_in = zp_out = 0
        bias = rng.integers(-(1 << 22), 1 << 22, units).astype(np.int64 if kind == "s16" else np.int32)
        lo, hi = -32768, 32767
    w = rng.integers(-127, 127, (units, depth), endpoint=True).astype(np.int8)
    if bias_acc is not None:
        x[:] = 0
        w[:] = 0
        zp_in, zp_w = 0, 0
        bias = np.asarray(bias_acc, bias.dtype)
    if scales is None:
        count = units if per_channel else 1
        scales = float(np.float32(0.02)) * rng.uniform(1e-3, 2e-2, count) / float(np.float32(0.05))
    expected = ref.fully_connected_int(x, w, bias, -zp_in, -zp_w, zp_out, scales, (lo, hi), x.dtype.type)
    init = (
        f".batches = {batches}, .input_features = {depth}, .output_features = {units}, "
        f".input_offset = {-zp_in}, .filter_offset = {-zp_w}, .output_offset = {zp_out}, "
        f".act_min = {lo}, .act_max = {hi}, .output_scale = $s, "
        f".per_channel = {int(per_channel)}"
    )
    arrays = {"x": x, "s": np.asarray(scales, np.float64)}
    if kind == "s8" and layout not in ("rows", "generic"):
        arrays["f"] = fold_fc_bias(w, bias, -zp_in, -zp_w)
        init += ", .folded_bias = $f"
        bias_arg = "NULL"
        if layout == "packed":
            w = pack_fc_filter(w)
            init += ", .packed_filter = 1"
            # The Helium kernel's integer requantization, where the converter's check accepts it.
            requant = integer_requant(scales, zp_out, lo, hi) if integer else None
            if requant is not None:
                arrays["m"] = np.broadcast_to(requant.multipliers, (units,)).astype(np.int32)
                init += (
                    f", .requant_multiplier = $m, .requant_left = {requant.left}, "
                    f".requant_right = {requant.right}"
                )
    else:
        arrays["b"] = bias
        bias_arg = "$b"
    arrays["w"] = w
    suffix = "s8_generic" if layout == "generic" else kind
    call = f"hk_fully_connected_{suffix}($p, $x, $w, {bias_arg}, (void *)out)"
    label = f"fc {kind} {batches}x{depth}->{units} {layout}"
    return Case(label, "hk_fully_connected_params_t", init, call, arrays, expected)


def tie_accumulators(scales: list[float]) -> tuple[list[int], list[float]]:
    """Accumulators whose products sit on, or one step beside, a rounding tie."""
    accs, unit_scales = [], []
    for scale in scales:
        for tie in (0.5, 2.5, -1.5, 60.5):
            acc = int(round(tie / scale))
            for a in (acc - 1, acc, acc + 1):
                accs.append(a)
                unit_scales.append(scale)
    return accs, unit_scales


def overflow_accumulators() -> tuple[list[int], list[float]]:
    """Accumulators whose requantized value lands just inside int32, on its limits or past them
    (the reference gives INT32_MIN past either limit, finding 1:292; VCVTA alone saturates):
    x = acc * scale at 2^31 - 1 (kept), 2^31 - 1/2 (a tie rounding out), 2^31 and -2^31 - 1."""
    rows = [
        (1.0, (2147483647, -2147483647, -2147483648)),
        (1.5, (1431655764, 1431655765, 1431655766, -1431655765, -1431655766)),
        (2.0, (1073741823, 1073741824, -1073741824, -1073741825, 2147483647, -2147483648)),
        (2147483647 / 1431655765, (1431655765, -1431655765)),
    ]
    accs = [a for _, row in rows for a in row]
    scales = [s for s, row in rows for _ in row]
    return accs, scales


def overflow_cases(rng) -> list[Case]:
    """Requantized values beyond int32 on every entry that may meet them: the int16 kernels
    (output offset 0, always), the row-major int8 loop the converter picks for layers that are not
    saturation_free, and the packed int8 paths with an output offset, which VCVTA's saturation
    leaves exact (fc_integer_requant.saturation_free)."""
    accs, scales = overflow_accumulators()
    big = rng.uniform(1000.0, 4000.0, 6)  # random int16 data whose sums overflow either way
    return [
        fc_case(rng, 1, 1, len(accs), kind="s16", bias_acc=accs, scales=scales),
        fc_case(rng, 1, 1, len(accs), kind="s16_b32", bias_acc=accs, scales=scales),
        fc_case(rng, 2, 23, 6, kind="s16", scales=big),
        fc_case(rng, 1, 1, len(accs), layout="generic", bias_acc=accs, scales=scales, zp_out=0),
        fc_case(rng, 1, 1, len(accs), layout="rows", bias_acc=accs, scales=scales, zp_out=-7),
        fc_case(rng, 1, 1, len(accs), layout="packed", bias_acc=accs, scales=scales, zp_out=5),
        fc_case(rng, 1, 1, len(accs), layout="packed", bias_acc=accs, scales=scales, zp_out=-1),
    ]


def fc_cases(rng) -> list[Case]:
    out = [
        fc_case(rng, 1, d, u, integer=u >= 8)
        for d, u in ((640, 8), (128, 12), (8, 16), (17, 5), (33, 7), (70, 4), (1, 3), (15, 9))
    ]
    out += [
        fc_case(rng, 2, 37, 6, layout="rows", per_channel=False, zp_w=5),
        fc_case(rng, 3, 20, 9, layout="folded", per_channel=False, zp_w=-3),
        fc_case(rng, 2, 50, 13, layout="packed", per_channel=False, zp_w=7),
        fc_case(rng, 1, 64, 12, layout="rows"),
    ]
    ties = [2.0**-4, float(np.nextafter(2.0**-4, 0.0)), float(np.nextafter(2.0**-7, 1.0)), 0.5, 0.3]
    accs, scales = tie_accumulators(ties)
    out.append(fc_case(rng, 1, 1, len(accs), bias_acc=accs, scales=scales))
    out += [
        fc_case(rng, 2, 19, 5, kind="s16"),
        fc_case(rng, 1, 40, 3, kind="s16_b32"),
        fc_case(rng, 1, 8, 6, kind="s16", per_channel=False),
    ]
    out += overflow_cases(rng)
    for _ in range(12):  # random shapes and layouts
        out.append(
            fc_case(
                rng,
                int(rng.integers(1, 4)),
                int(rng.integers(1, 90)),
                int(rng.integers(1, 18)),
                layout=str(rng.choice(["rows", "folded", "packed"])),
                per_channel=bool(rng.random() < 0.5),
                zp_w=int(rng.integers(-20, 20)),
            )
        )
    return out


# -- pooling ----------------------------------------------------------------------------------


def pool_reference(kind, x, oh, ow, filt, stride, pad, act):
    info = np.iinfo(x.dtype)
    y = np.zeros((x.shape[0], oh, ow, x.shape[3]), np.int64)
    for oy, ox, win in ref.pool_windows(x.astype(np.int64), (oh, ow), filt, stride, pad):
        if kind == "max":
            best = win.max(axis=(1, 2)) if win.size else np.full((x.shape[0], x.shape[3]), info.min)
            y[:, oy, ox, :] = np.maximum(best, info.min)
        else:
            total = win.sum(axis=(1, 2))
            count = win.shape[1] * win.shape[2]
            num = np.where(total > 0, total + count // 2, total - count // 2)
            y[:, oy, ox, :] = np.sign(num) * (np.abs(num) // count)
    return np.clip(y, max(act[0], info.min), min(act[1], info.max)).astype(x.dtype)


def pool_case(rng, kind, dtype, n, h, w, c, filt, stride, mode="SAME", act=None) -> Case:
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, (n, h, w, c), endpoint=True).astype(dtype)
    (oh, pt), (ow, pl) = (
        ref.litert_out_pad(mode, h, filt[0], stride[0], 1),
        ref.litert_out_pad(mode, w, filt[1], stride[1], 1),
    )
    act = act or (int(info.min), int(info.max))
    init = (
        f".batches = {n}, .input_height = {h}, .input_width = {w}, .channels = {c}, "
        f".output_height = {oh}, .output_width = {ow}, .filter_height = {filt[0]}, "
        f".filter_width = {filt[1]}, .stride_height = {stride[0]}, .stride_width = {stride[1]}, "
        f".pad_top = {pt}, .pad_left = {pl}, .act_min = {act[0]}, .act_max = {act[1]}"
    )
    suffix = "s8" if dtype == np.int8 else "s16"
    expected = pool_reference(kind, x, oh, ow, filt, stride, (pt, pl), act)
    return Case(
        f"{kind} pool {suffix} {h}x{w}x{c} {filt}",
        "hk_pool_params_t",
        init,
        f"hk_{kind}_pool_{suffix}($p, $x, (void *)out)",
        {"x": x},
        expected,
    )


def pool_cases(rng) -> list[Case]:
    out = []
    for kind in ("avg", "max"):
        out += [
            pool_case(rng, kind, np.int8, 1, 25, 5, 64, (25, 5), (1, 1), "VALID"),
            pool_case(rng, kind, np.int8, 1, 7, 6, 37, (3, 3), (2, 2), act=(-20, 90)),
            pool_case(rng, kind, np.int8, 2, 5, 5, 3, (2, 3), (1, 2)),
            pool_case(rng, kind, np.int8, 1, 6, 5, 5, (3, 3), (1, 1)),
            pool_case(rng, kind, np.int8, 1, 6, 4, 16, (2, 2), (2, 2), "VALID"),
            pool_case(rng, kind, np.int8, 1, 20, 18, 6, (17, 16), (2, 1), "VALID"),  # 272 taps
            pool_case(rng, kind, np.int16, 1, 6, 5, 11, (3, 3), (2, 1), act=(-3000, 20000)),
            pool_case(rng, kind, np.int16, 1, 4, 4, 17, (4, 4), (1, 1), "VALID"),
        ]
    for _ in range(16):  # random geometries
        h, w = (int(v) for v in rng.integers(1, 10, 2))
        filt = tuple(int(v) for v in rng.integers(1, 5, 2))
        stride = tuple(int(v) for v in rng.integers(1, 4, 2))
        mode = "SAME" if rng.random() < 0.6 or filt[0] > h or filt[1] > w else "VALID"
        lo, hi = sorted(int(v) for v in rng.integers(-128, 128, 2))
        out.append(
            pool_case(
                rng,
                str(rng.choice(["avg", "max"])),
                np.int8,
                int(rng.integers(1, 3)),
                h,
                w,
                int(rng.integers(1, 40)),
                filt,
                stride,
                mode,
                act=(lo, hi),
            )
        )
    return out


# -- int8 ADD / SUB / MUL ----------------------------------------------------------------------


def binary_case(rng, op, shape1, shape2, *, equal_scales=False, act=None, left=False) -> Case:
    a = rng.integers(-128, 127, shape1, endpoint=True).astype(np.int8)
    b = rng.integers(-128, 127, shape2, endpoint=True).astype(np.int8)
    zp1, zp2, zp_out = (int(v) for v in rng.integers(-128, 127, 3, endpoint=True))
    s1 = float(np.float32(rng.uniform(0.01, 0.1)))
    s2 = s1 if equal_scales else float(np.float32(rng.uniform(0.01, 0.1)))
    if op == "MUL":
        so = float(np.float32(s1 * s2 * (rng.uniform(0.01, 0.05) if left else rng.uniform(2, 200))))
        r = mul_rescale(s1, zp1, s2, zp2, so, zp_out)
    else:
        so = float(np.float32(max(s1, s2) * rng.uniform(0.7, 3.0)))
        r = add_sub_rescale(op, False, s1, zp1, s2, zp2, so, zp_out)
    lo, hi = act or (-128, 127)
    q = {name: getattr(r, name) for name in r.__slots__ if name != "pot_scale"}
    q.update(activation_min=lo, activation_max=hi)
    return binary_quant_case(op, a, b, q)


def binary_quant_case(op, a, b, q) -> Case:
    """The Case of one int8 binary call on a and b (their shapes broadcast) with the
    requantization fields q (hk_binary_quant_t's, without pot_scale)."""
    g = broadcast_geometry(a.shape, b.shape)
    geometry = (
        f".size = {g.size}, .broadcast = {'true' if g.broadcast else 'false'}, "
        f".shape = {{{', '.join(map(str, g.shape))}}}, "
        f".strides1 = {{{', '.join(map(str, g.strides1))}}}, "
        f".strides2 = {{{', '.join(map(str, g.strides2))}}}"
    )
    quant = ", ".join(f".{k} = {v}" for k, v in q.items())
    expected = binary_quantized(op, a, b, q, np.int8)
    return Case(
        f"{op} {a.shape} {b.shape}",
        "hk_binary_params_t",
        f".geometry = {{{geometry}}}, .quant = {{{quant}}}",
        f"hk_{op.lower()}_s8($p, $a, $b, out)",
        {"a": a, "b": b},
        expected,
    )


def binary_cases(rng) -> list[Case]:
    out = []
    for op in ("ADD", "SUB", "MUL"):
        out += [
            binary_case(rng, op, (1, 9, 9, 16), (1, 9, 9, 16)),  # flat
            binary_case(rng, op, (37,), (37,), equal_scales=True, act=(-10, 100)),
            binary_case(rng, op, (2, 5, 7, 19), (19,)),  # rows
            binary_case(rng, op, (3, 1, 21), (3, 5, 1)),  # scalar rows
            binary_case(rng, op, (2, 3, 13), (1,)),  # scalar input
            binary_case(rng, op, (1,), (4, 6)),
            binary_case(rng, op, (4, 1), (4, 3)),  # strided
            binary_case(rng, op, (3, 6), (6, 1, 1) if op == "SUB" else (3, 6)),
        ]
    out += [
        binary_case(rng, "MUL", (5, 11), (5, 11), left=True),
        binary_case(rng, "MUL", (7,), (1,), left=True, act=(-50, 50)),
    ]
    for _ in range(18):  # random broadcasts: each input keeps or drops each output dimension
        shape = [int(v) for v in rng.integers(1, 6, int(rng.integers(1, 5)))]
        shapes = [tuple(d if rng.random() < 0.7 else 1 for d in shape) for _ in range(2)]
        lo, hi = sorted(int(v) for v in rng.integers(-128, 128, 2))
        out.append(
            binary_case(
                rng,
                str(rng.choice(["ADD", "SUB", "MUL"])),
                *shapes,
                act=(lo, hi),
                equal_scales=bool(rng.random() < 0.3),
                left=bool(rng.random() < 0.3),
            )
        )
    return out


# -- the program --------------------------------------------------------------------------------


def cases() -> list[Case]:
    rng = np.random.default_rng(20240612)
    return fc_cases(rng) + pool_cases(rng) + binary_cases(rng)


def c_array(name: str, values: np.ndarray) -> str:
    values = np.asarray(values)
    ctype = CTYPES[values.dtype]
    flat = values.reshape(-1)
    text = ", ".join(float(v).hex() if ctype == "double" else str(int(v)) for v in flat)
    size = max(flat.size, 1)
    return f"static const {ctype} {name}[{size}] __attribute__((aligned(16))) = {{{text or '0'}}};\n"


def fill(template: str, names: dict) -> str:
    """Replace each $key of a case's initializer or call by its C name (longest keys first)."""
    for key in sorted(names, key=len, reverse=True):
        template = template.replace(f"${key}", names[key])
    return template


def program(all_cases: list[Case]) -> str:
    out_bytes = max(c.expected.nbytes for c in all_cases)
    parts = [
        '#include <stdio.h>\n#include <string.h>\n#include "hk_binary.h"\n'
        '#include "hk_fully_connected.h"\n#include "hk_fully_connected_generic.h"\n'
        '#include "hk_isa.h"\n#include "hk_pool.h"\n\n',
        f"static int8_t out[{out_bytes}] __attribute__((aligned(16)));\n\n",
    ]
    calls = []
    for i, c in enumerate(all_cases):
        names = {"p": f"&p{i}"}
        for key, arr in c.arrays.items():
            names[key] = f"c{i}_{key}"
            parts.append(c_array(names[key], arr))
        parts.append(c_array(f"c{i}_y", c.expected))
        calls.append(f"""    {{
        const {c.params_type} p{i} = {{{fill(c.init, names)}}};
        memset(out, 0x5A, sizeof out);
        const int32_t status = {fill(c.call, names)};
        if (status != 0 || memcmp(out, c{i}_y, {c.expected.nbytes}u) != 0) {{
            printf("case {i} ({c.label}) differs (status %ld)\\n", (long)status);
            ++failures;
        }}
    }}
""")
    parts.append('\nint main(void)\n{\n    int failures = 0;\n    printf("path %s\\n", HK_ISA_PATH);\n')
    parts.extend(calls)
    parts.append(
        f'    printf("%d of {len(all_cases)} cases differ\\n", failures);\n    return failures;\n}}\n'
    )
    return "".join(parts)


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("fc_pool_binary_paths") / "main.c"
    path.write_text(program(cases()))
    return path


def test_cases_hold_their_reference_outputs():
    """The expected outputs are the reference models' (a broken model would pass every path)."""
    all_cases = cases()
    assert len({c.label for c in all_cases}) > 40
    for c in all_cases:
        assert c.expected.size > 0 and c.expected.dtype in (np.int8, np.int16), c.label


@pytest.mark.parametrize("path_name", sorted(PATHS))
def test_every_path_matches_the_reference(path_name, source, tmp_path):
    families = ("fully_connected", "fully_connected_generic", "pool", "binary")
    run = run_program(source, tmp_path, PATHS[path_name], families)
    assert f"0 of {len(cases())} cases differ" in run.stdout, run.stdout
