"""``helia-aot plugins`` and ``helia-aot platforms list|show``, over stand-in records."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import helia_aot.cli.listing as listing
import pytest
from helia_aot.cli import app
from helia_aot.errors import InvalidConfigError, PluginError
from helia_aot.platforms import SocPlatform
from helia_aot.platforms.records import platform_json
from helia_aot.registry import RegistryContext
from typer.testing import CliRunner

runner = CliRunner()


@dataclass(slots=True)
class Record:
    """A plugin record without ``to_dict``: the CLI falls back to its dataclass fields."""

    name: str
    distribution: str
    version: str
    registered: dict[str, list[str]] = field(default_factory=dict)


PLUGINS = [
    Record(
        "ops",
        "acme-ops",
        "1.2.0",
        {"aot_operator_classes": ["GAIN", "CUSTOM_NOOP"], "litert_parsers": ["GAIN"]},
    ),
    Record("boards", "acme-boards", "0.3.1", {"platforms": ["acme_m55"]}),
]

BOARD = SocPlatform(
    name="acme_m55",
    cpu="cortex-m55",
    capabilities=["mcu", "dsp", "mve"],
    memories={"dtcm": 256 * 1024, "sram": 1 << 20},
    preferred_order=["dtcm", "sram"],
    alignment=16,
    description="ACME test board",
)
SMALL = SocPlatform(
    name="acme_m4",
    cpu="cortex-m4",
    capabilities=["mcu", "dsp"],
    memories={"sram": 96 * 1024},
    preferred_order=["sram"],
    alignment=4,
)


def unknown_platform(name: str):
    raise InvalidConfigError(
        f"Unknown platform {name!r}. Did you mean 'acme_m55'?", hint="Registered: acme_m4, acme_m55."
    )


def stand_in_context(plugins=None) -> RegistryContext:
    """A context holding the two stand-in boards, whatever the plugin selection."""
    context = RegistryContext()
    for board in (BOARD, SMALL):
        context.platforms.register(board.name, board)
    return context


@pytest.fixture(autouse=True)
def fakes(monkeypatch):
    monkeypatch.setattr(listing, "list_plugins", lambda selection: PLUGINS)
    monkeypatch.setattr(listing, "build_default_registry_context", stand_in_context)
    monkeypatch.setattr(
        listing,
        "get_platform",
        lambda name, context: {"acme_m55": BOARD, "acme_m4": SMALL}.get(name) or unknown_platform(name),
    )


def test_plugins_table():
    result = runner.invoke(app, ["plugins"], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    for text in (
        "acme-ops",
        "1.2.0",
        "aot_operator_classes: GAIN, CUSTOM_NOOP",
        "platforms: acme_m55",
        "boards",
    ):
        assert text in result.stdout


def test_plugins_json():
    result = runner.invoke(app, ["plugins", "--json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data == [
        {
            "name": "ops",
            "distribution": "acme-ops",
            "version": "1.2.0",
            "registered": {"aot_operator_classes": ["GAIN", "CUSTOM_NOOP"], "litert_parsers": ["GAIN"]},
        },
        {
            "name": "boards",
            "distribution": "acme-boards",
            "version": "0.3.1",
            "registered": {"platforms": ["acme_m55"]},
        },
    ]


def test_no_plugins(monkeypatch):
    monkeypatch.setattr(listing, "list_plugins", lambda selection: [])
    result = runner.invoke(app, ["plugins"])
    assert result.exit_code == 0 and "No plugins are installed." in result.stdout
    assert json.loads(runner.invoke(app, ["plugins", "--json"]).stdout) == []


def test_broken_plugin_is_reported_with_its_exit_code(monkeypatch):
    def broken(selection):
        raise PluginError("plugin 'ops' (acme-ops 1.2.0) failed to import", hint="reinstall acme-ops")

    monkeypatch.setattr(listing, "list_plugins", broken)
    result = runner.invoke(app, ["plugins"])
    assert result.exit_code == PluginError.exit_code == 1
    assert "Error: plugin 'ops' (acme-ops 1.2.0) failed to import" in result.stderr
    assert "hint: reinstall acme-ops" in result.stderr


def test_platforms_list_table():
    result = runner.invoke(app, ["platforms", "list"], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    for text in (
        "acme_m55",
        "acme_m4",
        "cortex-m55",
        "mcu, dsp, mve",
        "dtcm 256 KiB",
        "sram 1 MiB",
        "sram 96 KiB",
    ):
        assert text in result.stdout, text


def test_platforms_list_json():
    result = runner.invoke(app, ["platforms", "list", "--json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["schema_version"] == 1
    assert [p["name"] for p in data["platforms"]] == ["acme_m4", "acme_m55"]
    m55 = data["platforms"][1]
    assert m55["memories"] == [{"name": "SRAM", "bytes": 1 << 20}, {"name": "DTCM", "bytes": 256 * 1024}]
    assert m55["capabilities"] == ["MCU", "DSP", "MVE"]


def test_platforms_show():
    result = runner.invoke(app, ["platforms", "show", "acme_m55"], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    for text in ("cortex-m55", "ACME test board", "preferred_order", "dtcm, sram", "alignment", "16"):
        assert text in result.stdout
    data = json.loads(runner.invoke(app, ["platforms", "show", "acme_m4", "--json"]).stdout)
    assert data == {"schema_version": 1, "platform": platform_json(SMALL)}


def test_platforms_show_prints_the_compiler_flags_module_builds_need():
    result = runner.invoke(app, ["platforms", "show", "acme_m55"], env={"COLUMNS": "160"})
    assert "compiler_flags   -mcpu=cortex-m55 -mfloat-abi=hard -mthumb" in result.stdout
    result = runner.invoke(app, ["platforms", "show", "acme_m4"], env={"COLUMNS": "160"})
    assert "-mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard -mthumb" in result.stdout


def test_platforms_show_unknown_name_is_exit_2():
    result = runner.invoke(app, ["platforms", "show", "acme_m5"])
    assert result.exit_code == 2
    assert "Error: Unknown platform 'acme_m5'. Did you mean 'acme_m55'?" in result.stderr
    assert "hint: Registered: acme_m4, acme_m55." in result.stderr


def test_platforms_without_subcommand_shows_help():
    result = runner.invoke(app, ["platforms"])
    assert "list" in result.output and "show" in result.output
