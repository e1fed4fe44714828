"""The per-layer Helium FULLY_CONNECTED loops' text: every immediate encodable, every byte read once.

The loops fc_helium writes run on the M55 in tests/e2e/test_fc_helium_layers.py against the
reference; what a handful of layers cannot show is that every geometry the converter accepts
assembles to what the loop means. Here hypothesis draws depths and unit counts over the whole
accepted range and checks the instruction text: the weight offsets of a block reach each 16-byte
piece of its pair of packed groups exactly once, within VLDRW's +-508 (multiples of 4), input
offsets within VLDRB's +-127, ADD immediates within 12 bits, shifts within their ranges, and one
VMLADAVA per unit per chunk; and the block table holds each block's biases, then its even and
odd units' multipliers.
"""

from __future__ import annotations

import re

import numpy as np
from helia_aot_ops_builtin.fully_connected.fc_helium import (
    MAX_DEPTH,
    ONE_POINTER_DEPTH,
    WEIGHT_BIAS,
    block_table,
    helium_layer,
    layer_assembly,
)
from helia_aot_ops_builtin.fully_connected.fc_integer_requant import IntegerRequant
from hypothesis import given, settings
from hypothesis import strategies as st


def _layer(depth, units, offset=-128, lo=-128, hi=127, left=12, right=20):
    requant = IntegerRequant(np.full(units, 1 << 30), left, right)
    return helium_layer(depth, units, requant, offset, lo, hi)


def _block(lines: list[str]) -> list[str]:
    """The lines of one pass of the block loop (label 2 to its branch)."""
    return lines[lines.index("2:") + 1 : lines.index("bne 2b")]


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
    block = _block(lines)
    chunks = -(-depth // 16)
    assert sum(line.startswith("vmladava.s8") for line in block) == 8 * chunks
    for line in lines:
        for value in re.findall(r"add r\d+, r\d+, #(\d+)", line):
            assert int(value) < 4096, line
        if m := re.match(r"vldrb\.8 q\d, \[r1, #(-?\d+)\]", line):
            assert -127 <= int(m.group(1)) <= 127, line
    shifts = [int(v) for line in block for v in re.findall(r"vq?r?sh[lr]\.s32 q\d, q\d, #(\d+)", line)]
    assert all(0 <= v <= 32 for v in shifts) and (layer.right in shifts)
    assert ("vqshl.s32 q0, q0, #0" not in block) and (("vqshl" in " ".join(block)) == (left > 0))
    assert ("vmax.s16 q0, q0, q6" in block) == (clamp != (-128, 127))
    if depth <= ONE_POINTER_DEPTH:
        offsets = [int(v) for line in block for v in re.findall(r"vldrw\.u32 q\d, \[r3, #(-?\d+)\]", line)]
        assert all(-508 <= v <= 508 and v % 4 == 0 for v in offsets)
        # Each 16-byte piece of the pair (two groups of 64 * chunks bytes) exactly once.
        assert sorted(v + WEIGHT_BIAS for v in offsets) == list(range(0, 128 * chunks, 16))
        assert f"add r3, r3, #{128 * chunks}" in block
    else:
        assert sum("[r3], #16" in line for line in block) == 4 * chunks
        assert sum("[r5], #16" in line for line in block) == 4 * chunks
        assert f"add r5, r3, #{64 * chunks}" in block and "mov r3, r5" in block


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
    assert table[0].tolist() == [*range(0, 80, 10), 100, 102, 104, 106, 101, 103, 105, 107]
    assert table[1, :8].tolist() == list(range(80, 160, 10))
    assert table[1, 8:].tolist() == [108, 110, 112, 114, 109, 111, 113, 115]
    # One multiplier for every unit (per-tensor scale) is repeated in each block.
    assert block_table(bias[:8], np.array([7]))[8:].tolist() == [7] * 8
