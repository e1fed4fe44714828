"""Densifying a constant stored in LiteRT's sparse format, once, at conversion.

A pruned model's weights may be stored sparse (``Tensor.sparsity``): the buffer holds only the
kept values, and ``SparsityParameters`` says where each goes in the conceptual dense tensor of
``Tensor.shape``. The generated kernels read dense weights, so Load rebuilds the dense array here
and the rest of the compiler never sees the sparse form (the DENSIFY operator the converter writes
after such a constant becomes a plain constant: see the pack's REMOVE_DENSIFY transform).

The format, as the schema defines it, for a tensor of rank n with a k-dimensional block:
``block_map`` names the k dimensions that are blocked; the tensor is traversed as n + k
dimensions (the n dimensions counted in blocks, then the k dimensions inside a block), in
``traversal_order``, a permutation whose first n entries order the outer dimensions and whose
last k order the block's own. ``dim_metadata[i]`` describes the i-th dimension traversed: DENSE
(every index from 0 to ``dense_size`` - 1) or SPARSE_CSR (for each position reached so far,
``array_segments[p]`` to ``array_segments[p + 1]`` bound the entries of ``array_indices`` that
are present), the index vectors being int32, uint16 or uint8. A block dimension's size is the
``dense_size`` of its metadata. The stored values fill, in traversal order, the elements reached
after the last dimension; every other element of the dense tensor is 0. Where LiteRT's reading
of the format is narrower than the schema's (see :func:`_block_sizes`), LiteRT's is followed, so
the dense weights are the ones the reference interpreter computes with.

A file whose parameters contradict its shape or run past its vectors is malformed
(ModelLoadError naming the tensor); nothing is read out of bounds.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from helia_aot.converters.litert import schema_access as sa
from helia_aot.converters.litert.reader import element_count, little_endian, stored_bytes, tensor_dtype
from helia_aot.errors import ModelLoadError, UnsupportedModelError
from helia_aot.litert.objects import object_class
from helia_aot.litert.schema_tables import DimensionType

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert

_MALFORMED_HINT = "the sparsity parameters are malformed; re-export the model with the LiteRT converter"


def _index_vector(value: Any, what: str, name: str) -> np.ndarray:
    """The ``values`` of an Int32Vector, Uint16Vector or Uint8Vector, as int64."""
    values = getattr(value, "values", None)
    if values is None:
        raise ModelLoadError(f"{name}: {what} is missing", hint=_MALFORMED_HINT)
    return np.asarray(values).astype(np.int64).reshape(-1)


def _fail(name: str, problem: str) -> ModelLoadError:
    return ModelLoadError(f"{name} is stored sparse, but {problem}", hint=_MALFORMED_HINT)


def _block_sizes(
    shape: tuple[int, ...], order: list[int], block_map: list[int], metadata: list[Any], name: str
) -> list[int]:
    """Each blocked dimension's block size, checked to divide it.

    As LiteRT reads it, the b-th blocked dimension's block size is the dense size of
    ``dim_metadata[traversal_order[n + b]]`` (the same as the metadata of the dimension traversed
    for that block whenever the block's own order swaps at most two dimensions, as every 2-D
    weight's does), and ``block_map`` must be increasing: LiteRT leaves the block size of a
    dimension named out of order unset, so such a file has no defined dense value.
    """
    rank = len(shape)
    if block_map != sorted(set(block_map)) or any(not 0 <= d < rank for d in block_map):
        raise UnsupportedModelError(
            f"{name} is stored sparse with block_map {block_map}, which does not list dimensions of "
            f"rank {rank} in increasing order; LiteRT does not densify it either",
            hint="re-export the model with its weights dense (or sparsified by the LiteRT converter)",
        )
    sizes = []
    for b, dim in enumerate(block_map):
        size = int(metadata[order[rank + b]].denseSize or 0)
        if size <= 0 or shape[dim] % size:
            raise _fail(name, f"block size {size} does not divide dimension {dim} of shape {list(shape)}")
        sizes.append(size)
    return sizes


def stored_block(shape: tuple[int, ...], sparsity: Any) -> tuple[int, ...]:
    """The block a sparse tensor was stored in, one size per dimension (1 where not blocked):
    what a kernel that keeps only the nonzero blocks (goal ``size``) groups the weights by.
    Call it after :func:`densify` accepted the parameters."""
    block = [1] * len(shape)
    block_map = [int(d) for d in (sparsity.blockMap if sparsity.blockMap is not None else ())]
    order = [int(d) for d in (sparsity.traversalOrder if sparsity.traversalOrder is not None else ())]
    metadata = list(sparsity.dimMetadata or ())
    for b, dim in enumerate(block_map):
        block[dim] = int(metadata[order[len(shape) + b]].denseSize or 1)
    return tuple(block)


def densify(shape: tuple[int, ...], sparsity: Any, values: np.ndarray, name: str) -> np.ndarray:
    """The dense array of ``shape`` that ``values`` (the stored, kept elements, flat) and the
    ``sparsity`` parameters (a ``SparsityParametersT``) describe; ``name`` names the tensor in errors."""
    rank = len(shape)
    block_map = [int(d) for d in (sparsity.blockMap if sparsity.blockMap is not None else ())]
    order = [int(d) for d in (sparsity.traversalOrder if sparsity.traversalOrder is not None else ())]
    metadata = list(sparsity.dimMetadata or ())
    levels = rank + len(block_map)
    if sorted(order) != list(range(levels)) or sorted(order[:rank]) != list(range(rank)):
        raise _fail(name, f"traversal_order {order} is not an order of its {levels} dimensions")
    if len(metadata) != levels:
        raise _fail(name, f"it has {len(metadata)} dim_metadata for {levels} dimensions")
    block = _block_sizes(shape, order, block_map, metadata, name)
    # Sizes of the n + k traversed dimensions: outer dimensions counted in blocks, then blocks.
    extents = list(shape)
    for b, dim in enumerate(block_map):
        extents[dim] = shape[dim] // block[b]
    extents.extend(block)

    positions = np.zeros(1, dtype=np.int64)
    coords = np.zeros((1, levels), dtype=np.int64)
    for level, (dim, meta) in enumerate(zip(order, metadata)):
        extent = extents[dim]
        if int(meta.format) == DimensionType.DENSE:
            size = int(meta.denseSize or 0)
            if size != extent:
                raise _fail(name, f"dimension {level} is dense of size {size}, not {extent}")
            positions = (positions[:, None] * size + np.arange(size)).reshape(-1)
            coords = np.repeat(coords, size, axis=0)
            coords[:, dim] = np.tile(np.arange(size), len(coords) // max(size, 1))
        elif int(meta.format) == DimensionType.SPARSE_CSR:
            segments = _index_vector(meta.arraySegments, f"array_segments of dimension {level}", name)
            indices = _index_vector(meta.arrayIndices, f"array_indices of dimension {level}", name)
            if positions.size and positions.max() + 1 >= segments.size:
                raise _fail(name, f"array_segments of dimension {level} has {segments.size} entries")
            starts, ends = segments[positions], segments[positions + 1]
            counts = ends - starts
            if (counts < 0).any() or (starts < 0).any() or (ends > indices.size).any():
                raise _fail(name, f"array_segments of dimension {level} run past its array_indices")
            total = int(counts.sum())
            offsets = np.repeat(starts - (np.cumsum(counts) - counts), counts)
            positions = offsets + np.arange(total, dtype=np.int64)
            coords = np.repeat(coords, counts, axis=0)
            coords[:, dim] = indices[positions]
            if total and (coords[:, dim].min() < 0 or coords[:, dim].max() >= extent):
                raise _fail(name, f"an array_indices entry of dimension {level} is outside 0..{extent - 1}")
        else:
            raise _fail(name, f"dimension {level} has the unknown format {int(meta.format)}")
    # The stored values are taken in traversal order, one per element reached (as LiteRT does).
    if len(coords) > values.size:
        raise _fail(name, f"its buffer holds {values.size} values and the format reaches {len(coords)}")
    dense_coords = coords[:, :rank].copy()
    for b, dim in enumerate(block_map):
        dense_coords[:, dim] = dense_coords[:, dim] * block[b] + coords[:, rank + b]
    dense = np.zeros(math.prod(shape), dtype=values.dtype)
    if len(coords):
        flat = np.ravel_multi_index(tuple(dense_coords.T), shape) if rank else np.zeros(1, np.int64)
        dense[flat] = values[: len(coords)]
    return dense.reshape(shape)


def densify_model(model: litert.ModelT) -> dict[tuple[int, int], tuple[int, ...]]:
    """Store every sparse constant of every subgraph of ``model`` dense, in a buffer of its own;
    returns, by (subgraph index, tensor index), the block each was stored in (:func:`stored_block`).

    Load calls it before anything reads the tensors, so the reader, the model hooks and the
    operator parsers see ordinary dense constants. A tensor whose element type the compiler does
    not handle is left as it is (the view names its type).
    """
    buffer_class = object_class("Buffer")
    blocks: dict[tuple[int, int], tuple[int, ...]] = {}
    for subgraph_index, subgraph in enumerate(sa.subgraphs_of(model)):
        for tensor_index, tensor in enumerate(sa.tensors_of(subgraph)):
            if tensor.sparsity is None:
                continue
            name = f"tensor {sa.name_of(tensor)!r}"
            try:
                dtype = tensor_dtype(tensor.type)
                shape = sa.shape_of(tensor)
                element_count(shape, name)
            except UnsupportedModelError:
                continue
            raw = stored_bytes(model, tensor)
            stored = (
                np.zeros(0, dtype.numpy)
                if raw is None
                else little_endian(raw[: raw.size - raw.size % dtype.itemsize], dtype)
            )
            dense = densify(shape, tensor.sparsity, stored, name)
            blocks[(subgraph_index, tensor_index)] = stored_block(shape, tensor.sparsity)
            buffer = buffer_class()
            buffer.data = np.frombuffer(dense.astype(dense.dtype.newbyteorder("<")).tobytes(), np.uint8)
            buffers = model.buffers if model.buffers is not None else []
            buffers.append(buffer)
            model.buffers = buffers
            tensor.buffer = len(buffers) - 1
            tensor.sparsity = None
    return blocks


__all__ = ["densify", "densify_model", "stored_block"]
