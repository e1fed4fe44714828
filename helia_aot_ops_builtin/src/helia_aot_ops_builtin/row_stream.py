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
never holds more than the rows counted here. Only one image (batch 1) and an output no larger
than the input qualify: then the last rows land once the input is fully read.
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


def ring_rows(geometry: RowGeometry) -> int | None:
    """Output rows the ring must hold, or None when the rows cannot all land in place."""
    g = geometry
    if g.output_height < 1 or g.output_height * g.output_row_bytes > g.input_height * g.input_row_bytes:
        return None
    landed = 0
    most = 0
    for row in range(g.output_height):
        most = max(most, row + 1 - landed)
        free_to = g.first_needed(row + 1) * g.input_row_bytes
        while landed <= row and (landed + 1) * g.output_row_bytes <= free_to:
            landed += 1
    return most if landed == g.output_height else None


__all__ = ["RowGeometry", "ring_rows"]
