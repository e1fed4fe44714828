"""Issue 12 item 3: the product's Python names, where its API manifest says they live.

The manifest's names are copied here as data (names only, from the seeds' "Python API in
practice" page and its provisional lists, plus the modules the product's ``__all__`` names for
transforms and attribute rules), so a rename or a move shows up as a failing import.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from pathlib import Path

import pytest
from helia_aot.errors import (
    ConfigValueError,
    DuplicateRegistrationError,
    GoldenDataKeyError,
    HeliaAotError,
    InvalidConfigError,
    RegistryFrozenError,
)
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

PRODUCT_DATA = Path(__file__).resolve().parents[1] / "data" / "product"

MANIFEST: dict[str, tuple[str, ...]] = {
    "helia_aot": ("AotConverter", "ConversionResult", "ConvertArgs"),
    "helia_aot.views": ("OperatorView", "PlacementView", "QuantizationView", "RegionView", "TensorView"),
    "helia_aot.registry": ("Registry", "RegistryBundle", "RegistryContext", "build_default_registry_context"),
    "helia_aot.errors": (
        "ConfigValueError",
        "DuplicateRegistrationError",
        "GoldenDataError",
        "GoldenDataKeyError",
        "GoldenDataNotFoundError",
        "HeliaAotError",
        "InvalidConfigError",
        "ModelLoadError",
        "OperatorIdError",
        "OperatorOrderError",
        "OutputExistsError",
        "ReferenceExecutionError",
        "RegistryFrozenError",
        "TemplateRenderError",
        "UnsupportedModelError",
    ),
    "helia_aot.optimization": (
        "KNOBS",
        "SETTINGS",
        "KnobSpec",
        "SettingSpec",
        "knob",
        "knob_names",
        "default_knob_values",
        "MeasurementRecord",
        "load_measurements",
        "measurements_for",
        "OptimizationPlan",
        "OptimizationReport",
    ),
    "helia_aot.platforms": (
        "MemoryType",
        "SocCapability",
        "SocPlatform",
        "get_platform",
        "list_platform_names",
        "list_platforms",
        "register_platform",
        "resolve_platform",
    ),
    "helia_aot.air": (
        "AirModel",
        "AirOperator",
        "AirOperatorOptions",
        "AirTensor",
        "AirOpType",
        "AirTensorKind",
        "AirTensorType",
        "TensorId",
        "OpId",
        "custom_code_to_op_key",
        "canonical_op_key",
    ),
    "helia_aot.memory": (
        "ArenaRole",
        "ArenaUsage",
        "MemoryConstraint",
        "MemoryPlan",
        "MemoryPlannerType",
        "TensorAllocation",
        "TensorAttributes",
        "TensorBinding",
        "TensorLifetime",
    ),
    "helia_aot.aot.operators": (
        "AotOperator",
        "CtxBufUsage",
        "OpCapability",
        "OperatorAttributes",
        "register_default_aot_operators",
    ),
    "helia_aot.interpreters": ("AirInterpreter", "create_interpreter"),
    "helia_aot.transforms": (
        "AirTransform",
        "NoOptions",
        "TransformPipeline",
        "TransformSpec",
        "register_default_transforms",
    ),
    "helia_aot.attributes": ("AttributeRuleset",),
}


@pytest.mark.parametrize(
    ("module", "name"), [(module, name) for module, names in MANIFEST.items() for name in names]
)
def test_every_manifest_name_imports_from_its_module(module, name):
    namespace: dict[str, object] = {}
    exec(f"from {module} import {name}", namespace)  # the statement a user's script runs
    assert namespace[name] is getattr(importlib.import_module(module), name)
    if module != "helia_aot":
        assert name in importlib.import_module(module).__all__


# -- errors ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [HeliaAotError, ConfigValueError, InvalidConfigError, GoldenDataKeyError])
def test_error_text_ends_with_its_hint(cls):
    error = cls("the model has no inputs", hint="export it with its signature", details={"k": 1})
    assert str(error) == "the model has no inputs (hint: export it with its signature)"
    assert error.args == ("the model has no inputs",) and error.message == "the model has no inputs"
    assert str(cls("no hint here")) == "no hint here"  # and details never enter the text
    assert repr(cls("m")) == f"{cls.__name__}('m')"


def test_the_cli_prints_message_and_hint_once(capsys):
    from helia_aot.cli.errors import print_error  # the CLI's own printer, fed as it is on failure

    error = InvalidConfigError("bad value", hint="fix it")
    print_error(error.message, error.hint)
    err = capsys.readouterr().err
    assert err.splitlines() == ["Error: bad value", "hint: fix it"]


# -- registries ------------------------------------------------------------------------------------


def test_registry_methods_as_the_product_has_them():
    from helia_aot.registry import Registry

    registry: Registry[int] = Registry(key_encoder=str.upper)
    registry.register("a", 1)
    assert registry.list() == ["A"] and registry.has("a") and registry.get("a") == 1
    assert list(registry.items()) == [("A", 1)]

    @registry.decorator("b")
    def b() -> None:
        """Registered under B by the decorator, and returned unchanged."""

    assert registry.get("B") is b
    with pytest.raises(DuplicateRegistrationError) as info:
        registry.register("a", 2)
    assert isinstance(info.value, KeyError) and str(info.value).endswith(f"(hint: {info.value.hint})")
    registry.register("a", 2, overwrite=True)
    assert registry.unregister("A") == 2
    with pytest.raises(KeyError):
        registry.get("zz")
    registry.clear()
    assert registry.list() == [] and not registry.has("b")
    registry.freeze()
    for change in (lambda: registry.register("c", 3), registry.clear):
        with pytest.raises(RegistryFrozenError):
            change()


def test_registry_bundle_and_context_from_a_bundle():
    from helia_aot.registry import Registry, RegistryBundle, RegistryContext

    assert [f.name for f in dataclasses.fields(RegistryBundle)] == [
        "litert_model_hooks",
        "litert_parsers",
        "aot_operator_classes",
        "transforms",
        "air_options",
    ]
    bundle = RegistryBundle(*(Registry(name) for name in ("h", "p", "o", "t", "a")))
    context = RegistryContext(bundle)
    for field in dataclasses.fields(RegistryBundle):
        assert getattr(context, field.name) is getattr(bundle, field.name)
    assert context.bundle == bundle
    bundle.litert_parsers.register("MY_OP", print)
    assert context.litert_parsers.get("MY_OP") is print  # the same registry objects, not copies
    context.freeze()
    with pytest.raises(RegistryFrozenError):
        bundle.transforms.register("X", object)
    with pytest.raises(TypeError):
        RegistryContext({"litert_parsers": Registry()})  # type: ignore[arg-type]


def test_register_default_aot_operators_fills_what_a_default_context_has():
    from helia_aot.aot.operators import register_default_aot_operators
    from helia_aot.registry import Registry, build_default_registry_context

    registry: Registry[type] = Registry("aot_operator_classes")
    register_default_aot_operators(registry)
    assert registry.items() == build_default_registry_context().aot_operator_classes.items()
    assert registry.has("CONV_2D")


def test_register_default_transforms_fills_what_a_default_context_has():
    from helia_aot.registry import Registry, build_default_registry_context
    from helia_aot.transforms import TransformPipeline, register_default_transforms

    registry: Registry[type] = Registry("transforms")
    register_default_transforms(registry)
    assert registry.items() == build_default_registry_context().transforms.items()
    assert [type(t) for t in TransformPipeline.from_config().transforms] == [
        cls for _, cls in build_default_registry_context().ordered_transforms()
    ]


def test_register_platform_without_a_context_reaches_every_later_context(monkeypatch):
    from helia_aot.platforms import SocPlatform, get_platform, lookup, register_platform
    from helia_aot.registry import build_default_registry_context

    monkeypatch.setattr(lookup, "_SCRIPT_PLATFORMS", {})
    board = dataclasses.replace(
        get_platform("apollo510_evb", build_default_registry_context()), name="my_board"
    )
    assert isinstance(board, SocPlatform) and register_platform(board) is board
    assert get_platform("MY_BOARD", build_default_registry_context()) is board
    with pytest.raises(DuplicateRegistrationError):
        register_platform(dataclasses.replace(board, name="My_Board"))


# -- knobs, settings, measurements ---------------------------------------------------------------


def test_knobs_and_settings_start_with_the_products_entries():
    from helia_aot.config.enums import OptimizationGoal
    from helia_aot.optimization import KNOBS, SETTINGS, default_knob_values, knob, knob_names

    assert isinstance(KNOBS, tuple) and isinstance(SETTINGS, tuple)
    assert knob_names() == frozenset({"accumulation", "kernel"})
    assert default_knob_values() == {"accumulation": "precise", "kernel": "specialized"}
    accumulation, kernel = knob("accumulation"), knob("kernel")
    assert (accumulation.values, accumulation.default, accumulation.approximate_values) == (
        ("precise", "fast"),
        "precise",
        frozenset({"fast"}),
    )
    assert dict(accumulation.auto) == {
        OptimizationGoal.LATENCY: "fast",
        OptimizationGoal.BALANCED: "precise",
        OptimizationGoal.SIZE: "precise",
        OptimizationGoal.ACCURACY: "precise",
    }
    assert kernel.auto[OptimizationGoal.SIZE] == "generic"
    assert kernel.operator_auto["DEPTHWISE_CONV_2D"][OptimizationGoal.SIZE] == "specialized"
    assert kernel.resolve("size", op_type="DEPTHWISE_CONV_2D") == "specialized"
    # goal size keeps the convolutions' and fully connected's fast loops (in their size form).
    assert kernel.resolve("size", op_type="CONV_2D") == "specialized"
    assert kernel.resolve("size", op_type="FULLY_CONNECTED") == "specialized"
    assert kernel.resolve("size", op_type="RESIZE_BILINEAR") == "generic"
    assert accumulation.resolve("latency") == "precise"  # fast is approximate: only when allowed
    assert accumulation.resolve("latency", allow_approximate=True) == "fast"
    with pytest.raises(KeyError, match="nope"):
        knob("nope")
    assert [(s.name, s.default) for s in SETTINGS][:4] == [
        ("goal", "balanced"),
        ("allow_approximate", "false"),
        ("accumulation", "auto"),
        ("kernel", "auto"),
    ]
    placement = SETTINGS[4]
    assert placement.name == "constant_placement"
    assert placement.keys == ("memory.tensors[].attributes.constant_destination_memory",)
    assert placement.values == ("MRAM", "SRAM", "DTCM", "ITCM", "DRAM", "PSRAM")


def test_the_context_registers_the_defaults_the_tuples_show():
    from helia_aot.optimization import KNOBS, SETTINGS
    from helia_aot.registry import build_default_registry_context

    context = build_default_registry_context()
    assert context.knobs.items() == [(k.name, k) for k in KNOBS]
    assert context.settings.items() == [(s.name, s) for s in SETTINGS]
    assert context.knobs.provider("kernel") and "core" in str(context.knobs.provider("kernel"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        KNOBS[0].default = "fast"  # type: ignore[misc]


def test_packaged_measurements_have_the_products_format():
    from helia_aot.optimization import load_measurements, measurements_for
    from helia_aot.optimization import measurements as module

    text = (Path(module.__file__).parent / "measurements.json").read_text()
    assert json.loads(text) == {"format_version": 1, "records": []}  # no numbers of our own yet
    assert load_measurements() == () and load_measurements() is load_measurements()
    assert measurements_for("constant_placement", "apollo510_evb", "cortex-m55") == []


def test_measurements_in_the_products_shape_read():
    from helia_aot.optimization import MeasurementRecord, load_measurements, measurements_for

    records = load_measurements(PRODUCT_DATA / "measurements_v1.json")
    assert [(r.value, r.cpu) for r in records] == [("DTCM", "cortex-m55"), ("SRAM", "cortex-m55")]
    assert list(MeasurementRecord.model_fields) == [
        "setting",
        "value",
        "target",
        "cpu",
        "cmsis_nn",
        "helia_aot",
        "subject",
        "gain",
        "accuracy",
        "conditions",
        "source",
        "generated_by",
    ]
    assert measurements_for("constant_placement", "apollo510_evb", "cortex-m55", records) == list(records)
    assert measurements_for("constant_placement", "apollo510_evb", "cortex-m4", records) == []
    with pytest.raises(ValidationError):
        records[0].value = "SRAM"  # frozen


@pytest.mark.parametrize(
    ("data", "error"),
    [
        ({"format_version": 2, "records": []}, "unsupported measurements format 2"),
        ({"format_version": 1, "records": [], "extra": 1}, "extra"),
        ({"format_version": 1, "records": [{"setting": "x"}]}, "value"),
    ],
)
def test_measurement_files_that_do_not_read(tmp_path, data, error):
    from helia_aot.optimization import load_measurements

    path = tmp_path / "m.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=error):
        load_measurements(path)


# -- memory types ----------------------------------------------------------------------------------


def test_memory_types_have_the_products_fields():
    from helia_aot.memory import (
        ArenaRole,
        ArenaUsage,
        MemoryConstraint,
        MemoryPlan,
        TensorAllocation,
        TensorAttributes,
        TensorBinding,
        TensorLifetime,
    )
    from helia_aot.platforms import MemoryType

    assert [r.value for r in ArenaRole] == ["scratch", "persistent", "constant"]
    usage = ArenaUsage(memory="DTCM")
    assert (usage.memory, usage.role, usage.alignment, usage.source_memory) == (
        MemoryType.DTCM,
        ArenaRole.SCRATCH,
        16,
        None,
    )
    assert MemoryConstraint(name="sram").model_dump() == {
        "name": MemoryType.SRAM,
        "max_size": None,
        "arena_alignment": None,
    }
    with pytest.raises(ValidationError):
        MemoryConstraint(name="sram", max_bytes=1)  # our config's key is not the product's type's
    binding = TensorBinding(role="constant", memory="sram", source_memory="mram")
    alloc = TensorAllocation(tensor_id="3", memory="sram", size=8, binding=binding)
    plan = MemoryPlan(
        tensor_allocs={"3": alloc},
        tensor_lifetimes={"3": TensorLifetime(tensor_id="3", start_op=0, end_op=2)},
        constant_arenas={"sram": ArenaUsage(memory="sram", role="constant", source_memory="mram")},
    )
    assert list(plan.constant_arenas) == [MemoryType.SRAM]
    assert MemoryPlan.model_validate(plan.model_dump()) == plan
    assert TensorAttributes(constant_destination_memory="DTCM").constant_destination_memory is MemoryType.DTCM


@given(st.sampled_from(["mram", "sram", "dtcm", "itcm", "dram", "psram"]), st.booleans())
def test_memory_type_reads_any_case(name, upper):
    from helia_aot.platforms import MemoryType

    assert MemoryType(name.upper() if upper else name).value == name


# -- attribute rules -----------------------------------------------------------------------------


def test_attribute_ruleset_shape_and_matching():
    from helia_aot.attributes import AttributeRuleset

    assert AttributeRuleset().model_dump() == {"type": "*", "id": None, "attributes": {}}
    rule = AttributeRuleset(type="conv_2d", id=["0:Identity", "3"], attributes={"code_placement": "itcm"})
    assert rule.matches("CONV_2D", ["3"]) and rule.matches("CONV_2D", ["9", "0:Identity"])
    assert not rule.matches("ADD", ["3"]) and not rule.matches("CONV_2D", ["4"])
    assert AttributeRuleset(id="3").specificity() == 2 and rule.specificity() == 3
    with pytest.raises(ValidationError):
        AttributeRuleset(kind="constant")
