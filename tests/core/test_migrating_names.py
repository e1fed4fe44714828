"""docs/migrating.md's table of the product's modules: every name it lists as on ours imports.

The table ("The product's modules, name by name") has one row per public module of the product's
wheel (heliaAOT 1.1.0); its middle column lists the names that import from the same module on ours.
The module list below was read off the product's wheel (its top-level packages and modules), so a
row that goes missing from the table fails here too.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

MIGRATING = Path(__file__).resolve().parents[2] / "docs" / "migrating.md"

PRODUCT_MODULES = (
    "helia_aot",
    "helia_aot.air",
    "helia_aot.aot",
    "helia_aot.attributes",
    "helia_aot.cli",
    "helia_aot.console",
    "helia_aot.converter",
    "helia_aot.converters",
    "helia_aot.defines",
    "helia_aot.errors",
    "helia_aot.interpreters",
    "helia_aot.litert",
    "helia_aot.memory",
    "helia_aot.optimization",
    "helia_aot.platforms",
    "helia_aot.registry",
    "helia_aot.transforms",
    "helia_aot.utils",
    "helia_aot.views",
)


def table() -> dict[str, tuple[list[str], str]]:
    """Each row's module: the names listed as on ours, and the text saying what differs and why."""
    text = MIGRATING.read_text()
    section = text.split("### The product's modules, name by name", 1)[1].split("\n### ", 1)[0]
    rows: dict[str, tuple[list[str], str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`helia_aot"):
            continue
        rows[cells[0].strip("`")] = (re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", cells[1]), cells[2])
    return rows


def test_the_table_has_every_module_of_the_products_wheel():
    assert sorted(table()) == sorted(PRODUCT_MODULES)


@pytest.mark.parametrize("module", PRODUCT_MODULES)
def test_every_name_listed_as_present_imports(module):
    names, why = table()[module]
    if not names:  # a module ours does not have: the row says what ours has instead
        assert len(why) > 80 and why != "none", module
        return
    imported = importlib.import_module(module)
    for name in names:
        if not hasattr(imported, name):  # a submodule the product also exports by name
            importlib.import_module(f"{module}.{name}")
        assert hasattr(imported, name), f"from {module} import {name}"


def test_defines_mean_what_the_products_do():
    from helia_aot.config.enums import AccumulationChoice
    from helia_aot.defines import (
        Accumulation,
        KernelChoice,
        ModelType,
        ModuleType,
        OptimizationGoal,
        ScheduleMode,
        ValidCVarNameType,
        ValidModuleNameType,
    )
    from pydantic import TypeAdapter, ValidationError

    # The product's members (names and values), read off its helia_aot.defines.
    assert {m.name: m.value for m in ModuleType} == {
        "ZEPHYR": "zephyr",
        "CMAKE": "cmake",
        "NSX": "nsx",
        "CMSIS_PACK": "cmsis_pack",
    }
    assert {m.value for m in ModelType} == {"tflite", "litert"}
    assert {m.value for m in ScheduleMode} == {"table", "static"}
    assert {m.value for m in OptimizationGoal} == {"latency", "balanced", "size", "accuracy"}
    assert {m.value for m in KernelChoice} == {"auto", "specialized", "generic"}
    assert Accumulation is AccumulationChoice and {m.value for m in Accumulation} == {
        "auto",
        "precise",
        "fast",
    }
    # Any case, and the value is the word a configuration holds.
    assert (
        ModuleType("NSX") is ModuleType.NSX and ModuleType("nsx").value == "nsx" and ModuleType.NSX == "nsx"
    )
    assert TypeAdapter(ValidCVarNameType).validate_python("aot_model") == "aot_model"
    assert TypeAdapter(ValidModuleNameType).validate_python("kws-model") == "kws-model"
    for adapter, bad in (
        (ValidCVarNameType, "9lives"),
        (ValidCVarNameType, "a-b"),
        (ValidModuleNameType, "a b"),
    ):
        with pytest.raises(ValidationError):
            TypeAdapter(adapter).validate_python(bad)


def test_a_module_type_from_defines_configures_a_conversion(tmp_path):
    """As the product's profiler writes it: ModuleType("nsx") as the value, or assigned afterwards."""
    from helia_aot import ConvertArgs
    from helia_aot.defines import ModuleType

    args = ConvertArgs(module={"path": str(tmp_path), "type": ModuleType("nsx").value}, result_views=True)
    assert args.module.type == "nsx" and args.result_views is True
    args.module.type = ModuleType("cmsis_pack")
    args.force = True
    assert args.module.type == "cmsis_pack" and args.force is True


def test_cli_names_are_the_configuration_models():
    from helia_aot import ConvertArgs
    from helia_aot.cli import ConvertArgs as CliConvertArgs
    from helia_aot.cli import MemoryArgs, ModelArgs, OperatorRuleset, main, run
    from helia_aot.config.rules import MemoryConfig, OperatorRule
    from helia_aot.config.sections import ModelConfig

    assert CliConvertArgs is ConvertArgs and run is main
    assert (ModelArgs, MemoryArgs, OperatorRuleset) == (ModelConfig, MemoryConfig, OperatorRule)
    # The product's fields of each, read off its helia_aot.cli.
    assert {"path", "subgraph", "type", "name", "description", "version"} <= set(ModelArgs.model_fields)
    assert {"type", "id", "attributes", "optimization"} <= set(OperatorRuleset.model_fields)
