"""CUSTOM_NOOP, the guide's starter: parser dispatch on a real customCode, emission, a host run."""

from __future__ import annotations

import numpy as np
import pytest
from helia_aot.errors import UnsupportedModelError
from helia_aot.pack import LiteRTModelBuilder
from helia_aot.testing import write_golden
from helia_aot_example_ops import custom_noop

PACK = "helia_aot_example_ops.plugin"


def noop_model(path, in_shape=(2, 8), out_shape=(2, 8)):
    builder = LiteRTModelBuilder()
    x = builder.add_tensor("x", in_shape, "int8", quantization=(0.1, -2))
    y = builder.add_tensor("y", out_shape, "int8", quantization=(0.1, -2))
    builder.add_custom_operator(custom_noop.CUSTOM_CODE, [x], [y])
    builder.set_inputs([x])
    builder.set_outputs([y])
    return builder.save(path)


def test_key_comes_from_the_custom_code():
    assert custom_noop.CUSTOM_OP_KEY == "CUSTOM_NOOP"


def test_copies_its_input(tmp_path, aot_golden):
    samples = np.random.default_rng(3).integers(-128, 128, size=(2, 2, 8), dtype=np.int8)
    golden = write_golden(tmp_path / "noop.npz", [samples], [samples])
    run = aot_golden(noop_model(tmp_path / "noop.tflite"), golden, pack=PACK)
    run.assert_passed()
    sources = {p.name for p in (run.result.output / "src").iterdir()}
    assert "aot_custom_noop_0.c" in sources


def test_rejects_a_size_change(tmp_path, aot_convert):
    with pytest.raises(UnsupportedModelError, match="same size"):
        aot_convert(noop_model(tmp_path / "bad.tflite", out_shape=(4, 8)), pack=PACK)
