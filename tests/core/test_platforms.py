"""The SoC platform model, the platform registry and platform configs (custom boards, overrides)."""

from __future__ import annotations

import dataclasses
import json
from types import SimpleNamespace

import pluggy
import pytest
from helia_aot.errors import DuplicateRegistrationError, InvalidConfigError, PluginError
from helia_aot.platforms import (
    MemoryType,
    SocCapability,
    SocPlatform,
    format_byte_size,
    format_platform_table,
    get_platform,
    list_platform_names,
    list_platforms,
    parse_byte_size,
    resolve_platform,
)
from helia_aot.plugins import PluginHost, PluginRecord, hookimpl, hookspecs
from helia_aot.registry import RegistryContext

KiB, MiB = 1024, 1024 * 1024


def make_platform(name: str = "board_m55", **changes) -> SocPlatform:
    fields = dict(
        name=name,
        cpu="cortex-m55",
        capabilities=frozenset({SocCapability.MCU, SocCapability.DSP, SocCapability.MVE}),
        memories={MemoryType.SRAM: 1 * MiB, MemoryType.DTCM: 256 * KiB, MemoryType.MRAM: 2 * MiB},
        preferred_order=(MemoryType.DTCM, MemoryType.SRAM),
        alignment=16,
        description="test board",
    )
    fields.update(changes)
    return SocPlatform(**fields)


@pytest.fixture
def ctx() -> RegistryContext:
    """An empty context: platform lookups see only what a test registers, never the installed plugins."""
    return RegistryContext()


def register_platform(context: RegistryContext, platform: SocPlatform, **kwargs) -> SocPlatform:
    return context.platforms.register(platform.name, platform, **kwargs)


def host_of(*plugins: object) -> PluginHost:
    """A plugin host over plugin objects, as the loader builds one from entry points."""
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    records = []
    for index, plugin in enumerate(plugins):
        name = f"boards{index}"
        pm.register(plugin, name=name)
        records.append(PluginRecord(name, f"acme-boards{index}", "1.0", "acme"))
    return PluginHost(records, pm)


def provider(*platforms: object) -> object:
    """A plugin object whose ``helia_aot_platforms`` returns ``platforms``."""
    return SimpleNamespace(helia_aot_platforms=hookimpl(lambda: list(platforms)))


# -- model ---------------------------------------------------------------------------------------


def test_fields_are_normalised_so_equal_hardware_compares_equal():
    a = make_platform()
    b = make_platform(
        cpu="Cortex-M55",
        capabilities=["mve", "DSP", "mcu"],
        memories=[("mram", 2 * MiB), ("DTCM", 256 * KiB), (MemoryType.SRAM, 1 * MiB)],
        preferred_order=["dtcm", "sram"],
    )
    assert a == b and hash(a) == hash(b)
    assert b.cpu == "cortex-m55"
    assert b.capabilities == frozenset({SocCapability.MCU, SocCapability.DSP, SocCapability.MVE})
    assert b.memories == (
        (MemoryType.MRAM, 2 * MiB),
        (MemoryType.SRAM, 1 * MiB),
        (MemoryType.DTCM, 256 * KiB),
    )
    assert b.preferred_order == (MemoryType.DTCM, MemoryType.SRAM)


def test_queries():
    p = make_platform()
    assert p.has(SocCapability.MVE) and p.has("mve") and p.has("MVE")
    assert not p.has("npu") and not p.has_npu and not p.has_fp16
    assert p.has_mve and p.has_dsp
    assert p.has_memory("sram") and p.has_memory(MemoryType.DTCM) and not p.has_memory("psram")
    assert p.has_dtcm and not p.has_itcm and not p.has_psram
    assert p.budget("dtcm") == 256 * KiB and p.budget(MemoryType.MRAM) == 2 * MiB
    assert dict(p.budgets) == {MemoryType.MRAM: 2 * MiB, MemoryType.SRAM: 1 * MiB, MemoryType.DTCM: 256 * KiB}
    assert p.memory_types == (MemoryType.MRAM, MemoryType.SRAM, MemoryType.DTCM)


def test_budget_of_a_missing_memory_names_the_declared_ones():
    with pytest.raises(InvalidConfigError, match="no psram") as info:
        make_platform().budget("psram")
    assert info.value.hint == "It declares: mram, sram, dtcm."


def test_platform_is_immutable():
    p = make_platform()
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.alignment = 4
    with pytest.raises(TypeError):
        p.budgets[MemoryType.SRAM] = 1  # type: ignore[index]


def test_to_dict_is_json_ready_and_ordered():
    p = make_platform(capabilities=["mve", "mcu", "dsp"])
    d = p.to_dict()
    assert d == {
        "name": "board_m55",
        "cpu": "cortex-m55",
        "description": "test board",
        "capabilities": ["mcu", "dsp", "mve"],
        "memories": {"mram": 2 * MiB, "sram": 1 * MiB, "dtcm": 256 * KiB},
        "preferred_order": ["dtcm", "sram"],
        "alignment": 16,
    }
    assert json.loads(json.dumps(d)) == d
    assert list(d) == [
        "name",
        "cpu",
        "description",
        "capabilities",
        "memories",
        "preferred_order",
        "alignment",
    ]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"alignment": 0}, "power of two"),
        ({"alignment": 12}, "power of two"),
        ({"alignment": -4}, "power of two"),
        ({"alignment": True}, "power of two"),
        ({"alignment": 16.0}, "power of two"),
        ({"memories": {"sram": 0}, "preferred_order": ["sram"]}, "positive number of bytes"),
        ({"memories": {"sram": -1}, "preferred_order": ["sram"]}, "positive number of bytes"),
        ({"memories": {"sram": 1.5}, "preferred_order": ["sram"]}, "positive number of bytes"),
        ({"memories": {"sram": "1MiB"}, "preferred_order": ["sram"]}, "positive number of bytes"),
        ({"memories": {}, "preferred_order": []}, "declares no memories"),
        ({"memories": [("sram", 1), ("SRAM", 2)], "preferred_order": ["sram"]}, "listed twice"),
        ({"memories": [("sram",)], "preferred_order": ["sram"]}, "must map a memory type"),
        ({"memories": {"tcm": 1}, "preferred_order": []}, "Unknown memory type 'tcm'"),
        ({"preferred_order": ("dtcm", "psram")}, "does not declare: psram"),
        ({"preferred_order": ("dtcm", "dtcm")}, "twice"),
        ({"preferred_order": ()}, "names no memory"),
        ({"preferred_order": "sram"}, "must be a list"),
        ({"capabilities": ["mcu", "gpu"]}, "Unknown SoC capability 'gpu'"),
        ({"capabilities": "mcu"}, "must be a list"),
        ({"name": ""}, "not valid"),
        ({"name": "my board"}, "not valid"),
        ({"cpu": ""}, "not valid"),
        ({"cpu": "cortex m4"}, "not valid"),
    ],
)
def test_validation_rejects_bad_fields(changes, message):
    with pytest.raises(InvalidConfigError, match=message):
        make_platform(**changes)


# -- registry ------------------------------------------------------------------------------------


def test_register_get_and_list(ctx):
    b = register_platform(ctx, make_platform("zeta_board"))
    a = register_platform(
        ctx, make_platform("alpha_board", cpu="cortex-m4", capabilities=["mcu", "dsp"], alignment=4)
    )
    assert get_platform("zeta_board", ctx) is b
    assert get_platform("  ALPHA_Board ", ctx) is a  # names match case-insensitively
    assert list_platforms(ctx) == [a, b]
    assert list_platform_names(ctx) == ["alpha_board", "zeta_board"]


def test_duplicate_registration_needs_overwrite(ctx):
    register_platform(ctx, make_platform("board"))
    replacement = make_platform("board", alignment=32)
    with pytest.raises(DuplicateRegistrationError, match="already registered"):
        register_platform(ctx, replacement)
    assert get_platform("board", ctx).alignment == 16
    register_platform(ctx, replacement, overwrite=True)
    assert get_platform("board", ctx) is replacement


def test_register_rejects_other_objects_and_other_names(ctx):
    with pytest.raises(PluginError, match="not a SocPlatform"):
        ctx.platforms.register("board", {"name": "board"})  # type: ignore[arg-type]
    with pytest.raises(PluginError, match="under another name"):
        ctx.platforms.register("other", make_platform("board"))
    assert list_platforms(ctx) == []


def test_unknown_name_suggests_the_nearest_registered_names(ctx):
    for name in ("apollo510_evb", "apollo510b_evb", "apollo510l_evb", "apollo4p_evb", "zephyr_board"):
        register_platform(ctx, make_platform(name))
    with pytest.raises(InvalidConfigError) as info:
        get_platform("apollo510", ctx)
    assert (
        info.value.message
        == "Unknown platform 'apollo510'. Did you mean 'apollo510_evb' or 'apollo510b_evb' or "
        "'apollo510l_evb'?"
    )
    assert str(info.value) == f"{info.value.message} (hint: {info.value.hint})"
    assert info.value.details["nearest"] == ["apollo510_evb", "apollo510b_evb", "apollo510l_evb"]
    assert "apollo4p_evb" in info.value.hint and "zephyr_board" in info.value.hint
    with pytest.raises(InvalidConfigError) as info:
        get_platform("apolo4p_evb", ctx)
    assert info.value.details["nearest"][0] == "apollo4p_evb"  # look-alikes, best first
    with pytest.raises(InvalidConfigError, match=r"^Unknown platform 'qqq'\. \(hint: "):
        get_platform("qqq", ctx)


def test_unknown_name_with_an_empty_registry_points_at_plugins(ctx):
    with pytest.raises(InvalidConfigError) as info:
        get_platform("apollo510_evb", ctx)
    assert "helia-aot-platforms-apollo" in info.value.hint


def test_unknown_name_names_the_blocked_plugins(ctx):
    ctx.blocked_plugins = {"apollo": "helia-aot-platforms-apollo"}
    with pytest.raises(InvalidConfigError) as info:
        get_platform("apollo510_evb", ctx)
    assert "Blocked by plugins.enabled/disabled" in info.value.hint
    assert "apollo (helia-aot-platforms-apollo)" in info.value.hint


def test_plugin_platforms_are_registered_with_their_provider(ctx):
    host = host_of(provider(make_platform("plugin_board")))
    host.register_into(ctx)
    assert list_platform_names(ctx) == ["plugin_board"]
    assert "acme-boards0 1.0" in ctx.platforms.provider("plugin_board")
    assert host.records[0].registered == {"platforms": ["plugin_board"]}


def test_a_plugin_returning_something_else_is_named(ctx):
    with pytest.raises(PluginError, match="instead of a SocPlatform") as info:
        host_of(provider(make_platform("good"), "not a platform")).register_into(ctx)
    assert "acme-boards0" in info.value.message


def test_two_plugins_providing_one_name_conflict(ctx):
    host = host_of(provider(make_platform("board")), provider(make_platform("board", alignment=4)))
    with pytest.raises(DuplicateRegistrationError, match="provided by both") as info:
        host.register_into(ctx)
    assert "acme-boards0" in info.value.message and "acme-boards1" in info.value.message


# -- resolving configs ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "config",
    [
        "registered_board",
        {"name": "registered_board"},
        {
            "name": "Registered_Board",
            "cpu": None,
            "memories": {},
            "capabilities": [],
            "preferred_order": None,
        },
        SimpleNamespace(
            name="registered_board",
            cpu=None,
            capabilities=None,
            memories=None,
            preferred_order=None,
            alignment=None,
        ),
        SimpleNamespace(name="registered_board"),
    ],
)
def test_registered_name_resolves_to_the_registered_record(config, ctx):
    registered = register_platform(ctx, make_platform("registered_board"))
    assert resolve_platform(config, ctx) is registered


def test_platform_passes_through(ctx):
    p = make_platform()
    assert resolve_platform(p, ctx) is p


def test_fields_next_to_a_registered_name_adjust_it(ctx):
    register_platform(ctx, make_platform("board"))
    p = resolve_platform({"name": "board", "memories": {"SRAM": "512KiB"}, "alignment": 32}, ctx)
    assert p.budget("sram") == 512 * KiB
    assert p.budget("dtcm") == 256 * KiB and p.budget("mram") == 2 * MiB  # memories merge
    assert p.alignment == 32 and p.name == "board" and p.cpu == "cortex-m55"
    assert get_platform("board", ctx).budget("sram") == 1 * MiB  # the registry is untouched
    q = resolve_platform(
        {"name": "board", "memories": {"psram": "8MiB"}, "preferred_order": ["sram", "psram"]},
        ctx,
    )
    assert q.budget("psram") == 8 * MiB and q.preferred_order == (MemoryType.SRAM, MemoryType.PSRAM)
    with pytest.raises(InvalidConfigError, match="does not declare: itcm"):
        resolve_platform({"name": "board", "preferred_order": ["itcm"]}, ctx)


def test_custom_platform_from_yaml_like_config_gets_defaults(ctx):
    p = resolve_platform(
        {
            "name": "my_m55",
            "cpu": "cortex-m55",
            "memories": {"sram": "2MiB", "dtcm": "128 KiB", "itcm": 65536, "mram": "2,000KiB"},
        },
        ctx,
    )
    assert p.name == "my_m55" and p.cpu == "cortex-m55"
    assert p.capabilities == frozenset(
        {SocCapability.MCU, SocCapability.DSP, SocCapability.MVE, SocCapability.FP16}
    )
    assert p.memories == (
        (MemoryType.MRAM, 2_048_000),
        (MemoryType.SRAM, 2 * MiB),
        (MemoryType.DTCM, 128 * KiB),
        (MemoryType.ITCM, 64 * KiB),
    )
    assert p.preferred_order == (MemoryType.DTCM, MemoryType.SRAM, MemoryType.MRAM)
    assert p.alignment == 16
    assert p.description == "Custom platform (cortex-m55)"

    m4 = resolve_platform(
        {"name": "my_m4", "cpu": "cortex-m4", "memories": [{"type": "sram", "size": "256KiB"}]},
        ctx,
    )
    assert m4.capabilities == frozenset({SocCapability.MCU, SocCapability.DSP}) and m4.alignment == 4
    assert m4.preferred_order == (MemoryType.SRAM,)

    odd = resolve_platform(
        SimpleNamespace(
            name="riscy",
            cpu="cortex-m99",
            memories=[["psram", "1MiB"], ["sram", 4096]],
            capabilities=None,
            preferred_order=["psram", "sram"],
            alignment=8,
            description="explicit",
        ),
        ctx,
    )
    assert odd.capabilities == frozenset({SocCapability.MCU})
    assert odd.preferred_order == (MemoryType.PSRAM, MemoryType.SRAM)
    assert odd.alignment == 8 and odd.description == "explicit"


def test_to_dict_round_trips_through_a_custom_config(ctx):
    p = make_platform("exported", capabilities=["mcu", "fp16"], alignment=8)
    assert resolve_platform(p.to_dict(), ctx) == p


@pytest.mark.parametrize(
    ("config", "missing"),
    [
        ({"name": "apollo510_evbx"}, "cpu and memories"),
        ({"name": "apollo510_evbx", "cpu": "cortex-m55"}, "memories"),
        ({"name": "apollo510_evbx", "memories": {"sram": "1MiB"}}, "cpu"),
    ],
)
def test_unknown_name_without_hardware_says_what_a_custom_platform_needs(config, missing, ctx):
    register_platform(ctx, make_platform("apollo510_evb"))
    with pytest.raises(InvalidConfigError, match=r"Did you mean 'apollo510_evb'\?") as info:
        resolve_platform(config, ctx)
    assert info.value.hint.startswith(f"To target a custom platform, also give {missing} ")
    assert "Registered platforms: apollo510_evb." in info.value.hint


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({}, "has no name"),
        ({"name": "  "}, "has no name"),
        (SimpleNamespace(cpu="cortex-m4"), "has no name"),
        ({"name": "b", "cpu": "cortex-m4", "memory": {"sram": 1}}, "Unknown platform config field"),
        ({"name": "b", "cpu": "cortex-m4", "memories": {"sram": "1MB"}}, "not a byte size"),
        ({"name": "b", "cpu": "cortex-m4", "memories": "sram"}, "must be a mapping"),
        ({"name": "b", "cpu": "cortex-m4", "memories": [("sram",)]}, "not a \\(type, size\\) pair"),
        ({"name": "b", "cpu": "cortex-m4", "memories": {"sram": 1, "SRAM": 2}}, "listed twice"),
        (
            {"name": "b", "cpu": "cortex-m4", "memories": {"itcm": "64KiB", "flash": "1MiB"}},
            "no read-write memory",
        ),
        ({"name": "b", "cpu": "cortex-m4", "memories": {"sram": "1MiB"}, "alignment": 3}, "power of two"),
        (
            {"name": "b", "cpu": "cortex-m4", "memories": {"sram": "1MiB"}, "capabilities": ["mpu"]},
            "Unknown SoC capability",
        ),
    ],
)
def test_bad_platform_configs(config, message, ctx):
    with pytest.raises(InvalidConfigError, match=message):
        resolve_platform(config, ctx)


# -- sizes and tables ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "nbytes"),
    [
        (4096, 4096),
        (4096.0, 4096),
        ("4096", 4096),
        ("2,048,000", 2_048_000),
        ("2_048_000 B", 2_048_000),
        ("496KiB", 496 * KiB),
        ("3 MiB", 3 * MiB),
        ("1gib", 1 << 30),
    ],
)
def test_parse_byte_size(text, nbytes):
    assert parse_byte_size(text) == nbytes


@pytest.mark.parametrize("text", ["1MB", "1 KB", "abc", "", "1.5MiB", "-1", True, 1.5, None])
def test_parse_byte_size_rejects(text):
    with pytest.raises(InvalidConfigError):
        parse_byte_size(text)


@pytest.mark.parametrize(
    ("nbytes", "text"),
    [
        (100, "100 B"),
        (1024, "1 KiB"),
        (4_128_768, "4,032 KiB"),
        (2_048_000, "2,000 KiB"),
        (64 * MiB, "64 MiB"),
        (1 << 30, "1 GiB"),
        (1025, "1,025 B"),
    ],
)
def test_format_byte_size(nbytes, text):
    assert format_byte_size(nbytes) == text


def test_table_has_a_column_per_memory_in_use():
    small = make_platform(
        "b_small", memories={"sram": 1000}, preferred_order=["sram"], capabilities=["mcu"], alignment=4
    )
    big = make_platform("a_big")
    assert format_platform_table([small, big]) == (
        "| Platform | CPU | Capabilities | MRAM | SRAM | DTCM | Fill order | Align |\n"
        "|---|---|---|---|---|---|---|---|\n"
        "| `a_big` | cortex-m55 | mcu, dsp, mve | 2 MiB | 1 MiB | 256 KiB | dtcm, sram | 16 |\n"
        "| `b_small` | cortex-m55 | mcu | - | 1,000 B | - | sram | 4 |\n"
    )
