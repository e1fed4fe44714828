"""Block-sparse weights for FULLY_CONNECTED (goal ``size``): only the nonzero blocks are kept.

A pruned model may store a weight matrix in LiteRT's sparse format with a block map (the
converter's block sparsity, e.g. 1 x 4 or 1 x 16 blocks along the input features). Load stores
it dense (``helia_aot.converters.litert.sparsity``) and records the block. With goal ``size`` an
int8 layer whose weights came stored that way runs ``hk_fully_connected_s8_sparse`` when the
blocks it keeps, their indices and the folded bias take fewer bytes than the dense weights and
bias: the skipped weights are zero, so the integer sums, and the outputs, are the dense ones.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

INDEX_LIMIT = np.iinfo(np.int16).max
"""Block columns are stored as int16 (the starts of the block rows as int32)."""


@dataclass(frozen=True, slots=True, eq=False)
class BlockSparseWeights:
    """The nonzero blocks of a [units, depth] matrix, in the kernel's layout."""

    block_units: int
    block_depth: int
    starts: np.ndarray  # int32 [units / block_units + 1]
    columns: np.ndarray  # int16 [blocks kept]
    values: np.ndarray  # int8 [blocks kept * block_units * block_depth]

    @property
    def nbytes(self) -> int:
        """Constant bytes of the blocks and their indices (the folded bias comes on top)."""
        return int(self.starts.nbytes + self.columns.nbytes + self.values.nbytes)


def encode_blocks(weights: np.ndarray, block_units: int, block_depth: int) -> BlockSparseWeights | None:
    """The blocks of ``weights`` holding a nonzero value, row of blocks by row of blocks; None
    when the block does not tile the matrix or a block column does not fit in int16."""
    units, depth = weights.shape
    if block_units < 1 or block_depth < 1 or units % block_units or depth % block_depth:
        return None
    rows, cols = units // block_units, depth // block_depth
    if cols > INDEX_LIMIT:
        return None
    tiles = weights.reshape(rows, block_units, cols, block_depth).transpose(0, 2, 1, 3)
    present = np.any(tiles != 0, axis=(2, 3))  # [rows, cols]
    starts = np.concatenate([[0], np.cumsum(present.sum(axis=1))]).astype(np.int32)
    block_rows, block_cols = np.nonzero(present)
    values = tiles[block_rows, block_cols].reshape(-1).astype(np.int8)
    return BlockSparseWeights(block_units, block_depth, starts, block_cols.astype(np.int16), values)


def decode_blocks(sparse: BlockSparseWeights, units: int, depth: int) -> np.ndarray:
    """The dense matrix back (for the tests: encoding loses nothing)."""
    dense = np.zeros(
        (units // sparse.block_units, depth // sparse.block_depth, sparse.block_units, sparse.block_depth),
        np.int8,
    )
    tiles = sparse.values.reshape(-1, sparse.block_units, sparse.block_depth)
    for r in range(units // sparse.block_units):
        for k in range(int(sparse.starts[r]), int(sparse.starts[r + 1])):
            dense[r, int(sparse.columns[k])] = tiles[k]
    result: np.ndarray = dense.transpose(0, 2, 1, 3).reshape(units, depth)
    return result
