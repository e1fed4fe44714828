"""Platform capabilities an operator declares per element type, checked generically at Resolve.

An operator class says which platform capability its kernels need for non-constant tensors of an
element type (``DTYPE_PLATFORM_CAPABILITIES``); Resolve refuses the operator on a platform that
lacks it with an UnsupportedModelError naming the tensor, the platform's core and the registered
platforms that have it. The built-in pack declares float16 -> FP16 this way (the core has no
float16 special case), and a third-party pack can declare its own needs the same way.
"""

from __future__ import annotations

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import UnsupportedModelError
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.registry import build_default_registry_context
from helia_aot_ops_builtin.plugin import registrations


def _add_model(path, dtype: str):
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (1, 8), dtype)
    c = b.add_tensor("c", (1, 8), dtype, data=np.ones((1, 8), dtype))
    y = b.add_tensor("y", (1, 8), dtype)
    b.add_operator("ADD", [x, c], [y])
    b.set_inputs([x])
    b.set_outputs([y])
    return b.save(path)


def _convert(model, out, platform, context=None):
    config = {
        "model": {"path": str(model)},
        "module": {"path": str(out), "name": "m"},
        "platform": {"name": platform},
    }
    return AotConverter(ConvertArgs.model_validate(config), context).convert()


def test_every_builtin_operator_with_float16_declares_the_fp16_capability():
    with_half = [r for r in registrations() if np.float16 in (r.operator.SUPPORTED_DTYPES or ())]
    assert len(with_half) > 40
    for record in with_half:
        assert dict(record.operator.DTYPE_PLATFORM_CAPABILITIES) == {"float16": "fp16"}, record.key


def test_a_pack_operator_declares_a_capability_resolve_checks(tmp_path):
    """A pack's ADD that needs Helium for float32 is refused on the M4 by the generic check,
    with the sentence the float16 refusal uses; the built-in ADD converts there."""
    from helia_aot_ops_builtin.elementwise.binary import AddOperator

    class HeliumOnlyAdd(AddOperator):
        """float32 ADD whose (hypothetical) kernel is Helium-only."""

        DTYPE_PLATFORM_CAPABILITIES = {"float32": "mve", "float16": "fp16"}

    def customize(context):
        context.aot_operator_classes.register("ADD", HeliumOnlyAdd, overwrite=True)

    model = _add_model(tmp_path / "add.tflite", "float32")
    assert _convert(model, tmp_path / "builtin", "apollo4p_evb").output
    context = build_default_registry_context(customizers=[customize], allow_override=True)
    with pytest.raises(UnsupportedModelError) as info:
        _convert(model, tmp_path / "pack_m4", "apollo4p_evb", context)
    message = str(info.value)
    assert "#0 ADD: 'x' is float32, which needs an MVE-capable platform" in message
    assert "apollo4p_evb (cortex-m4) has no MVE: choose one that has it (" in message
    assert "apollo510_evb" in message and "apollo4p_evb," not in message
    assert info.value.exit_code == UnsupportedModelError("x").exit_code
    context = build_default_registry_context(customizers=[customize], allow_override=True)
    assert _convert(model, tmp_path / "pack_m55", "apollo510_evb", context).output


def test_constant_operands_need_no_capability(tmp_path):
    """Only non-constant tensors count: the float16 constant of a float16 ADD is not what the
    refusal names; the activation is."""
    model = _add_model(tmp_path / "add16.tflite", "float16")
    with pytest.raises(UnsupportedModelError) as info:
        _convert(model, tmp_path / "out", "apollo3_evb")
    assert "'x' is float16, which needs an FP16-capable platform" in str(info.value)
    assert "'c'" not in str(info.value)
