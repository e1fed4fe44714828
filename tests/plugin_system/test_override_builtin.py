"""Replacing a built-in operator class: plugins-example's override customizer, with and without
``allow_override=True``.

The module is loaded from its file, so this process never imports the pack as a package (and so
never sees its entry point).
"""

from __future__ import annotations

import importlib.util

import pytest
from helia_aot.errors import DuplicateRegistrationError
from helia_aot.registry import build_default_registry_context
from helia_aot.testing import corpus_golden_to_npz, run_golden

from .example_pack import PACK_SOURCE

DATA = PACK_SOURCE.parents[0] / "tests" / "data"
MODEL = DATA / "models" / "fc_64x32_relu_int8.tflite"


@pytest.fixture(scope="module")
def override():
    path = PACK_SOURCE / "src" / "helia_aot_example_ops" / "override.py"
    spec = importlib.util.spec_from_file_location("example_override", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_subclass_replaces_the_builtin_and_keeps_its_numerics(override, tmp_path):
    context = build_default_registry_context(
        customizers=[override.stamp_fully_connected], allow_override=True
    )
    stamped = context.aot_operator_classes.get("FULLY_CONNECTED")
    builtin = build_default_registry_context().aot_operator_classes.get("FULLY_CONNECTED")
    assert stamped is not builtin and issubclass(stamped, builtin)
    assert context.aot_operator_classes.provider("FULLY_CONNECTED").startswith("customizer ")

    golden = corpus_golden_to_npz(DATA / "golden" / "fc_64x32_relu_int8.npz", tmp_path / "golden.npz")
    run = run_golden(MODEL, golden, tmp_path, registry=context)
    run.assert_passed()
    sources = sorted((run.result.output / "src").glob("aot_fully_connected_*.c"))
    assert sources and all(p.read_text().startswith(override.STAMP) for p in sources)


def test_without_allow_override_the_context_is_refused(override):
    with pytest.raises(DuplicateRegistrationError) as info:
        build_default_registry_context(customizers=[override.stamp_fully_connected])
    assert "tried to replace the built-in 'FULLY_CONNECTED'" in info.value.message
    assert "allow_override=True" in info.value.hint
