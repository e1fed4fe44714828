"""Operator arity is declared in the operator's record, not known to the core.

Load checks each node against the counts its OperatorRecord declares (``arity=``, kept in the
context's ``litert_arities`` when the record is registered, or read from the operator index
without importing the module) before any parser reads it; the core's validator holds no table of
its own, so a node of an operator whose record declares none passes to its parser unchecked.
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
from helia_aot.pack import Arity, OperatorRecord, register_operator_modules, register_operators
from helia_aot.registry import RegistryContext, build_default_registry_context
from helia_aot_ops_builtin.elementwise.binary import AddOperator, SubOperator, parse_add, parse_sub
from helia_aot_ops_builtin.families import family_packages
from helia_aot_ops_builtin.plugin import registrations


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


def test_every_declared_arity_comes_from_an_operator_record():
    """The built-in pack declares counts only through its records (no pack-level table)."""
    declared = {key: r.arity for r in registrations() if r.arity is not None for key in r.litert_keys}
    assert declared == build_default_registry_context().litert_arities
    assert declared["FULLY_CONNECTED"] == Arity(2, 3, max_outputs=2, optional=(2,))


def test_the_operator_index_carries_arities_without_importing_modules(tmp_path, monkeypatch):
    """Written on the first registration, the index gives the same counts to a later one, whose
    operator modules stay unimported until a key is looked up."""
    monkeypatch.setenv("HELIA_AOT_OPERATOR_INDEX", str(tmp_path))
    first = RegistryContext()
    register_operator_modules(first, *family_packages())
    assert list(tmp_path.glob("*.json"))
    second = RegistryContext()
    register_operator_modules(second, *family_packages())
    assert second.litert_arities == first.litert_arities
    assert second.litert_arities["CONV_2D"] == Arity(2, 3, optional=(2,))


def test_a_node_is_checked_against_the_arity_its_record_declared(tmp_path):
    path = _add_with_one_input(tmp_path)
    with pytest.raises(ModelLoadError, match=r"operator #0 \(ADD\) has 1 inputs; ADD takes 2 inputs"):
        build_view(read_model(path), 0, path.name, {"ADD": Arity(2, 2)})
    # Without a declaration the view is built; the parser must check what it reads.
    view = build_view(read_model(path), 0, path.name)
    assert view.subgraph.operators[0].inputs == (0,)


def test_two_packs_declaring_different_counts_for_one_key_is_a_plugin_error():
    context = RegistryContext()
    add = OperatorRecord("ADD", parse_add, None, AddOperator, arity=Arity(2, 2))
    register_operators(context, [add])
    other = RegistryContext()
    other.litert_arities["ADD"] = Arity(1, 2)  # as another pack's record left it
    with pytest.raises(PluginError, match="two packs declare different input and output counts"):
        register_operators(other, [add])
    assert "ADD" not in other.litert_parsers  # nothing of the record registered
    with pytest.raises(PluginError, match="is not an Arity"):
        bad = OperatorRecord("SUB", parse_sub, None, SubOperator, arity=(2, 2))  # type: ignore[arg-type]
        register_operators(context, [bad])
    assert context.litert_arities == {"ADD": Arity(2, 2)}
