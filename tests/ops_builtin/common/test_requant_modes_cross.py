"""hk_requant_mode picks an exact form on every path, whichever channel decides it.

hk_requant_row_s8 requantizes a row in the cheapest form that is exact for all its channels,
as hk_requant_mode decides once per call: on Helium from vector maxima and minima (whole
vectors, then a predicated tail), on the DSP extension from one loop that also spots the
single-SMMLAR form (multipliers in [2^30, 2^31), shifts in [-31, -1]), in portable C from sign
bits four channels at a time. test_requant.py checks the portable choice on the host and
test_conv_paths.py runs typical rows on every path; the rows here sit on the boundaries of each
choice, so a mode test that is off by one sends some row to a form that is not exact for it:
the only left shift (or the only too-deep right shift) in the predicated tail, a largest shift
of exactly 1 or 0, multipliers just below 2^30 (not the SMMLAR form), and a shift of -24 (one
past the narrow form) on an accumulator where that form's saturating add would change the byte;
and every rounding tie of every right shift, on both sides of zero and up to the int32 limits,
where Helium's "ties up" VRSHL is corrected to ties away from zero.
Each row is checked against the numpy reference (conv_family_refmodels) under QEMU.
"""

from __future__ import annotations

import numpy as np
import pytest

from ops_builtin.conv.test_conv_paths import RequantRow, c_array, conv_call_case
from ops_builtin.conv.test_conv_paths import program as conv_program
from ops_builtin.support import conv_family_refmodels as ref
from ops_builtin.support.cross_check import PATHS, check_program, run_program

EDGE = np.array([2**31 - 1, -(2**31), 2**31 - 2, -(2**31) + 1, 0, 1, -1, 2**30, -(2**30)], np.int64)


def _row(rng, n: int, shifts: tuple[int, int], mult: tuple[int, int], act=(-128, 127), offset=-3):
    acc = np.concatenate([EDGE, rng.integers(-(2**31), 2**31, max(n - EDGE.size, 0))])[:n]
    rng.shuffle(acc)
    m = rng.integers(*mult, n)
    s = rng.integers(shifts[0], shifts[1], n, endpoint=True)
    return acc.astype(np.int32), m.astype(np.int32), s.astype(np.int32), offset, act


def tie_accumulators() -> tuple[np.ndarray, np.ndarray]:
    """Accumulators on and around each rounding tie of a right shift by e = 1..31, with -e."""
    acc, shift = [], []
    for e in range(1, 32):
        for k in (0, 1, 37, 100, 127):
            base = k * 2**e + 2 ** (e - 1)
            if base + 3 >= 2**31:
                continue
            for sign in (1, -1):
                for d in range(-3, 4):
                    acc.append(sign * (base + d))
                    shift.append(-e)
    return np.array(acc, np.int64), np.array(shift, np.int64)


def requant_mode_rows() -> list[RequantRow]:
    rng = np.random.default_rng(27)
    rows = []
    q30 = (1 << 30, 2**31)
    for n in (1, 3, 4, 5, 8, 9, 13):
        # Narrow everywhere but the last channel, which alone decides the mode.
        for last_shift, last_mult in ((2, None), (1, None), (0, None), (-24, None), (-5, -(2**31))):
            acc, m, s, offset, act = _row(rng, n, (-23, -1), q30)
            s[-1] = last_shift
            if last_mult is not None:
                m[-1] = last_mult
            acc[-1] = 2**31 - 1 if n % 2 else -(2**31) + 1
            rows.append((acc, m, s, offset, act))
    # Largest shift exactly 1 (one left shift) or 0 (none), with the int32 limits.
    for top in (1, 0):
        acc, m, s, offset, act = _row(rng, 45, (-31, top), q30)
        s[: top + 2 + 3] = top
        rows.append((acc, m, s, offset, act))
    # Multipliers just below 2^30: every shift in [-31, -1], but not the SMMLAR form.
    # Accumulators up to 2^22 and shifts in [-22, -16] keep most bytes off the clamp, where a
    # form that assumed a multiplier of at least 2^30 would be off by about the accumulator.
    acc, m, s, offset, act = _row(rng, 47, (-22, -16), (1 << 29, 1 << 30))
    acc[EDGE.size :] = rng.integers(-(1 << 22), 1 << 22, acc.size - EDGE.size)
    s[: EDGE.size] = rng.integers(-31, -1, EDGE.size, endpoint=True)
    m[:4] = ((1 << 30) - 1, 1 << 29, (1 << 30) - 2, (1 << 29) + 1)
    rows.append((acc, m, s, offset, act))
    # Shift -24 where y is within 2^23 of INT32_MAX: exactly 128 after rounding, so the byte is
    # 0 with offset -128, where a saturating narrow add would give -1. One small multiplier keeps
    # the DSP off the SMMLAR form.
    acc, m, s, _, _ = _row(rng, 12, (-24, -1), q30)
    acc[:6], m[:6], s[:6] = 2**31 - 1, 2**31 - 1, -24
    m[6] = 1 << 29
    rows.append((acc, m, s, -128, (-128, 127)))
    # Ties: every right shift e, accumulators k * 2^e + 2^(e-1) + d (d in [-3, 3], either sign,
    # up to the int32 limits), a multiplier of almost one so the tie survives the multiply, and
    # quotients inside int8 so a tie rounded the wrong way changes the byte. Once with a left
    # shift in the row (the general form), once without (the right form; on the DSP the
    # single-SMMLAR form).
    acc, shift = tie_accumulators()
    for general in (True, False):
        a, s = (np.concatenate([[12345], acc]), np.concatenate([[1], shift])) if general else (acc, shift)
        m = np.full(a.size, 2**31 - 1, np.int64)
        rows.append((a.astype(np.int32), m.astype(np.int32), s.astype(np.int32), 0, (-128, 127)))
    return [
        RequantRow(a, m, s, o, act, ref.requantize(a, None, m, s, o, act, np.int8))
        for a, m, s, o, act in rows
    ]


def program(rows: list[RequantRow]) -> str:
    parts = ['#include <stdio.h>\n#include <string.h>\n#include "hk_isa.h"\n#include "hk_requant.h"\n\n']
    width = max(r.acc.size for r in rows)
    parts.append(f"static int8_t out[{width}];\n")
    # Not inlined, so n is not a constant the compiler reasons about (as in a kernel's call).
    parts.append(
        "__attribute__((noinline)) static void row(const int32_t *a, const int32_t *m,\n"
        "                                          const int32_t *s, int32_t n, int32_t offset,\n"
        "                                          int32_t lo, int32_t hi)\n"
        "{\n    hk_requant_row_s8(a, m, s, n, offset, lo, hi, hk_requant_mode(m, s, n), out);\n}\n"
    )
    calls = []
    for i, r in enumerate(rows):
        for name, arr, ctype in (
            ("a", r.acc, "int32_t"),
            ("m", r.mult, "int32_t"),
            ("s", r.shift, "int32_t"),
        ):
            parts.append(c_array(ctype, f"r{i}_{name}", arr))
        parts.append(c_array("int8_t", f"r{i}_y", r.expected))
        n = r.acc.size
        calls.append(
            f"    memset(out, 0x5A, sizeof out);\n"
            f"    row(r{i}_a, r{i}_m, r{i}_s, {n}, {r.offset}, {r.act[0]}, {r.act[1]});\n"
            f'    if (memcmp(out, r{i}_y, {n}u) != 0) {{ printf("row {i} differs\\n"); ++failures; }}\n'
        )
    parts.append('\nint main(void)\n{\n    int failures = 0;\n    printf("path %s\\n", HK_ISA_PATH);\n')
    parts.extend(calls)
    parts.append(f'    printf("%d of {len(rows)} rows differ\\n", failures);\n    return failures;\n}}\n')
    return "".join(parts)


@pytest.mark.cross
@pytest.mark.parametrize("path_name", sorted(PATHS))
def test_every_mode_boundary_row_matches_the_reference(path_name, tmp_path):
    rows = requant_mode_rows()
    check_program(program(rows), tmp_path, PATHS[path_name], (), len(rows), unit="rows")


def left_shift_conv_cases() -> list:
    """Convolutions whose requantization scale is in [1, 2) (a left shift of 1), on inputs
    and filters small enough that every output stays inside int8: there the two-pixel loops'
    general form (shift, multiply, round) differs from the right form (multiply, round, shift)
    on every odd result, so each pixel of a pair must be requantized in the form the row needs."""
    rng = np.random.default_rng(271)
    cases = []
    for c, oc, k, size in ((8, 4, 1, (4, 6)), (16, 8, 1, (5, 6)), (3, 5, 3, (6, 5)), (6, 12, 3, (3, 8))):
        x = rng.integers(-1, 1, (1, *size, c), endpoint=True).astype(np.int8)
        w = rng.integers(-1, 1, (oc, k, k, c), endpoint=True).astype(np.int8)
        bias = rng.integers(-3, 3, oc, endpoint=True).astype(np.int32)
        mult = rng.integers(1 << 30, 2**31, oc).astype(np.int32)
        shift = np.ones(oc, np.int32)
        out_hw, pad = zip(*(ref.litert_out_pad("SAME", n, k, 1, 1) for n in size), strict=True)
        cases.append(conv_call_case(x, w, bias, mult, shift, out_hw, (1, 1), pad, (1, 1), 0, 0, (-128, 127)))
    return cases


@pytest.mark.cross
@pytest.mark.parametrize("path_name", sorted(PATHS))
def test_left_shifting_convolutions_requantize_both_pixels_exactly(path_name, tmp_path):
    cases = left_shift_conv_cases()
    assert all(np.abs(c.expected.astype(int)).max() < 127 for c in cases)  # no clamp hides a rounding
    source = tmp_path / "main.c"
    source.write_text(conv_program(cases, []))
    run = run_program(source, tmp_path, PATHS[path_name], ("conv", "depthwise"))
    assert f"0 of {len(cases)} cases differ" in run.stdout, run.stdout
