"""Patch-based execution: a chain of windowed layers run band by band over its last output.

Run layer by layer, the first layers of a vision network hold a large input and a large output
at once. Run in *patches* (MCUNetV2), a stage of consecutive layers computes its last output a
band of rows at a time: each band asks the layer before for the rows its windows read, and so
on back to the stage input, so every layer of the stage runs on a few rows, and only the stage's
output is ever whole. Rows two neighbouring bands both read (the *halo*) are computed once per
band: that recomputation is the price, counted here as extra multiply-accumulates.

This module holds the arithmetic alone (no operators, no pipeline): which rows of each layer a
band needs (:func:`band_rows`), the rows each intermediate buffer must hold (the largest band),
the extra MACs, and whether the stage output may be written over the stage input as the bands
go (:func:`lands_in_place`: the bytes a band writes are ones no later band reads). Only full-width
row bands are made: no column halos, and each layer's kernel is the ordinary one called on a
slice of rows with its ``pad_top`` adjusted, so every output element is computed from the same
taps as in the whole-tensor run (bit-exact).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


class RowLayer(Protocol):
    """What a windowed layer tells the band arithmetic (the fields of the ops' ``RowGeometry``)."""

    @property
    def input_height(self) -> int: ...
    @property
    def output_height(self) -> int: ...
    @property
    def input_row_bytes(self) -> int: ...
    @property
    def output_row_bytes(self) -> int: ...
    @property
    def stride(self) -> int: ...
    @property
    def pad_top(self) -> int: ...
    @property
    def window_rows(self) -> int: ...


@dataclass(frozen=True, slots=True)
class LayerRows:
    """One layer's call in one band: output rows ``[out_start, out_start + out_rows)`` from input
    rows ``[in_start, in_start + in_rows)``, the slice's top padding ``pad_top``."""

    out_start: int
    out_rows: int
    in_start: int
    in_rows: int
    pad_top: int


def _needed(layer: RowLayer, start: int, rows: int) -> tuple[int, int, int]:
    """Input rows ``(first, count)`` output rows ``[start, start + rows)`` read, and the top
    padding the slice still has."""
    top = start * layer.stride - layer.pad_top
    first = max(0, top)
    end = min(layer.input_height, (start + rows - 1) * layer.stride - layer.pad_top + layer.window_rows)
    return first, max(0, end - first), first - top


def band_starts(height: int, rows_per_band: int) -> list[tuple[int, int]]:
    """The stage output's bands: ``(first row, rows)``, the last one possibly shorter."""
    return [(s, min(rows_per_band, height - s)) for s in range(0, height, rows_per_band)]


def band_rows(layers: Sequence[RowLayer], rows_per_band: int) -> list[list[LayerRows]]:
    """Per band, per layer (stage order), the rows each layer computes and reads."""
    bands: list[list[LayerRows]] = []
    for start, rows in band_starts(layers[-1].output_height, rows_per_band):
        calls: list[LayerRows] = []
        for layer in reversed(layers):
            first, count, pad = _needed(layer, start, rows)
            calls.append(LayerRows(start, rows, first, count, pad))
            start, rows = first, count
        bands.append(calls[::-1])
    return bands


@dataclass(frozen=True, slots=True)
class BandCall:
    """One layer's work in one band, as the emitted loop runs it.

    The layer computes output rows ``[out_start, out_start + out_rows)`` from input rows
    ``[in_start, in_start + in_rows)`` (top padding ``pad_top``). Its output buffer (every layer
    but the last) holds rows from ``buffer_start`` on: before the call the loop moves the
    ``keep`` rows computed in earlier bands that this band still reads ``drop`` rows up, to the
    buffer's start. Recomputing bands keep nothing; streaming bands compute each row once.
    """

    out_start: int
    out_rows: int
    in_start: int
    in_rows: int
    pad_top: int
    buffer_start: int
    keep: int = 0
    drop: int = 0


def recompute_calls(layers: Sequence[RowLayer], rows_per_band: int) -> list[list[BandCall]]:
    """Bands that recompute their halos (:func:`band_rows`): every buffer starts afresh."""
    return [
        [BandCall(c.out_start, c.out_rows, c.in_start, c.in_rows, c.pad_top, c.out_start) for c in band]
        for band in band_rows(layers, rows_per_band)
    ]


def stream_calls(layers: Sequence[RowLayer], rows_per_band: int) -> list[list[BandCall]]:
    """Bands that keep the rows a later band reads again (row-buffer streaming): each layer
    computes only rows no earlier band computed, so nothing is computed twice, and its buffer
    holds every row the next layer's band reads (kept ones moved to the front)."""
    n = len(layers)
    done = [0] * n  # rows 0 .. done[j]-1 of layer j computed so far (in order)
    held: list[int | None] = [None] * n  # the previous band's buffer_start
    bands: list[list[BandCall]] = []
    for start, rows in band_starts(layers[-1].output_height, rows_per_band):
        calls: list[BandCall] = []
        need: tuple[int, int] | None = (start, start + rows)
        for j in range(n - 1, -1, -1):
            previous = held[j]
            if need is None or need[1] <= need[0]:
                # Nothing downstream reads new rows of this layer in this band.
                calls.append(BandCall(done[j], 0, 0, 0, 0, done[j] if previous is None else previous))
                need = None
                continue
            if j == n - 1:
                new0, buffer_start, keep, drop = need[0], need[0], 0, 0
            else:
                new0, buffer_start = max(need[0], done[j]), need[0]
                keep = 0 if previous is None else max(0, min(done[j], need[1]) - need[0])
                drop = 0 if previous is None or not keep else need[0] - previous
            count = need[1] - new0
            if count > 0:
                first, reads, pad = _needed(layers[j], new0, count)
            else:
                first, reads, pad = 0, 0, 0
            calls.append(BandCall(new0, max(count, 0), first, reads, pad, buffer_start, keep, drop))
            done[j] = max(done[j], need[1])
            held[j] = buffer_start
            need = (first, first + reads) if count > 0 else None
        bands.append(calls[::-1])
    return bands


def held_rows(bands: Sequence[Sequence[BandCall]]) -> list[int]:
    """Rows each intermediate's buffer must hold: kept and new rows of its fullest band."""
    return [
        max(band[j].out_start + band[j].out_rows - band[j].buffer_start for band in bands)
        for j in range(len(bands[0]) - 1)
    ]


def buffer_rows(bands: Sequence[Sequence[LayerRows]]) -> list[int]:
    """Rows each intermediate (output of every layer but the last) must hold: its largest band."""
    return [max(band[j].out_rows for band in bands) for j in range(len(bands[0]) - 1)]


def extra_rows(layers: Sequence[RowLayer], bands: Sequence[Sequence[LayerRows | BandCall]]) -> list[int]:
    """Output rows each layer computes beyond its height: the halos computed twice, less the
    rows no band reads (a stride above the window skips some), which are never computed."""
    return [sum(band[j].out_rows for band in bands) - layer.output_height for j, layer in enumerate(layers)]


def lands_in_place(layers: Sequence[RowLayer], bands: Sequence[Sequence[LayerRows | BandCall]]) -> bool:
    """Whether the stage output may start at the stage input's first byte.

    Band ``k``'s first layer has read all its input rows before its last layer writes, so its
    output rows may land on input bytes that no later band reads: the rows before the first row
    the next band's first layer reads. With a single layer the read and the write are one call,
    so a stage needs two layers at least.
    """
    if len(layers) < 2:
        return False
    first, last = layers[0], layers[-1]
    if last.output_height * last.output_row_bytes > first.input_height * first.input_row_bytes:
        return False
    for k, band in enumerate(bands):
        end = band[-1].out_start + band[-1].out_rows
        later = [b[0].in_start for b in bands[k + 1 :] if b[0].in_rows]
        if later and end * last.output_row_bytes > min(later) * first.input_row_bytes:
            return False
    return True


__all__ = [
    "BandCall",
    "LayerRows",
    "RowLayer",
    "band_rows",
    "band_starts",
    "buffer_rows",
    "extra_rows",
    "held_rows",
    "lands_in_place",
    "recompute_calls",
    "stream_calls",
]
