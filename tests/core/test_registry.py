"""Registry and RegistryContext semantics, and build_default_registry_context's contract."""

from __future__ import annotations

import pytest
from helia_aot.errors import DuplicateRegistrationError, RegistryFrozenError, RegistryLookupError
from helia_aot.registry import Registry, RegistryContext, build_default_registry_context


def test_register_lookup_and_overwrite():
    r = Registry("things")
    r.register("CONV_2D", 1)
    assert r.get("CONV_2D") == 1 and "CONV_2D" in r and r.keys() == ["CONV_2D"]
    with pytest.raises(DuplicateRegistrationError):
        r.register("CONV_2D", 2)
    r.register("CONV_2D", 2, overwrite=True)
    assert r.get("CONV_2D") == 2


def test_lookup_error_names_close_keys():
    r = Registry("aot_operator_classes")
    r.register("CONV_2D", 1)
    r.register("DEPTHWISE_CONV_2D", 2)
    with pytest.raises(RegistryLookupError) as info:
        r.get("CONV2D")
    assert "CONV_2D" in info.value.hint
    assert isinstance(info.value, KeyError)


def test_frozen_registry_rejects_changes():
    r = Registry("x")
    r.register("A", 1)
    r.freeze()
    with pytest.raises(RegistryFrozenError):
        r.register("B", 2)
    with pytest.raises(RegistryFrozenError):
        r.unregister("A")


def test_context_has_the_five_documented_registries():
    ctx = RegistryContext()
    for name in ("litert_model_hooks", "litert_parsers", "air_options", "aot_operator_classes", "transforms"):
        assert getattr(ctx, name).name == name


def test_default_context_is_frozen_and_customizers_run_in_order():
    calls = []

    def first(ctx):
        calls.append("first")
        ctx.transforms.register("T1", object)

    def second(ctx):
        calls.append("second")
        assert "T1" in ctx.transforms
        ctx.transforms.register("T2", object)

    ctx = build_default_registry_context(customizers=[first, second])
    assert calls == ["first", "second"] and ctx.frozen
    with pytest.raises(RegistryFrozenError):
        ctx.transforms.register("T3", object)
    assert not build_default_registry_context(freeze=False).frozen


def test_replacing_a_builtin_needs_allow_override():
    def replace(ctx):
        ctx.memory_planners.register("greedy", lambda *a, **k: None, overwrite=True)

    with pytest.raises(DuplicateRegistrationError) as info:
        build_default_registry_context(customizers=[replace])
    assert "allow_override" in info.value.hint
    ctx = build_default_registry_context(customizers=[replace], allow_override=True)
    assert "customizer" in ctx.memory_planners.provider("greedy")

    def remove(ctx):
        ctx.memory_planners.unregister("greedy")

    with pytest.raises(DuplicateRegistrationError):
        build_default_registry_context(customizers=[remove])
