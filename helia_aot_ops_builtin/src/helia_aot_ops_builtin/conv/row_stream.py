"""In-place convolution, row by row: the output overwrites the input through a small ring of rows.

Under ``optimization.goal: size`` a CONV_2D or DEPTHWISE_CONV_2D whose input dies where it runs
may write its output into its input's bytes. The run then calls the kernel once per output row
(the same kernel, on the slice of input rows the row's window reads, with ``pad_top`` set to the
padding that slice still has, so every output element is computed from the same taps as in one
call) into a ring of ``K`` output rows, and copies a finished row to its place in the output as
soon as no later row reads the input bytes under it. Output row ``p`` lands on bytes
``[p * out_row, (p + 1) * out_row)``; the first input row a later output row still reads is
``(r + 1) * stride - pad_top`` once row ``r`` is done, so row ``p`` may land when
``(p + 1) * out_row <= that row * in_row``. :func:`ring_rows` plays that rule through at
conversion time; the C loop (``conv_rows.c.mako``) plays the same rule at run time, so the ring
never holds more than the rows counted here.

An output larger than its input (a pointwise convolution that adds channels) runs the rows the
other way, last row first, over bytes that start where the input starts and run on past its end:
output row ``p`` may land once every output row still to compute reads only input rows that end
at or before ``p * out_row`` (:func:`ring_rows` with ``backward=True``). Only one image (batch 1)
qualifies.

Calls may compute several rows at once (``block``, first row first only): the planner picks the
largest block whose ring keeps the operator's step within the plan's bound (see
``plan.choose_inplace_rows``), since each call pays the kernel's per-call work once.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RowGeometry:
    """The numbers the in-place row loop needs (bytes per row, window rows, stride, padding)."""

    input_height: int
    output_height: int
    input_row_bytes: int
    output_row_bytes: int
    stride: int
    pad_top: int
    window_rows: int  # (filter_height - 1) * dilation + 1

    def first_needed(self, row: int) -> int:
        """The first input row output row ``row`` reads (the input height once all are done)."""
        if row >= self.output_height:
            return self.input_height
        return max(0, row * self.stride - self.pad_top)

    def last_needed_end(self, row: int) -> int:
        """Input rows ``0 .. n-1`` that output rows ``0 .. row`` read: ``n`` (0 when ``row < 0``)."""
        if row < 0:
            return 0
        return max(0, min(self.input_height, row * self.stride - self.pad_top + self.window_rows))


def backward(geometry: RowGeometry) -> bool:
    """Whether the rows run last first: the output is larger than the input."""
    g = geometry
    return g.output_height * g.output_row_bytes > g.input_height * g.input_row_bytes


def ring_rows(geometry: RowGeometry, block: int = 1) -> int | None:
    """Output rows the ring must hold, or None when the rows cannot all land in place.

    ``block`` output rows are computed per kernel call (the last call the rows left): a kernel
    that takes its filter sums or its setup once per call pays them once per block, and a short
    row's pixel blocks run over the block's rows. The block's rows go to the ring together, so
    the ring holds whole blocks (a multiple of ``block`` rows) and each block stays contiguous in
    it. Blocks of more than one row run first row first only (None for a growing output).
    """
    g = geometry
    if g.output_height < 1 or block < 1 or block > g.output_height:
        return None
    if backward(g):
        return _ring_rows_backward(g) if block == 1 else None
    landed = 0
    most = 0
    for start in range(0, g.output_height, block):
        end = min(start + block, g.output_height)
        most = max(most, end - landed)
        free_to = g.first_needed(end) * g.input_row_bytes
        while landed < end and (landed + 1) * g.output_row_bytes <= free_to:
            landed += 1
    if landed != g.output_height:
        return None
    return -(-most // block) * block


def _ring_rows_backward(g: RowGeometry) -> int | None:
    """Last row first: row ``p`` lands once rows ``0 .. r-1`` read nothing at or past its start."""
    lowest = g.output_height  # rows lowest .. output_height-1 have landed
    most = 0
    for row in range(g.output_height - 1, -1, -1):
        most = max(most, lowest - row)
        busy_to = g.last_needed_end(row - 1) * g.input_row_bytes
        while lowest > row and (lowest - 1) * g.output_row_bytes >= busy_to:
            lowest -= 1
    return most if lowest == 0 else None


__all__ = ["RowGeometry", "backward", "ring_rows"]
