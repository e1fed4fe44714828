"""A broken parser from a plugin fails the conversion with a PluginError naming it.

tests/plugin_system covers plugins raising inside their registration hook, blocked plugins never
being imported, and two plugins claiming one key; these cases cover what a plugin registers: a
parser that crashes or returns garbage, and a parser that is handed a node whose wiring is broken.
"""

from __future__ import annotations

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import ModelLoadError, PluginError, UnsupportedModelError
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.registry import build_default_registry_context

KEY = "ISOLATION_PROBE"
seen: list[int] = []


def _exploding_parser(op_id, model, subgraph, air):
    raise RuntimeError("the pack's parser has a bug")


def _rejecting_parser(op_id, model, subgraph, air):
    raise ValueError("stride 0 is not supported")


def _recording_parser(op_id, model, subgraph, air):
    seen.append(op_id)
    raise AssertionError("never reached: the node is checked first")


def model_file(tmp_path, inputs=None):
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (1, 4), "float32")
    y = b.add_tensor("y", (1, 4), "float32", data=np.ones((1, 4), np.float32))
    z = b.add_tensor("z", (1, 4), "float32")
    b.add_custom_operator("isolation-probe", inputs if inputs is not None else [x, y], [z])
    b.set_inputs([x])
    b.set_outputs([z])
    return b.save(tmp_path / "probe.tflite")


def convert(tmp_path, parser, **model):
    context = build_default_registry_context(
        customizers=[lambda ctx: ctx.litert_parsers.register(KEY, parser)]
    )
    config = ConvertArgs.model_validate(
        {
            "model": {"path": str(model_file(tmp_path, **model))},
            "module": {"path": str(tmp_path / "out"), "name": "m"},
        }
    )
    return AotConverter(config, context).convert()


def test_a_crashing_parser_is_named(tmp_path):
    with pytest.raises(PluginError) as info:
        convert(tmp_path, _exploding_parser)
    message = str(info.value)
    assert "test_plugin_isolation._exploding_parser" in message and f"for {KEY}" in message
    assert "operator #0" in message and "RuntimeError: the pack's parser has a bug" in message
    assert isinstance(info.value.__cause__, RuntimeError) and info.value.exit_code == 1
    assert not (tmp_path / "out").exists()


def test_a_refusing_parser_is_an_unsupported_operator(tmp_path):
    with pytest.raises(UnsupportedModelError, match=f"#0 {KEY}: stride 0 is not supported"):
        convert(tmp_path, _rejecting_parser)


def test_a_parser_never_sees_a_node_that_refers_to_missing_tensors(tmp_path):
    seen.clear()
    with pytest.raises(ModelLoadError, match=rf"operator #0 \({KEY}\) input 1 refers to tensor 40"):
        convert(tmp_path, _recording_parser, inputs=[0, 40])
    assert seen == []
