"""Operator arity is declared by the pack that registers the operator, not known to the core.

Load checks each node against the counts its pack declared (``helia_aot.pack.register_arities``,
kept in the context's ``litert_arities``) before any parser reads it; the core's validator holds
no table of its own, so a node of an operator no pack declared passes to its parser unchecked.
"""

from __future__ import annotations

import numpy as np
import pytest
from helia_aot.converters.litert import validate
from helia_aot.converters.litert.reader import read_model
from helia_aot.converters.litert.view_builder import build_view
from helia_aot.errors import ModelLoadError, PluginError
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder, pack_model
from helia_aot.pack import Arity, register_arities
from helia_aot.registry import RegistryContext, build_default_registry_context


def _add_with_one_input(tmp_path):
    """A model whose ADD node names one input (its LiteRT kernel takes two)."""
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (1, 4), "float32")
    w = b.add_tensor("w", (1, 4), "float32", data=np.arange(4, dtype=np.float32))
    y = b.add_tensor("y", (1, 4), "float32")
    b.add_operator("ADD", [x, w], [y], litert.AddOptionsT())
    b.set_inputs([x])
    b.set_outputs([y])
    model = b.build()
    model.subgraphs[0].operators[0].inputs = np.int32([0])
    path = tmp_path / "add.tflite"
    path.write_bytes(pack_model(model))
    return path


def test_the_core_validator_holds_no_operator_arities():
    assert not hasattr(validate, "ARITIES")
    assert build_default_registry_context().litert_arities["ADD"] == Arity(2, 2)


def test_a_node_is_checked_against_the_arity_its_pack_declared(tmp_path):
    path = _add_with_one_input(tmp_path)
    with pytest.raises(ModelLoadError, match=r"operator #0 \(ADD\) has 1 inputs; ADD takes 2 inputs"):
        build_view(read_model(path), 0, path.name, {"ADD": Arity(2, 2)})
    # Without a declaration the view is built; the parser must check what it reads.
    view = build_view(read_model(path), 0, path.name)
    assert view.subgraph.operators[0].inputs == (0,)


def test_two_packs_declaring_different_counts_for_one_key_is_a_plugin_error():
    context = RegistryContext()
    register_arities(context, {"ADD": Arity(2, 2)})
    register_arities(context, {"ADD": Arity(2, 2)})  # the same counts again are accepted
    with pytest.raises(PluginError, match="two packs declare different input and output counts"):
        register_arities(context, {"ADD": Arity(1, 2)})
    with pytest.raises(PluginError, match="takes Arity values"):
        register_arities(context, {"SUB": (2, 2)})  # type: ignore[dict-item]
    assert context.litert_arities == {"ADD": Arity(2, 2)}
