"""The in-place row loop's rule (helia_aot_ops_builtin.conv.row_stream), played byte by byte.

Why: the generated C writes a convolution's output rows over its input through a ring sized by
``ring_rows``. This plays the same loop in Python over one shared byte buffer, with a stand-in
kernel whose output row depends on every input byte its window reads, and checks on random
geometries (strides, dilations, paddings, shrinking and growing rows) that the in-place result
equals the out-of-place one and that the ring never holds more rows than ``ring_rows`` said.
"""

from __future__ import annotations

import numpy as np
from helia_aot_ops_builtin.conv.row_stream import RowGeometry, backward, ring_rows
from hypothesis import given, settings
from hypothesis import strategies as st


def _row(g: RowGeometry, data: np.ndarray, r: int) -> np.ndarray:
    """Output row ``r`` from the input rows its window reads (a stand-in for the kernel)."""
    top = r * g.stride - g.pad_top
    rows = [y for y in range(top, top + g.window_rows) if 0 <= y < g.input_height]
    total = sum(
        int(data[y * g.input_row_bytes : (y + 1) * g.input_row_bytes].astype(np.int64).sum()) * (y + 1)
        for y in rows
    )
    return ((np.arange(g.output_row_bytes) + total) % 251).astype(np.uint8)


def _in_place(g: RowGeometry, source: np.ndarray, ring: int) -> np.ndarray:
    """The C loop of conv_rows.c.mako over one buffer holding the input, then the output."""
    memory = np.zeros(max(source.size, g.output_height * g.output_row_bytes), np.uint8)
    memory[: source.size] = source
    slots = np.zeros((ring, g.output_row_bytes), np.uint8)
    pending: set[int] = set()
    ob, ib = g.output_row_bytes, g.input_row_bytes

    def land(p: int) -> None:
        memory[p * ob : (p + 1) * ob] = slots[p % ring]
        pending.discard(p)

    if backward(g):
        lowest = g.output_height
        for r in range(g.output_height - 1, -1, -1):
            slots[r % ring] = _row(g, memory, r)
            pending.add(r)
            assert len(pending) <= ring
            busy = g.last_needed_end(r - 1) * ib
            while lowest > r and (lowest - 1) * ob >= busy:
                lowest -= 1
                land(lowest)
    else:
        landed = 0
        for r in range(g.output_height):
            slots[r % ring] = _row(g, memory, r)
            pending.add(r)
            assert len(pending) <= ring
            free_to = g.first_needed(r + 1) * ib
            while landed <= r and (landed + 1) * ob <= free_to:
                land(landed)
                landed += 1
    assert not pending
    return memory[: g.output_height * ob]


@st.composite
def geometries(draw: st.DrawFn) -> RowGeometry:
    k = draw(st.integers(1, 4))
    dilation = draw(st.integers(1, 2))
    stride = draw(st.integers(1, 3))
    height = draw(st.integers(1, 12))
    window = (k - 1) * dilation + 1
    same = draw(st.booleans())
    if same:
        out_h = -(-height // stride)
        pad_top = max(0, (out_h - 1) * stride + window - height) // 2
    else:
        out_h = (height - window) // stride + 1
        pad_top = 0
    out_h = max(out_h, 1)
    in_row = draw(st.integers(1, 24))
    out_row = draw(st.integers(1, 48))
    return RowGeometry(height, out_h, in_row, out_row, stride, pad_top, window)


@settings(max_examples=200, deadline=None)
@given(geometries(), st.integers(0, 2**32 - 1))
def test_in_place_rows_equal_out_of_place_rows(g: RowGeometry, seed: int) -> None:
    ring = ring_rows(g)
    # Every geometry lands all its rows: forward the input is fully read at the end, backward
    # the first row reads nothing later rows need.
    assert ring is not None and 1 <= ring <= g.output_height
    source = np.random.default_rng(seed).integers(0, 256, g.input_height * g.input_row_bytes).astype(np.uint8)
    expected = np.concatenate([_row(g, source, r) for r in range(g.output_height)])
    assert np.array_equal(_in_place(g, source, ring), expected)


def _in_place_blocks(g: RowGeometry, source: np.ndarray, ring: int, block: int) -> np.ndarray:
    """The block loop of conv_rows.c.mako (``block`` rows per call, first row first)."""
    memory = np.zeros(source.size, np.uint8)
    memory[: source.size] = source
    slots = np.zeros((ring, g.output_row_bytes), np.uint8)
    pending: set[int] = set()
    ob, ib = g.output_row_bytes, g.input_row_bytes
    landed = 0
    for r in range(0, g.output_height, block):
        n = min(block, g.output_height - r)
        # One call: every row of the block is computed from the input as it is before any lands,
        # into contiguous ring slots.
        assert r % ring + n <= ring
        rows = [_row(g, memory, r + i) for i in range(n)]
        for i, values in enumerate(rows):
            slots[(r + i) % ring] = values
            pending.add(r + i)
        assert len(pending) <= ring
        free_to = g.first_needed(r + n) * ib
        while landed < r + n and (landed + 1) * ob <= free_to:
            memory[landed * ob : (landed + 1) * ob] = slots[landed % ring]
            pending.discard(landed)
            landed += 1
    assert not pending
    return memory[: g.output_height * ob]


@settings(max_examples=150, deadline=None)
@given(geometries(), st.integers(1, 12), st.integers(0, 2**32 - 1))
def test_blocks_of_rows_per_call_equal_out_of_place_rows(g: RowGeometry, block: int, seed: int) -> None:
    """Why: the planner may let one kernel call compute several rows (goal size, a ring of whole
    blocks); every block must land the same bytes as the whole-tensor run."""
    ring = ring_rows(g, block)
    if backward(g) or block > g.output_height:
        assert ring is None or block == 1
        return
    assert ring is not None and ring % block == 0 and ring >= (ring_rows(g) or 0)
    source = np.random.default_rng(seed).integers(0, 256, g.input_height * g.input_row_bytes).astype(np.uint8)
    expected = np.concatenate([_row(g, source, r) for r in range(g.output_height)])
    assert np.array_equal(_in_place_blocks(g, source, ring, block), expected)


def test_ring_sizes_of_the_common_layers() -> None:
    assert ring_rows(RowGeometry(25, 25, 320, 320, 1, 1, 3)) == 2  # KWS depthwise 3x3
    assert ring_rows(RowGeometry(25, 25, 320, 320, 1, 0, 1)) == 1  # KWS pointwise
    assert ring_rows(RowGeometry(48, 48, 384, 768, 1, 0, 1)) == 1  # VWW pointwise 8 -> 16 channels
    assert ring_rows(RowGeometry(48, 24, 768, 384, 2, 0, 3)) == 1  # VWW depthwise stride 2
    # Two rows per call: KWS pointwise rings two rows (as its depthwise does), the depthwise four
    # (three rows wait, rounded up to whole blocks).
    assert ring_rows(RowGeometry(25, 25, 320, 320, 1, 0, 1), 2) == 2
    assert ring_rows(RowGeometry(25, 25, 320, 320, 1, 1, 3), 2) == 4
    assert ring_rows(RowGeometry(48, 48, 384, 768, 1, 0, 1), 2) is None  # growing: one row a call
