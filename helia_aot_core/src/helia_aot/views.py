"""Frozen records describing a generated module: its operators, tensors, arena regions, placements.

A conversion with ``result_views: true`` returns these on its ConversionResult, for tools such as
profilers that map what the module reports at run time (a layer index, a region id, a tensor
enumerator) back to the model. They are plain values: they compare by content, hash, pickle and
copy, and keep no reference to the compiler's internal graph, so holding one costs nothing and a
later release can change the compiler without changing them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from helia_aot.platforms.model import MemoryType

_V = TypeVar("_V")


class FrozenMapping(Mapping[str, _V]):
    """A read-only mapping that hashes, pickles and copies (``kernel_calls``, ``placements``).

    Keys keep the order they were given in; equality is with any mapping of the same items.
    """

    __slots__ = ("_items", "_index")
    _items: tuple[tuple[str, _V], ...]
    _index: dict[str, _V]

    def __init__(self, items: Mapping[str, _V] | Iterable[tuple[str, _V]] = ()) -> None:
        pairs = tuple(items.items()) if isinstance(items, Mapping) else tuple(items)
        object.__setattr__(self, "_items", pairs)
        object.__setattr__(self, "_index", {key: value for key, value in pairs})

    def __getitem__(self, key: str) -> _V:
        return self._index[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    def __hash__(self) -> int:
        return hash(frozenset(self._index.items()))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mapping):
            return NotImplemented
        return dict(self._index) == dict(other)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self._items,))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._index!r})"


@dataclass(frozen=True, slots=True)
class QuantizationView:
    """Affine quantization of a tensor: ``real = scale * (q - zero_point)``.

    One ``scale`` and ``zero_point`` per tensor, or one per index of dimension ``axis`` for
    per-channel quantization.
    """

    scale: tuple[float, ...]
    zero_point: tuple[int, ...]
    axis: int


@dataclass(frozen=True, slots=True)
class TensorView:
    """One tensor of the module, at its position in the module's tensor enumeration.

    ``name`` is the name the module uses: its enumerator is ``<prefix>_<name>`` and indexes
    ``ctx->tensor_ptrs``. ``kind`` is ``input`` for a model input, otherwise ``output`` for a
    model output, otherwise the storage: ``constant``, ``persistent`` or ``scratch``.
    ``input_index`` / ``output_index`` are the positions in ``ctx->inputs`` / ``ctx->outputs``
    (a tensor that is both keeps both). ``nbytes`` is the bytes the memory plan allocated, the size
    the residency report lists; 0 for a tensor the module never reads and so does not place.
    """

    id: str
    name: str
    shape: tuple[int, ...]
    dtype: str
    ctype: str
    quantization: QuantizationView | None
    kind: str
    input_index: int | None
    output_index: int | None
    nbytes: int


@dataclass(frozen=True, slots=True)
class OperatorView:
    """One generated operator, in execution order: ``layer_index`` is the callback's ``op``.

    ``symbol`` is the operator's symbol in the module (``<prefix>_<type>_<layer>``: its files are
    ``<symbol>.h`` / ``.c`` and its functions ``<symbol>_init`` / ``<symbol>_run``); ``type`` the
    operator's name in the model file (a LiteRT builtin name or a custom operator's key);
    ``source_indices`` the indices of the model-file operators it stands for (none for one a
    transform created).
    ``input_ids`` are the tensors it reads as operands, in operand order (an absent optional input
    and a constant the C never reads are left out); ``local_tensor_ids`` are its own tensors: its
    constant weights and bias and what the lowering added (tables, scratch), none of them an input.
    ``kernel_calls`` maps each role (``run``: called from the operator's run function) to the
    kernel entry point called (None when the operator does not say). ``macs`` and ``parameters``
    follow the documented definitions and are None for a type without one (see
    :mod:`helia_aot.optimization.figures`).
    """

    layer_index: int
    symbol: str
    type: str
    source_indices: tuple[int, ...]
    input_ids: tuple[str, ...]
    output_ids: tuple[str, ...]
    local_tensor_ids: tuple[str, ...]
    kernel_calls: FrozenMapping[str] | None
    macs: int | None
    parameters: int | None


@dataclass(frozen=True, slots=True)
class RegionView:
    """One arena region; ``id`` is the module's ``<prefix>_arena_region_t`` value.

    ``symbol`` is the C object the module emits for the region (None when
    ``memory.allocate_arenas: false`` leaves the buffer to the application) and ``offset`` the
    bytes from it to the region's first usable byte; ``size`` is the bytes the region spans.
    ``memory`` is where the region lives at run time and ``source_memory`` where its bytes come
    from: the same memory except for a staged constant region, copied at init from
    ``source_symbol`` (starting ``source_offset`` bytes in; 0 for others); ``sidecar_file`` is the
    file an external-arena module writes a constant region's bytes to.
    """

    id: int
    memory: MemoryType
    source_memory: MemoryType
    role: str
    offset: int
    size: int
    alignment: int
    symbol: str | None
    source_symbol: str | None
    source_offset: int
    sidecar_file: str | None


@dataclass(frozen=True, slots=True)
class PlacementView:
    """Where one tensor lives: ``offset`` bytes into region ``region``, ``size`` bytes allocated.

    ``source_memory`` is where its bytes come from (the region's memory unless ``staged``: a
    constant copied at init from ``source_memory`` into the region). ``region`` is None only for a
    tensor placed outside every region (the product's type allows it; ours places all in one).
    """

    region: int | None
    offset: int
    size: int
    source_memory: MemoryType
    staged: bool


__all__ = ["FrozenMapping", "OperatorView", "PlacementView", "QuantizationView", "RegionView", "TensorView"]
