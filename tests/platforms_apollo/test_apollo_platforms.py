"""The Apollo platform table: every board's CPU, capabilities and budgets in bytes, and its compiler flags."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from helia_aot.errors import InvalidConfigError
from helia_aot.platforms import (
    MemoryType,
    SocCapability,
    format_platform_table,
    get_platform,
    resolve_platform,
)
from helia_aot.registry import build_default_registry_context

from helia_aot_platforms_apollo import APOLLO_PLATFORMS, APOLLO_PLATFORMS_BY_NAME, compiler_flags

KiB, MiB = 1024, 1024 * 1024
MRAM, SRAM, DTCM, ITCM, PSRAM = (
    MemoryType.MRAM,
    MemoryType.SRAM,
    MemoryType.DTCM,
    MemoryType.ITCM,
    MemoryType.PSRAM,
)
M4_CAPS = {"mcu", "dsp"}
M55_CAPS = {"mcu", "dsp", "mve", "fp16"}

# name: (cpu, capabilities, {memory: bytes}, fill order, alignment), written out from the
# datasheet figures rather than derived from the module under test.
EXPECTED = {}
for _name in ("apollo3_evb", "apollo3_blue_evb", "apollo3_blue_thin_evb"):
    EXPECTED[_name] = (
        "cortex-m4",
        M4_CAPS,
        {MRAM: 1_048_576, SRAM: 327_680, DTCM: 65_536},
        (DTCM, SRAM, MRAM),
        4,
    )
for _name in ("apollo3p_evb", "apollo3_blue_plus_evb"):
    EXPECTED[_name] = (
        "cortex-m4",
        M4_CAPS,
        {MRAM: 2_097_152, SRAM: 720_896, DTCM: 65_536},
        (DTCM, SRAM, MRAM),
        4,
    )
for _name in (
    "apollo4l_evb",
    "apollo4l_blue_evb",
    "apollo4p_evb",
    "apollo4p_blue_kbr_evb",
    "apollo4p_blue_kxr_evb",
):
    EXPECTED[_name] = (
        "cortex-m4",
        M4_CAPS,
        {MRAM: 2_048_000, SRAM: 1_048_576, DTCM: 393_216},
        (DTCM, SRAM, MRAM),
        4,
    )
for _name in ("apollo510_evb", "apollo510b_evb"):
    EXPECTED[_name] = (
        "cortex-m55",
        M55_CAPS,
        {MRAM: 4_128_768, SRAM: 3_145_728, DTCM: 507_904, ITCM: 262_144, PSRAM: 67_108_864},
        (DTCM, SRAM, MRAM, PSRAM),
        16,
    )
for _name in ("apollo510l_evb", "apollo330mp_evb"):
    EXPECTED[_name] = (
        "cortex-m55",
        M55_CAPS,
        {MRAM: 2_031_616, SRAM: 1_835_008, DTCM: 245_760},
        (DTCM, SRAM, MRAM),
        16,
    )
EXPECTED["atomiq110"] = (
    "cortex-m55",
    M55_CAPS | {"npu"},
    {MRAM: 4_194_304, SRAM: 3_145_728, DTCM: 507_904, ITCM: 262_144},
    (DTCM, SRAM, MRAM),
    16,
)

DOCS = Path(__file__).resolve().parents[2] / "docs" / "platforms.md"


def test_exactly_the_expected_boards_sorted_by_name():
    names = [p.name for p in APOLLO_PLATFORMS]
    assert names == sorted(EXPECTED)
    assert set(APOLLO_PLATFORMS_BY_NAME) == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_board_row(name):
    cpu, capabilities, memories, order, alignment = EXPECTED[name]
    p = APOLLO_PLATFORMS_BY_NAME[name]
    assert p.cpu == cpu
    assert p.capabilities == frozenset(SocCapability(c) for c in capabilities)
    assert dict(p.budgets) == memories
    for memory in MemoryType:
        assert p.has_memory(memory) == (memory in memories)
        if memory in memories:
            assert p.budget(memory) == memories[memory]
    assert p.preferred_order == order
    assert p.alignment == alignment
    assert p.description.startswith("Ambiq ")
    assert p.has_itcm == (ITCM in memories) and p.has_psram == (PSRAM in memories)


def test_boards_resolve_through_the_plugin():
    context = build_default_registry_context(plugins={"enabled": ["apollo"]})
    assert sorted(context.platforms) == sorted(p.name for p in APOLLO_PLATFORMS)
    assert "helia-aot-platforms-apollo" in context.platforms.provider("apollo510_evb")
    assert get_platform("Apollo510_EVB", context) is APOLLO_PLATFORMS_BY_NAME["apollo510_evb"]
    assert resolve_platform({"name": "apollo4p_evb"}, context) is APOLLO_PLATFORMS_BY_NAME["apollo4p_evb"]
    with pytest.raises(InvalidConfigError) as info:
        get_platform("apollo510", context)
    assert info.value.details["nearest"] == ["apollo510_evb", "apollo510b_evb", "apollo510l_evb"]


def test_compiler_flags_per_cpu():
    assert compiler_flags("cortex-m55") == ("-mcpu=cortex-m55", "-mfloat-abi=hard")
    assert compiler_flags("Cortex-M4") == ("-mcpu=cortex-m4", "-mfpu=fpv4-sp-d16", "-mfloat-abi=hard")
    assert compiler_flags(APOLLO_PLATFORMS_BY_NAME["atomiq110"]) == compiler_flags("cortex-m55")
    with pytest.raises(InvalidConfigError, match="cortex-m85"):
        compiler_flags("cortex-m85")


def _predefined_macros(flags: tuple[str, ...]) -> set[str]:
    out = subprocess.run(
        ["arm-none-eabi-gcc", *flags, "-dM", "-E", "-x", "c", "-"],
        input="",
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {line.split()[1] for line in out.splitlines() if line.startswith("#define ")}


@pytest.mark.parametrize("cpu", ["cortex-m4", "cortex-m55"])
def test_compiler_flags_enable_what_the_capabilities_promise(cpu):
    macros = _predefined_macros(compiler_flags(cpu))
    assert "__ARM_PCS_VFP" in macros  # hard-float ABI
    assert "__ARM_FP" in macros
    for p in APOLLO_PLATFORMS:
        if p.cpu == cpu:
            assert p.has_dsp == ("__ARM_FEATURE_DSP" in macros)
            assert p.has_mve == ("__ARM_FEATURE_MVE" in macros)


def test_docs_table_matches_the_platform_records():
    table = format_platform_table(APOLLO_PLATFORMS)
    assert table in DOCS.read_text(), "docs/platforms.md is out of date; replace its table with:\n" + table


def test_plugin_hook_contributes_every_board():
    import helia_aot_platforms_apollo.plugin as plugin
    from helia_aot.plugins import load_plugins
    from helia_aot.registry import RegistryContext

    # No entry points (enabled: []), only the plugin module itself, so the test does not depend on
    # what is installed in the environment.
    host = load_plugins({"enabled": []}, extra=[("apollo", plugin)])
    context = RegistryContext()
    host.register_into(context)
    assert [p for _, p in context.platforms.items()] == list(APOLLO_PLATFORMS)
