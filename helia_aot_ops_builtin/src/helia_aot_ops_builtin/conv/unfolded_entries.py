"""Which entry of goal size's int8 convolution family (hk_conv_unfolded.h) a layer calls.

The family's general entry, ``hk_conv_s8_unfolded``, chooses its Helium loop per call, so a module
calling it links every loop (--gc-sections keeps whatever a linked function can reach): windows
gathered into columns and the pointwise column loop for at most 8 input channels, the in-place
loop otherwise. The converter knows each layer's geometry, so it names an entry that reaches only
the loop that layer takes; KWS's size module then links neither the pointwise column loop nor
the general entry (2.3 KB less ``.text`` on the M55). Every entry gives the same integers, on
every core, for any call (row loops and patch stages call them on row slices).

A module whose layers take both column loops (VWW: a 3x3 first layer and an 8 -> 16 pointwise
one) links everything anyway, and there the general entry alone is the least code (one copy of
the shared checks), so all its layers call it.
"""

from __future__ import annotations

from helia_aot.air import AirModel, AirOperator, AirOpType

UNFOLDED_COLUMN_CHANNELS = 8
"""Input channels up to which the Helium kernel gathers windows into columns (hk_conv_unfolded.c:
``input_channels <= 8``); above it every window is read in place."""

GENERAL = "conv_s8_unfolded"
IN_PLACE = "conv_s8_unfolded_in_place"
COLUMNS = "conv_s8_unfolded_columns"
FEW_POINTWISE = "conv_s8_unfolded_few_pointwise"
ENTRIES = (GENERAL, IN_PLACE, COLUMNS, FEW_POINTWISE)
"""The family's entries (without the ``hk_`` prefix), as kernel functions name them."""


def geometry_entry(channels: int, filter_shape: tuple[int, int, int], pad_top_left: tuple[int, int]) -> str:
    """The entry whose loops cover one layer: ``channels`` input channels, an (h, w, input
    channels) filter and its top / left padding. A grouped filter takes the general entry."""
    kh, kw, fic = filter_shape
    if fic != channels:
        return GENERAL
    if channels > UNFOLDED_COLUMN_CHANNELS:
        return IN_PLACE
    return FEW_POINTWISE if (kh, kw, *pad_top_left) == (1, 1, 0, 0) else COLUMNS


def layer_entry(model: AirModel, entry: str) -> str:
    """``entry`` (a layer's :func:`geometry_entry`), or the general one where the module's layers
    take both column loops."""
    return GENERAL if {COLUMNS, FEW_POINTWISE} <= module_entries(model) else entry


_LAST: tuple[AirModel, frozenset[str]] | None = None
"""The last model scanned and its entries: every convolution of a module asks about the same
model, so one slot makes the scan once per module (checked by identity; a tuple read whole, so
conversions in threads at worst scan again)."""


def module_entries(model: AirModel) -> frozenset[str]:
    """The geometry entries of the model's int8 CONV_2D layers."""
    global _LAST
    last = _LAST
    if last is not None and last[0] is model:
        return last[1]
    found = frozenset(entry for op in model.operators if (entry := _air_entry(model, op)) is not None)
    _LAST = (model, found)
    return found


def _air_entry(model: AirModel, op: AirOperator) -> str | None:
    """:func:`geometry_entry` of an int8 CONV_2D from its AIR tensors (None for anything else).
    A 1x1 filter is unpadded under SAME and VALID; explicit padding says its own."""
    if op.op_type != AirOpType.CONV_2D.value or len(op.input_ids) < 2:
        return None
    source, weights = model.tensors.get(op.input_ids[0]), model.tensors.get(op.input_ids[1])
    if source is None or weights is None or len(source.shape) != 4 or len(weights.shape) != 4:
        return None
    if source.dtype.numpy.itemsize != 1:
        return None
    pads = getattr(op.options, "explicit_padding", None)
    top_left = (0, 0) if pads is None else (int(pads[0]), int(pads[2]))
    _, kh, kw, fic = (int(d) for d in weights.shape)
    return geometry_entry(int(source.shape[3]), (kh, kw, fic), top_left)
