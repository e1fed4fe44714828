"""Models with weights stored in LiteRT's sparse format, for the densify tests.

:func:`encode_sparse` writes a dense array in the schema's format for any traversal order, block
map, per-dimension format (DENSE or SPARSE_CSR) and index vector type, written here from the
schema's description (a CSR dimension lists, for each position reached so far, the indices whose
sub-array holds a nonzero). The models put such a constant before DENSIFY, as the LiteRT converter
does for a pruned weight.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder, pack_model

DENSE, CSR = litert.DimensionType.DENSE, litert.DimensionType.SPARSE_CSR
INDEX_VECTORS = {
    "int32": (litert.SparseIndexVector.Int32Vector, litert.Int32VectorT, np.int32),
    "uint16": (litert.SparseIndexVector.Uint16Vector, litert.Uint16VectorT, np.uint16),
    "uint8": (litert.SparseIndexVector.Uint8Vector, litert.Uint8VectorT, np.uint8),
}


@dataclass(frozen=True)
class SparseFormat:
    """How a tensor is stored: ``order`` (n + k dimensions), ``block_map`` and ``block`` (the
    blocked dimensions and their block sizes), ``formats`` per traversed dimension, ``index``
    (the index vector type)."""

    order: tuple[int, ...]
    block_map: tuple[int, ...]
    block: tuple[int, ...]
    formats: tuple[int, ...]
    index: str = "int32"


def _index_vector(values: list[int], kind: str):
    tag, cls, dtype = INDEX_VECTORS[kind]
    vector = cls()
    vector.values = np.asarray(values, dtype=dtype)
    return tag, vector


def encode_sparse(dense: np.ndarray, fmt: SparseFormat) -> tuple[np.ndarray, litert.SparsityParametersT]:
    """The stored values and the sparsity parameters of ``dense`` in format ``fmt``."""
    # Split each blocked dimension into (blocks, block) and put the block dimensions last.
    split, outer = [], []
    for dim, size in enumerate(dense.shape):
        if dim in fmt.block_map:
            b = fmt.block[fmt.block_map.index(dim)]
            split += [size // b, b]
            outer.append(len(split) - 2)
        else:
            split.append(size)
            outer.append(len(split) - 1)
    inner = [outer[dim] + 1 for dim in fmt.block_map]
    expanded = dense.reshape(split).transpose(outer + inner)
    traversed = expanded.transpose(fmt.order)
    nodes = [traversed]
    metadata = []
    for level, fmt_of_level in enumerate(fmt.formats):
        meta = litert.DimensionMetadataT()
        size = traversed.shape[level]
        meta.format = fmt_of_level
        meta.denseSize = size
        following = []
        if fmt_of_level == DENSE:
            for node in nodes:
                following.extend(node[i] for i in range(size))
        else:
            segments, indices = [0], []
            for node in nodes:
                kept = [i for i in range(size) if np.any(node[i] != 0)]
                indices += kept
                following.extend(node[i] for i in kept)
                segments.append(len(indices))
            meta.arraySegmentsType, meta.arraySegments = _index_vector(segments, fmt.index)
            meta.arrayIndicesType, meta.arrayIndices = _index_vector(indices, fmt.index)
        metadata.append(meta)
        nodes = following
    sparsity = litert.SparsityParametersT()
    sparsity.traversalOrder = np.asarray(fmt.order, np.int32)
    sparsity.blockMap = np.asarray(fmt.block_map, np.int32) if fmt.block_map else None
    sparsity.dimMetadata = metadata
    return np.asarray(nodes, dtype=dense.dtype).reshape(-1), sparsity


def make_sparse(model: litert.ModelT, tensor_index: int, dense: np.ndarray, fmt: SparseFormat) -> None:
    """Store constant ``tensor_index`` of the main subgraph of ``model`` sparse."""
    values, sparsity = encode_sparse(dense, fmt)
    tensor = model.subgraphs[0].tensors[tensor_index]
    tensor.sparsity = sparsity
    model.buffers[tensor.buffer].data = np.frombuffer(
        values.astype(values.dtype.newbyteorder("<")).tobytes(), np.uint8
    )


def pruned(rng: np.random.Generator, shape: tuple[int, ...], dtype: str, keep: float) -> np.ndarray:
    """Random values of ``dtype`` with about ``1 - keep`` of them zero."""
    if dtype == "float32":
        values = rng.standard_normal(shape).astype(np.float32)
    else:
        values = rng.integers(-127, 128, shape).astype(dtype)
    values[rng.random(shape) >= keep] = 0
    return values


def densify_op_model(path: Path, dense: np.ndarray, fmt: SparseFormat, dtype: str = "float32") -> Path:
    """x + DENSIFY(w): the densified weight comes out (offset by the input) and as is."""
    b = LiteRTModelBuilder()
    q = (np.array([0.05], np.float32), np.array([0], np.int64)) if dtype == "int8" else None
    w = b.add_tensor("w", dense.shape, dtype, data=dense, quantization=q)
    d = b.add_tensor("w_dense", dense.shape, dtype, quantization=q)
    x = b.add_tensor("x", dense.shape, dtype, quantization=q)
    y = b.add_tensor("y", dense.shape, dtype, quantization=q)
    b.add_operator("DENSIFY", [w], [d])
    b.add_operator("ADD", [x, d], [y], litert.AddOptionsT())
    b.set_inputs([x])
    b.set_outputs([y, d])
    model = b.build()
    make_sparse(model, w, dense, fmt)
    path.write_bytes(pack_model(model))
    return path


def sparse_fc_model(path: Path, weights: np.ndarray, fmt: SparseFormat, dtype: str) -> Path:
    """FULLY_CONNECTED of a [1, in] input with sparse weights [out, in] behind DENSIFY."""
    units, depth = weights.shape
    b = LiteRTModelBuilder()
    if dtype == "int8":
        qx = (np.array([0.02], np.float32), np.array([3], np.int64))
        qw = (np.full(units, 0.01, np.float32), np.zeros(units, np.int64), 0)
        qy = (np.array([0.05], np.float32), np.array([-2], np.int64))
        bias = b.add_tensor(
            "bias",
            (units,),
            "int32",
            data=np.arange(units, dtype=np.int32) * 7,
            quantization=(np.full(units, 0.0002, np.float32), np.zeros(units, np.int64), 0),
        )
    else:
        qx = qw = qy = None
        bias = b.add_tensor("bias", (units,), "float32", data=np.linspace(-1, 1, units).astype(np.float32))
    w = b.add_tensor("w", weights.shape, dtype, data=weights, quantization=qw)
    d = b.add_tensor("w_dense", weights.shape, dtype, quantization=qw)
    x = b.add_tensor("x", (1, depth), dtype, quantization=qx)
    y = b.add_tensor("y", (1, units), dtype, quantization=qy)
    b.add_operator("DENSIFY", [w], [d])
    b.add_operator("FULLY_CONNECTED", [x, d, bias], [y], litert.FullyConnectedOptionsT())
    b.set_inputs([x])
    b.set_outputs([y])
    model = b.build()
    make_sparse(model, w, weights, fmt)
    path.write_bytes(pack_model(model))
    return path
