"""The pack keeps the operator-pack contract of helia_aot.testing, and the example reproduces."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

EXAMPLE = Path(__file__).resolve().parents[1] / "example"


def load_builder():
    spec = importlib.util.spec_from_file_location("example_build_model", EXAMPLE / "build_model.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_pack_contract(aot_pack_contract):
    report = aot_pack_contract("helia_aot_example_ops.plugin", samples=[EXAMPLE / "convert.yaml"])
    report.assert_ok()
    assert report.operator_keys == ["CUSTOM_NOOP", "EXAMPLE_GAIN_CLIP"]
    assert report.registered["air_options"] == ["EXAMPLE_GAIN_CLIP"]


def test_build_model_reproduces_the_example():
    builder = load_builder()
    assert builder.build_model().to_bytes() == (EXAMPLE / builder.MODEL_NAME).read_bytes()
    inputs = builder.golden_inputs()
    outputs = builder.golden_outputs(inputs, builder.configured_gain(EXAMPLE / "convert.yaml"))
    with np.load(EXAMPLE / builder.GOLDEN_NAME) as committed:
        assert sorted(committed.files) == ["input_0", "output_0"]
        np.testing.assert_array_equal(committed["input_0"], inputs)
        np.testing.assert_array_equal(committed["output_0"], outputs)
    assert int(np.count_nonzero(outputs == -100)) and int(np.count_nonzero(outputs == 110)), (
        "the golden data must reach both clip bounds"
    )
