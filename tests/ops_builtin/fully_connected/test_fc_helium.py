"""The per-layer Helium FULLY_CONNECTED loops' text: every immediate encodable, every byte read once.

The loops fc_helium writes run on the M55 in tests/e2e/test_fc_helium_layers.py against the
reference; what a handful of layers cannot show is that every geometry the converter accepts
assembles to what the loop means. Here hypothesis draws depths and unit counts over the whole
accepted range and checks the instruction text: the weight loads of a block, followed through
their write-backs, reach each 16-byte piece of its pair of packed groups exactly once within
VLDRW's +-508 and leave the pointer where the next pair starts; input offsets stay within
VLDRB's +-127, ADD/SUB immediates within 12 bits, shifts within their ranges; the written blocks
hold one VMLADAV(A) per unit per chunk, the first chunk starting the accumulators; the passes
before and in the loop add up to the layer's blocks; and the block table holds each block's
biases and multipliers in lane order.
"""

from __future__ import annotations

import re

import numpy as np
from helia_aot_ops_builtin.fully_connected.fc_helium import (
    MAX_DEPTH,
    ONE_POINTER_DEPTH,
    WEIGHT_REACH,
    block_table,
    helium_layer,
    layer_assembly,
    loop_unroll,
    one_pointer_weights,
)
from helia_aot_ops_builtin.fully_connected.fc_integer_requant import IntegerRequant
from hypothesis import given, settings
from hypothesis import strategies as st


def _layer(depth, units, offset=-128, lo=-128, hi=127, left=12, right=20):
    requant = IntegerRequant(np.full(units, 1 << 30), left, right)
    return helium_layer(depth, units, requant, offset, lo, hi)


def _written_blocks(lines: list[str], chunks: int) -> int:
    """Blocks whose dot products the text writes out: each starts with 8 VMLADAVs."""
    starts = sum(line.startswith("vmladav.s8") for line in lines)
    assert starts % 8 == 0
    assert sum(line.startswith("vmladava.s8") for line in lines) == starts // 8 * 8 * (chunks - 1)
    return starts // 8


def _executed_blocks(lines: list[str], chunks: int) -> int:
    """Blocks the text runs: those before the loop once, the loop's as often as it passes
    (the output pointer, 8 bytes a block, reaching its end)."""
    if "2:" not in lines:
        return _written_blocks(lines, chunks)
    loop = lines[lines.index("2:") : lines.index("bne 2b")]
    before = lines[: lines.index("2:")]
    end = int(next(m[1] for line in lines if (m := re.fullmatch(r"add r11, r7, #(\d+)", line))))
    stored_before = sum(line.startswith("vstrb.16") for line in before)
    stored_per_pass = sum(line.startswith("vstrb.16") for line in loop)
    passes = (end - 8 * stored_before) // (8 * stored_per_pass)
    assert 8 * stored_before + 8 * stored_per_pass * passes == end
    return _written_blocks(before, chunks) + passes * _written_blocks(loop, chunks)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    depth=st.integers(1, MAX_DEPTH),
    units=st.integers(1, 64).map(lambda n: 8 * n),
    clamp=st.sampled_from([(-128, 127), (-128, 0), (-3, 117)]),
    left=st.integers(0, 16),
)
def test_every_accepted_geometry_assembles_to_its_meaning(depth, units, clamp, left):
    layer = _layer(depth, units, lo=clamp[0], hi=clamp[1], left=left)
    assert layer is not None
    lines = layer_assembly(layer)
    text = "\n".join(lines)
    chunks = -(-depth // 16)
    assert _executed_blocks(lines, chunks) == units // 8
    assert ("2:" in lines) == (units // 8 - 1 >= loop_unroll(layer))
    for line in lines:
        for value in re.findall(r"(?:add|sub) r\d+, r\d+, #(\d+)", line):
            assert int(value) < 4096, line
        if m := re.match(r"vldrb\.8 q\d, \[r1, #(-?\d+)\]", line):
            assert -127 <= int(m.group(1)) <= 127, line
    shifts = [int(v) for line in lines for v in re.findall(r"vq?r?sh[lr]\.s32 q\d, q\d, #(\d+)", line)]
    assert all(0 <= v <= 32 for v in shifts) and (layer.right in shifts)
    assert "vqshl.s32 q0, q0, #0" not in text and (("vqshl" in text) == (left > 0))
    assert ("vmax.s16 q0, q0, q6" in text) == (clamp != (-128, 127))
    # Every block's four table reads and one store of eight outputs.
    assert sum("[r9], #16" in line for line in lines) == 4 * _written_blocks(lines, chunks)
    if depth <= ONE_POINTER_DEPTH:
        start, loads = one_pointer_weights(layer)
        base, reached = start, []
        for line in (load for chunk in loads for load in chunk):
            offset = int(re.fullmatch(r"vldrw\.u32 q2, \[r3, #(-?\d+)\]!?", line)[1])
            assert -WEIGHT_REACH <= offset <= WEIGHT_REACH and offset % 4 == 0, line
            reached.append(base + offset)
            base += offset if line.endswith("!") else 0
        # Each 16-byte piece of the pair (two groups of 64 * chunks bytes) exactly once, and the
        # pointer left where the next pair's block starts from.
        assert sorted(reached) == list(range(0, 128 * chunks, 16))
        assert base - start == 128 * chunks
        assert f"sub r3, r3, #{-start}" in lines
    else:
        assert sum("[r3], #16" in line for line in lines) == 4 * chunks * _written_blocks(lines, chunks)
        assert sum("[r5], #16" in line for line in lines) == 4 * chunks * _written_blocks(lines, chunks)
        assert f"add r5, r5, #{64 * chunks}" in lines and "mov r3, r5" in lines


def test_one_pointer_weights_reach_every_depth():
    """Every depth one weight pointer serves (chunk counts 1 to 8): each piece of the pair once,
    every offset within reach, three write-backs at most, the pointer left a pair further."""
    for depth in range(1, ONE_POINTER_DEPTH + 1):
        start, loads = one_pointer_weights(_layer(depth, 8))
        flat = [load for chunk in loads for load in chunk]
        offsets = [int(re.fullmatch(r"vldrw\.u32 q2, \[r3, #(-?\d+)\]!?", line)[1]) for line in flat]
        assert all(-WEIGHT_REACH <= v <= WEIGHT_REACH for v in offsets)
        assert sum(line.endswith("!") for line in flat) <= 3 and flat[-1].endswith("!")
        chunks = -(-depth // 16)
        assert sum(v for v, line in zip(offsets, flat, strict=True) if line.endswith("!")) == 128 * chunks


def test_layers_outside_the_loops_keep_the_kernel_call():
    assert _layer(MAX_DEPTH + 1, 8) is None
    assert _layer(64, 12) is None
    assert _layer(64, 4096) is None
    assert _layer(64, 8, offset=127, right=25) is None  # 127 << 25 leaves int32
    assert helium_layer(64, 8, None, 0, -128, 127) is None


def test_block_table_order():
    bias = np.arange(16) * 10
    mult = np.arange(16) + 100
    table = block_table(bias, mult).reshape(2, 16)
    assert table[0].tolist() == [0, 20, 40, 60, 10, 30, 50, 70, 100, 102, 104, 106, 101, 103, 105, 107]
    assert table[1, :8].tolist() == [80, 100, 120, 140, 90, 110, 130, 150]
    assert table[1, 8:].tolist() == [108, 110, 112, 114, 109, 111, 113, 115]
    # One multiplier for every unit (per-tensor scale) is repeated in each block.
    assert block_table(bias[:8], np.array([7]))[8:].tolist() == [7] * 8
