"""Sparse weights: constants stored in LiteRT's sparse format are densified at conversion and the
DENSIFY after them is removed (REMOVE_DENSIFY).

The dense values are compared with LiteRT's own DENSIFY output on generated models (every index
vector type, CSR and dense outer dimensions in either order, dense blocks over one or two
dimensions, float32 and int8); a pruned FULLY_CONNECTED converts and its module's self-test
matches the reference interpreter exactly. Formats the schema allows but the reference cannot run
(a block dimension stored CSR crashes it) are checked against the dense array they encode.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from helia_aot import AotConverter, ConvertArgs
from helia_aot.converters.litert.reader import buffer_data, read_model
from helia_aot.converters.litert.sparsity import densify, densify_model
from helia_aot.errors import ModelLoadError, UnsupportedModelError
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.activation.test_activation_ops import convert_and_run, golden
from ops_builtin.support.sparse_models import (
    CSR,
    DENSE,
    INDEX_VECTORS,
    SparseFormat,
    densify_op_model,
    encode_sparse,
    pruned,
    sparse_fc_model,
)

REFERENCE_FORMATS = {
    "csr_rows": SparseFormat((0, 1), (), (), (DENSE, CSR)),
    "csr_columns_first_uint8": SparseFormat((1, 0), (), (), (DENSE, CSR), "uint8"),
    "csr_both": SparseFormat((0, 1), (), (), (CSR, CSR), "uint16"),
    "csr_outer": SparseFormat((0, 1), (), (), (CSR, DENSE)),
    "block_1x4": SparseFormat((0, 1, 2), (1,), (4,), (DENSE, CSR, DENSE)),
    "block_2x4": SparseFormat((0, 1, 2, 3), (0, 1), (2, 4), (DENSE, CSR, DENSE, DENSE), "uint8"),
    "block_2x4_swapped_inside": SparseFormat((1, 0, 3, 2), (0, 1), (2, 4), (DENSE, CSR, DENSE, DENSE)),
}


def _reference_dense(model: Path) -> np.ndarray:
    interpreter = Interpreter(model_path=str(model), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    interpreter.allocate_tensors()
    (x,) = interpreter.get_input_details()
    interpreter.set_tensor(x["index"], np.zeros(x["shape"], x["dtype"]))
    interpreter.invoke()
    return interpreter.get_tensor(interpreter.get_output_details()[1]["index"])


def _loaded(model: Path) -> np.ndarray:
    litert_model = read_model(model)
    densify_model(litert_model)
    data = buffer_data(litert_model, litert_model.subgraphs[0].tensors[0])
    assert data is not None
    return data


@pytest.mark.parametrize("dtype", ["float32", "int8"])
@pytest.mark.parametrize("name", sorted(REFERENCE_FORMATS))
def test_densified_constant_is_the_reference_densify(name, dtype, tmp_path):
    rng = np.random.default_rng(sorted(REFERENCE_FORMATS).index(name))
    dense = pruned(rng, (6, 8), dtype, keep=0.3)
    model = densify_op_model(tmp_path / "densify.tflite", dense, REFERENCE_FORMATS[name], dtype)
    reference = _reference_dense(model)
    assert np.array_equal(reference, dense)  # the model is what it claims to be
    assert np.array_equal(_loaded(model), reference)


@st.composite
def _formats(draw):
    """Any format the schema describes for a tensor of rank 1 to 3: blocks over an increasing
    set of dimensions, any outer and inner order, each dimension dense or CSR, any index type."""
    rank = draw(st.integers(1, 3))
    blocked = sorted(draw(st.sets(st.integers(0, rank - 1), max_size=rank)))
    block = tuple(draw(st.sampled_from([1, 2, 3])) for _ in blocked)
    shape = tuple(
        draw(st.integers(1, 3)) * (block[blocked.index(d)] if d in blocked else 1) for d in range(rank)
    )
    outer = draw(st.permutations(range(rank)))
    inner = draw(st.permutations(range(rank, rank + len(blocked))))
    if len(inner) > 2:  # LiteRT reads block sizes through the order; beyond a swap it differs
        inner = sorted(inner)
    levels = rank + len(blocked)
    formats = tuple(draw(st.sampled_from([DENSE, CSR])) for _ in range(levels))
    index = draw(st.sampled_from(sorted(INDEX_VECTORS)))
    return shape, SparseFormat((*outer, *inner), tuple(blocked), block, formats, index)


@settings(max_examples=60, deadline=None)
@given(_formats(), st.integers(0, 2**32 - 1), st.sampled_from([0.0, 0.3, 1.0]))
def test_every_schema_format_densifies_to_what_it_encodes(drawn, seed, keep):
    shape, fmt = drawn
    dense = pruned(np.random.default_rng(seed), shape, "float32", keep)
    values, sparsity = encode_sparse(dense, fmt)
    assert np.array_equal(densify(shape, sparsity, values, "tensor 'w'"), dense)


def test_malformed_sparsity_is_a_load_error():
    dense = np.eye(4, dtype=np.float32)
    values, sparsity = encode_sparse(dense, SparseFormat((0, 1), (), (), (DENSE, CSR)))
    with pytest.raises(ModelLoadError, match="buffer holds 3 values"):
        densify((4, 4), sparsity, values[:3], "tensor 'w'")
    sparsity.dimMetadata[1].arrayIndices.values = np.array([0, 1, 2, 9], np.int32)
    with pytest.raises(ModelLoadError, match="outside 0..3"):
        densify((4, 4), sparsity, values, "tensor 'w'")
    sparsity.traversalOrder = np.array([0, 0], np.int32)
    with pytest.raises(ModelLoadError, match="traversal_order"):
        densify((4, 4), sparsity, values, "tensor 'w'")


def test_a_block_map_out_of_order_is_refused_as_the_reference_cannot_read_it():
    dense = np.ones((4, 4), np.float32)
    values, sparsity = encode_sparse(dense, SparseFormat((1, 0, 2, 3), (1, 0), (2, 2), (DENSE,) * 4))
    with pytest.raises(UnsupportedModelError, match="increasing order"):
        densify((4, 4), sparsity, values, "tensor 'w'")


@pytest.mark.parametrize("dtype", ["float32", "int8"])
def test_pruned_fully_connected_matches_the_reference(dtype, tmp_path):
    rng = np.random.default_rng(7)
    weights = pruned(rng, (12, 16), dtype, keep=0.25)
    model = sparse_fc_model(tmp_path / "fc.tflite", weights, REFERENCE_FORMATS["block_1x4"], dtype)
    if dtype == "float32":
        samples = [[rng.standard_normal((1, 16)).astype(np.float32)] for _ in range(3)]
    else:
        samples = [[rng.integers(-128, 128, (1, 16)).astype(np.int8)] for _ in range(3)]
    convert_and_run(model, golden(model, samples, tmp_path / "golden.npz"), tmp_path)
    result = AotConverter(ConvertArgs(model={"path": str(model)}, dry_run=True)).convert()
    assert [op.op_type for op in result.plan.operators] == ["FULLY_CONNECTED"]


def test_densify_stays_a_copy_without_the_transform(tmp_path):
    dense = pruned(np.random.default_rng(3), (6, 8), "float32", keep=0.3)
    model = densify_op_model(tmp_path / "densify.tflite", dense, REFERENCE_FORMATS["csr_rows"])
    config = ConvertArgs(
        model={"path": str(model)}, dry_run=True, transforms=[{"name": "REMOVE_DENSIFY", "enabled": False}]
    )
    result = AotConverter(config).convert()
    assert [op.op_type for op in result.plan.operators] == ["DENSIFY", "ADD"]
