"""A Vela-compiled model (an ETHOS_U custom operator) is refused at Resolve with a typed error that
names the NPU platform it needs, on a CPU-only part and on the NPU part alike (this pack emits CPU
code only), instead of a missing-parser error or a traceback."""

from __future__ import annotations

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import UnsupportedModelError
from helia_aot.litert.builder import LiteRTModelBuilder


def vela_like_model(path):
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (1, 16), "int8", quantization=(0.1, 0))
    stream = b.add_tensor("command_stream", (8,), "uint8", data=bytes(range(8)))
    y = b.add_tensor("y", (1, 16), "int8", quantization=(0.1, 0))
    b.add_custom_operator("ETHOS_U", [stream, x], [y])
    b.set_inputs([x])
    b.set_outputs([y])
    return b.save(path)


@pytest.mark.parametrize(
    "platform, where", [("apollo510_evb", "apollo510_evb has no NPU"), ("atomiq110", "does not drive it")]
)
def test_ethos_u_is_refused_naming_the_npu_platform(platform, where, tmp_path):
    config = {
        "model": {"path": str(vela_like_model(tmp_path / "vela.tflite"))},
        "module": {"path": str(tmp_path / "out")},
        "platform": {"name": platform},
    }
    with pytest.raises(UnsupportedModelError) as caught:
        AotConverter(ConvertArgs.model_validate(config)).convert()
    message = str(caught.value)
    assert "ETHOS_U" in message and "atomiq110" in message and where in message
