"""The three state-struct assembly blocks of hk_conv_unfolded_mve.c, one by one.

unfolded_pw_asm (goal size's pointwise loop), unfolded_rows_asm (pairs of k x k windows) and
unfolded_lone_asm (one window's dots and the filters' sums) each read a struct through offsetof
operands and run whole loops without leaving the block. Each test here fills that struct as the
kernel would (any geometry the struct's comments allow, not only the ones a model produces:
pixel and filter strides with gaps, several groups, rows and pairs, an odd last pixel, fewer
than four real filters, shifts that are all right shifts or not), calls the block directly,
and compares the whole output buffer (stores outside the outputs included) with numpy's
reference of what the struct describes: the dot products, gemmlowp's requantization
(MultiplyByQuantizedMultiplier), the output offset and the clamp. The blocks are compiled only
when optimizing (at -O0 the kernel takes the intrinsics stand-ins, which
test_conv_unfolded_hypothesis.py runs), so the programs are built for the M55 at -O2.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ops_builtin.support import conv_family_refmodels as ref
from ops_builtin.support.asm_harness import SENTINEL, c_array, run_blocks
from ops_builtin.support.cross_check import FEW_BUILDS, paths

pytestmark = [pytest.mark.cross]

KERNEL = "hk_conv_unfolded_mve.c"
FAMILIES = ("conv_unfolded",)
PATHS = paths("m55-mve")

I64 = np.int64


def requant(acc: np.ndarray, mult: np.ndarray, shift: np.ndarray, offset: int, lo, hi) -> np.ndarray:
    """What every block does after its dot products: the reference's requantization, the
    output offset and the clamp, per lane."""
    y = ref.mbqm(ref.wrap32(acc), mult, shift) + offset
    return np.minimum(np.maximum(y, lo), hi)


def draw_quant(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Multipliers in [2^30, 2^31) and shifts: all right shifts (the blocks' short epilogue) or
    a mix with zero and left shifts (the general one), chosen per group of four."""
    mult = rng.integers(1 << 30, (1 << 31) - 1, size=n, dtype=I64)
    shift = np.empty(n, dtype=I64)
    for g in range(0, n, 4):
        if rng.random() < 0.5:
            shift[g : g + 4] = rng.integers(-12, 0, size=len(shift[g : g + 4]))
        else:
            shift[g : g + 4] = rng.integers(-8, 3, size=len(shift[g : g + 4]))
    return mult, shift


def dots(buf: np.ndarray, at: int, w: np.ndarray, starts: list[int], n: int) -> np.ndarray:
    """The four dot products of buf[at:at + n] with the filters at w[starts[j]:...]."""
    x = buf[at : at + n].astype(I64)
    return np.array([int(x @ w[s : s + n].astype(I64)) for s in starts], dtype=I64)


# ---- unfolded_pw_asm ---------------------------------------------------------------------------


@dataclass
class PwCase:
    """One call of unfolded_pw_asm: its struct's members and the buffers they point into."""

    name: str
    len: int
    groups: int
    rows: int
    pairs: int
    odd: int
    x_col: int
    x_adv: int
    x_row: int
    o_col: int
    w_step: int  # bytes from filter j to j + 1 of a group
    w_group: int
    add_step: int
    input_offset: int
    offset: int
    real: int  # filters stored per group (1..4)
    x: np.ndarray = field(repr=False)
    w: np.ndarray = field(repr=False)
    add: np.ndarray = field(repr=False)
    mult: np.ndarray = field(repr=False)
    shift: np.ndarray = field(repr=False)
    lo: np.ndarray = field(repr=False)
    hi: np.ndarray = field(repr=False)
    expect: np.ndarray = field(repr=False)


def pw_pixels(c: PwCase) -> list[tuple[int, int]]:
    """(input byte, output byte) of every pixel the block visits for group 0, in its order:
    pairs A, B per row (B x_col after A, its output o_col after A's), the next pair len + x_adv
    after A, x_row more between rows; the odd pixel (rows == 1) paired with itself."""
    seen = []
    a, o = 0, 0
    for _ in range(c.rows):
        for _ in range(c.pairs):
            seen += [(a, o), (a + c.x_col, o + c.o_col)]
            a += c.len + c.x_adv
            o += 2 * c.o_col
        if c.odd:
            seen.append((a, o))
        a += c.x_row
    return seen


def pw_case(
    rng: np.random.Generator,
    name: str,
    vectors: int,
    groups: int,
    rows: int,
    pairs: int,
    odd: bool,
    single: bool,
    real: int,
    offset_term: bool,
    step_add: bool,
) -> PwCase:
    n = 16 * vectors
    x_col = 0 if single else n + int(rng.integers(0, 3)) * 4
    x_adv = int(rng.integers(0, 3)) * 4 + (x_col if not single else 0)
    x_row = int(rng.integers(0, 3)) * 4
    o_col = 0 if single else 4 * groups + int(rng.integers(0, 3))
    w_step = n + int(rng.integers(0, 2)) * 16
    w_group = 4 * w_step + int(rng.integers(0, 2)) * 16
    c = PwCase(
        name,
        n,
        groups,
        1 if odd else rows,
        1 if single else pairs,
        int(odd and not single),
        x_col,
        x_adv,
        x_row,
        o_col,
        w_step,
        w_group,
        16 if step_add else 0,
        int(rng.integers(-128, 128)) if offset_term else 0,
        int(rng.integers(-128, 128)),
        real,
        x=np.zeros(0, np.int8),
        w=np.zeros(0, np.int8),
        add=np.zeros(0, I64),
        mult=np.zeros(0, I64),
        shift=np.zeros(0, I64),
        lo=np.zeros(4, I64),
        hi=np.zeros(4, I64),
        expect=np.zeros(0, np.int8),
    )
    pixels = pw_pixels(c)
    c.x = rng.integers(-128, 128, size=max(a for a, _ in pixels) + n + 16, dtype=I64).astype(np.int8)
    c.w = rng.integers(-128, 128, size=(groups - 1) * w_group + 3 * w_step + n + 16, dtype=I64).astype(
        np.int8
    )
    c.add = rng.integers(-(1 << 20), 1 << 20, size=4 * groups if step_add else 4, dtype=I64)
    c.mult, c.shift = draw_quant(rng, 4 * groups)
    lo = int(rng.integers(-128, 0))
    c.lo = np.full(4, lo, I64)
    c.hi = np.full(4, int(rng.integers(lo, 128)), I64)
    out_size = max(o for _, o in pixels) + c.o_col + 4 * groups + 8
    expect = np.full(out_size, SENTINEL, dtype=I64)
    for g in range(groups):
        starts = [g * w_group + j * w_step for j in range(4)]
        add = c.add[4 * g : 4 * g + 4] if step_add else c.add[:4]
        sums = np.array([int(c.w[s : s + n].astype(I64).sum()) for s in starts], I64)
        add = ref.wrap32(add + c.input_offset * sums)
        q = slice(4 * g, 4 * g + 4)
        for at, o in pixels:
            y = requant(dots(c.x, at, c.w, starts, n) + add, c.mult[q], c.shift[q], c.offset, c.lo, c.hi)
            expect[o + 4 * g : o + 4 * g + real] = y[:real]
    c.expect = ((expect + 128) % 256 - 128).astype(np.int8)
    return c


def pw_source(c: PwCase) -> tuple[str, str]:
    data = "".join(
        [
            c_array("int8_t", f"{c.name}_x", c.x),
            c_array("int8_t", f"{c.name}_w", c.w),
            c_array("int32_t", f"{c.name}_add", c.add),
            c_array("int32_t", f"{c.name}_mult", c.mult),
            c_array("int32_t", f"{c.name}_shift", c.shift),
            c_array("int8_t", f"{c.name}_expect", c.expect),
            f"static int8_t {c.name}_out[{c.expect.size}];\n",
        ]
    )
    call = f"""        unfolded_pw_t st;
        memset(&st, 0, sizeof st);
        memset({c.name}_out, {SENTINEL}, sizeof {c.name}_out);
        for (int j = 0; j < 4; ++j) st.w[j] = {c.name}_w + j * {c.w_step};
        st.x = {c.name}_x;
        st.out = {c.name}_out;
        st.add = {c.name}_add;
        st.mult = {c.name}_mult;
        st.shift = {c.name}_shift;
        st.groups = {c.groups};
        st.pairs = {c.pairs};
        st.rows = {c.rows};
        st.x_col = {c.x_col};
        st.x_adv = {c.x_adv};
        st.x_row = {c.x_row};
        st.o_col = {c.o_col};
        unfolded_pw_shape(&st, {c.len});
        st.offset = {c.offset};
        st.real = {(1 << (4 * c.real)) - 1}u;
        st.w_group = {c.w_group};
        st.odd = {c.odd};
        st.lo = vdupq_n_s32({int(c.lo[0])});
        st.hi = vdupq_n_s32({int(c.hi[0])});
        st.input_offset = {c.input_offset};
        st.add_step = {c.add_step};
        unfolded_pw_asm(&st);
        bad = memcmp({c.name}_out, {c.name}_expect, sizeof {c.name}_out) != 0;
        if (bad) printf("{c.name} differs\\n");"""
    return data, call


PW_DRAW = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 2**31 - 1),
        "vectors": st.integers(1, 9),  # the first pass entered part-way, then whole passes of three
        "groups": st.integers(1, 3),
        "rows": st.integers(1, 3),
        "pairs": st.integers(1, 4),
        "odd": st.booleans(),
        "single": st.booleans(),
        "real": st.integers(1, 4),
        "offset_term": st.booleans(),
        "step_add": st.booleans(),
    }
)


@pytest.mark.parametrize("path", PATHS.values(), ids=PATHS.keys())
@FEW_BUILDS
@given(draws=st.lists(PW_DRAW, min_size=6, max_size=6))
def test_unfolded_pw_asm(path, draws, tmp_path: Path) -> None:
    cases = [
        pw_case(np.random.default_rng(d["seed"]), f"pw{i}", **{k: v for k, v in d.items() if k != "seed"})
        for i, d in enumerate(draws)
    ]
    data, calls = zip(*(pw_source(c) for c in cases))
    run_blocks(KERNEL, FAMILIES, list(data), list(calls), tmp_path, path)


# ---- unfolded_rows_asm -------------------------------------------------------------------------


def window_starts(at: int, runs: int, n: int, step: int) -> list[int]:
    """The first byte of each of a window's `runs` rows of `n` bytes, `step` apart."""
    return [at + r * step for r in range(runs)]


def window_dots(
    x: np.ndarray, at: int, w: np.ndarray, filters: list[int], runs: int, n: int, x_step: int, w_step: int
) -> np.ndarray:
    """Four filters' dot products with a window of `runs` rows (image rows x_step apart, filter
    rows w_step apart)."""
    total = np.zeros(4, I64)
    for r in range(runs):
        total += dots(x, at + r * x_step, w, [f + r * w_step for f in filters], n)
    return total


def rows_case(
    rng: np.random.Generator,
    name: str,
    vectors: int,
    runs: int,
    pairs: int,
    real: int,
    gap_x: int,
    gap_w: int,
    overlap: bool,
) -> tuple[str, str]:
    """One call of unfolded_rows_asm as unfolded_rows_span fills its struct, with the group's
    constants (unfolded_group_t) it reads through its `g` member."""
    n = 16 * vectors
    x_step = n + 4 * gap_x  # image rows of the window
    w_step = n + 16 * gap_w  # filter rows (w_run = w_step - n: 0 takes the block's other row end)
    x_col = int(rng.integers(1, 3)) * 4 if overlap else runs * x_step + 4
    x_next = x_col * 2 if overlap else 2 * runs * x_step + 8
    out_col = 4 + int(rng.integers(0, 3))
    out_pair = 2 * out_col + int(rng.integers(0, 3))
    filters = [j * (runs * w_step + 16) for j in range(4)]
    x = rng.integers(-128, 128, size=(pairs - 1) * x_next + x_col + runs * x_step + 16, dtype=I64).astype(
        np.int8
    )
    w = rng.integers(-128, 128, size=filters[3] + runs * w_step + 16, dtype=I64).astype(np.int8)
    add = rng.integers(-(1 << 20), 1 << 20, size=4, dtype=I64)
    mult, shift = draw_quant(rng, 4)
    offset = int(rng.integers(-128, 128))
    lo = int(rng.integers(-128, 0))
    hi = int(rng.integers(lo, 128))
    out_size = (pairs - 1) * out_pair + out_col + 4 + 8
    expect = np.full(out_size, SENTINEL, dtype=I64)
    for p in range(pairs):
        a = p * x_next
        for at, o in ((a, p * out_pair), (a + x_col, p * out_pair + out_col)):
            acc = window_dots(x, at, w, filters, runs, n, x_step, w_step) + add
            expect[o : o + real] = requant(acc, mult, shift, offset, lo, hi)[:real]
    expect = (expect + 128) % 256 - 128
    data = "".join(
        [
            c_array("int8_t", f"{name}_x", x),
            c_array("int8_t", f"{name}_w", w),
            c_array("int32_t", f"{name}_add", add),
            c_array("int32_t", f"{name}_mult", mult),
            c_array("int32_t", f"{name}_shift", shift),
            c_array("int8_t", f"{name}_expect", expect),
            f"static int8_t {name}_out[{out_size}];\n",
        ]
    )
    call = f"""        unfolded_group_t g;
        unfolded_rows_t st;
        memset(&g, 0, sizeof g);
        memset(&st, 0, sizeof st);
        memset({name}_out, {SENTINEL}, sizeof {name}_out);
        const int32x4_t shift = vldrwq_s32({name}_shift);
        g.mult = vldrwq_s32({name}_mult);
        g.right = vminq_s32(shift, vdupq_n_s32(0));
        g.left = vmaxq_s32(shift, vdupq_n_s32(0));
        g.lo = vdupq_n_s32({lo});
        g.hi = vdupq_n_s32({hi});
        g.offset = {offset};
        g.real = (mve_pred16_t){(1 << (4 * real)) - 1}u;
        st.x = {name}_x;
        st.x_col = {x_col};
        const int32_t filters[4] = {{{", ".join(str(f) for f in filters)}}};
        for (int j = 0; j < 4; ++j) st.w[j] = {name}_w + filters[j];
        st.out = {name}_out;
        st.out_col = {out_col};
        st.out_pair = {out_pair};
        st.pairs = {pairs};
        st.runs = {runs};
        st.passes = ({vectors} + UNF_ROW_STEPS - 1) / UNF_ROW_STEPS;
        st.entry = (UNF_ROW_STEPS - 1 - ({vectors} + UNF_ROW_STEPS - 1) % UNF_ROW_STEPS) * 56;
        st.x_run = {x_step - n};
        st.x_pair = {x_next - (runs - 1) * x_step - n};
        st.w_run = {w_step - n};
        st.w_back = {runs * w_step};
        st.g = &g;
        st.add = vldrwq_s32({name}_add);
        unfolded_rows_asm(&st);
        bad = memcmp({name}_out, {name}_expect, sizeof {name}_out) != 0;
        if (bad) printf("{name} differs\\n");"""
    return data, call


ROWS_DRAW = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 2**31 - 1),
        "vectors": st.integers(1, 26),  # one to three passes over the twelve steps per window row
        "runs": st.integers(1, 3),
        "pairs": st.integers(1, 3),
        "real": st.integers(1, 4),
        "gap_x": st.integers(0, 2),
        "gap_w": st.integers(0, 1),
        "overlap": st.booleans(),  # windows that share bytes, as neighbouring pixels' do
    }
)


@pytest.mark.parametrize("path", PATHS.values(), ids=PATHS.keys())
@FEW_BUILDS
@given(draws=st.lists(ROWS_DRAW, min_size=6, max_size=6))
def test_unfolded_rows_asm(path, draws, tmp_path: Path) -> None:
    made = [
        rows_case(np.random.default_rng(d["seed"]), f"rows{i}", **{k: v for k, v in d.items() if k != "seed"})
        for i, d in enumerate(draws)
    ]
    run_blocks(KERNEL, FAMILIES, [d for d, _ in made], [c for _, c in made], tmp_path, path)


# ---- unfolded_lone_asm -------------------------------------------------------------------------


def lone_case(
    rng: np.random.Generator, name: str, vectors: int, runs: int, gap_x: int, gap_w: int
) -> tuple[str, str]:
    """One call of unfolded_lone_asm: a window of `runs` runs of whole vectors against four
    filters; its results are the dots and the filters' sums (the struct's last members)."""
    n = 16 * vectors
    x_step, w_step = n + 4 * gap_x, n + 4 * gap_w
    filters = [j * (runs * w_step + 4) for j in range(4)]
    x = rng.integers(-128, 128, size=runs * x_step + 16, dtype=I64).astype(np.int8)
    w = rng.integers(-128, 128, size=filters[3] + runs * w_step + 16, dtype=I64).astype(np.int8)
    dots4 = ref.wrap32(window_dots(x, 0, w, filters, runs, n, x_step, w_step))
    sums = np.zeros(4, I64)
    for j, f in enumerate(filters):
        sums[j] = sum(int(w[f + r * w_step : f + r * w_step + n].astype(I64).sum()) for r in range(runs))
    data = "".join(
        [
            c_array("int8_t", f"{name}_x", x),
            c_array("int8_t", f"{name}_w", w),
            c_array("int32_t", f"{name}_expect", np.concatenate([dots4, sums])),
        ]
    )
    call = f"""        unfolded_lone_t st;
        memset(&st, 0x5A, sizeof st);
        st.x = {name}_x;
        const int32_t filters[4] = {{{", ".join(str(f) for f in filters)}}};
        for (int j = 0; j < 4; ++j) st.w[j] = {name}_w + filters[j];
        st.runs = {runs};
        st.vectors = {vectors};
        st.x_adv = {x_step - n};
        st.w_adv = {w_step - n};
        unfolded_lone_asm(&st);
        int32_t got[8];
        vst1q_s32(got, st.dots);
        vst1q_s32(got + 4, st.sums);
        bad = memcmp(got, {name}_expect, sizeof got) != 0;
        if (bad) printf("{name} differs\\n");"""
    return data, call


LONE_DRAW = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 2**31 - 1),
        "vectors": st.integers(1, 8),
        "runs": st.integers(1, 4),
        "gap_x": st.integers(0, 3),
        "gap_w": st.integers(0, 3),
    }
)


@pytest.mark.parametrize("path", PATHS.values(), ids=PATHS.keys())
@FEW_BUILDS
@given(draws=st.lists(LONE_DRAW, min_size=8, max_size=8))
def test_unfolded_lone_asm(path, draws, tmp_path: Path) -> None:
    made = [
        lone_case(np.random.default_rng(d["seed"]), f"lone{i}", **{k: v for k, v in d.items() if k != "seed"})
        for i, d in enumerate(draws)
    ]
    run_blocks(KERNEL, FAMILIES, [d for d, _ in made], [c for _, c in made], tmp_path, path)
