"""Block-sparse FULLY_CONNECTED (goal ``size``): only the nonzero blocks of pruned weights kept.

A pruned int8 layer whose weights the file stores sparse with a block map runs
``hk_fully_connected_s8_sparse`` with goal ``size`` when that takes fewer constant bytes than the
dense weights; its outputs must be the reference's to the bit (the skipped weights are zero, the
integer sums the same). Hypothesis draws block shapes and sparsity; the encoding is checked to
lose nothing, and the constant bytes of the module with the sparse kernel are compared with the
dense module's (goal ``balanced``, same model).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from helia_aot import AotConverter, ConvertArgs
from helia_aot.pipeline.summary import result_summary
from helia_aot_ops_builtin.fully_connected.fc_block_sparse import decode_blocks, encode_blocks
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ops_builtin.support.hybrid_models import reference_golden
from ops_builtin.support.linked_host import run_linked
from ops_builtin.support.sparse_models import CSR, DENSE, SparseFormat, sparse_fc_model


def block_pruned(rng: np.random.Generator, units: int, depth: int, block: tuple[int, int], keep: float):
    """int8 weights [units, depth] whose blocks are zero as a whole with probability 1 - keep (the
    first one kept: LiteRT's DENSIFY refuses a constant with no stored value)."""
    weights = rng.integers(-127, 128, (units, depth)).astype(np.int8)
    weights[weights == 0] = 1
    mask = rng.random((units // block[0], depth // block[1])) < keep
    mask[0, 0] = True
    return weights * np.kron(mask, np.ones(block, np.int8)).astype(np.int8)


def block_format(block: tuple[int, int]) -> SparseFormat:
    """The converter's layout: blocks of block[0] x block[1], block rows dense, block columns CSR."""
    if block[0] == 1:
        return SparseFormat((0, 1, 2), (1,), (block[1],), (DENSE, CSR, DENSE))
    return SparseFormat((0, 1, 2, 3), (0, 1), block, (DENSE, CSR, DENSE, DENSE))


def convert(model: Path, out: Path, goal: str):
    config = {
        "model": {"path": str(model)},
        "module": {"path": str(out), "name": "fc"},
        "optimization": {"goal": goal},
    }
    return AotConverter(ConvertArgs.model_validate(config)).convert()


def int8_samples(depth: int, seed: int) -> list[list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [[rng.integers(-128, 128, (1, depth)).astype(np.int8)] for _ in range(4)]


@settings(max_examples=60, deadline=None)
@given(
    block=st.sampled_from([(1, 4), (1, 16), (2, 4), (4, 1)]),
    rows=st.integers(1, 5),
    cols=st.integers(1, 6),
    keep=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**16),
)
def test_encoding_keeps_every_nonzero_weight(block, rows, cols, keep, seed):
    weights = block_pruned(np.random.default_rng(seed), rows * block[0], cols * block[1], block, keep)
    sparse = encode_blocks(weights, *block)
    assert sparse is not None
    np.testing.assert_array_equal(decode_blocks(sparse, *weights.shape), weights)
    assert sparse.values.size == block[0] * block[1] * sparse.columns.size


@settings(
    max_examples=4,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    block=st.sampled_from([(1, 4), (1, 16), (2, 4)]),
    units=st.integers(1, 6),
    cols=st.integers(2, 8),
    keep=st.floats(0.05, 0.5),
    seed=st.integers(0, 2**16),
)
def test_random_block_sparse_layers_are_bit_exact(block, units, cols, keep, seed, tmp_path_factory):
    root = tmp_path_factory.mktemp("sparse_fc")
    weights = block_pruned(np.random.default_rng(seed), units * block[0], cols * block[1], block, keep)
    model = sparse_fc_model(root / "fc.tflite", weights, block_format(block), "int8")
    result = convert(model, root / "plan", "size")
    (fc,) = result.plan.operators
    expect = encode_blocks(weights, *block)
    assert expect is not None
    saves = expect.nbytes + 4 * weights.shape[0] < weights.nbytes + 4 * weights.shape[0]
    assert ("s8_sparse" in str(fc.kernel)) == saves, (fc.kernel, expect.nbytes, weights.nbytes)
    golden = reference_golden(model, int8_samples(weights.shape[1], seed), root / "golden.npz")
    sections = run_linked({"fc": (model, golden, None)}, root / "linked")
    assert "bit-exact" in sections["fc"], sections["fc"]


def test_sparse_kernel_saves_constant_bytes(tmp_path):
    """A 64 x 256 layer with three blocks of 1 x 16 in four zero: the module's constants shrink
    by the zero blocks' bytes less the indices, and the outputs stay bit-exact."""
    weights = block_pruned(np.random.default_rng(31), 64, 256, (1, 16), keep=0.25)
    model = sparse_fc_model(tmp_path / "fc.tflite", weights, block_format((1, 16)), "int8")
    dense = result_summary(convert(model, tmp_path / "dense", "balanced"))["constants_bytes"]
    result = convert(model, tmp_path / "sparse", "size")
    sparse = result_summary(result)["constants_bytes"]
    (fc,) = result.plan.operators
    assert "s8_sparse" in str(fc.kernel)
    kept = encode_blocks(weights, 1, 16)
    assert kept is not None
    assert sparse < dense - weights.nbytes // 2, (dense, sparse)
    print(f"constants: dense {dense} B, block-sparse {sparse} B ({kept.columns.size} of 1024 blocks kept)")
    golden = reference_golden(model, int8_samples(256, 1), tmp_path / "golden.npz")
    sections = run_linked({"fc": (model, golden, None)}, tmp_path / "linked")
    assert "bit-exact" in sections["fc"], sections["fc"]
