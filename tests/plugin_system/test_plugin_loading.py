"""Plugin discovery, selection, blocking, failure messages and conflicts, with throwaway dists."""

from __future__ import annotations

import pytest
from helia_aot.errors import DuplicateRegistrationError, InvalidConfigError, PluginError
from helia_aot.plugins import AUTOLOAD_ENV, load_plugins, reset_plugin_cache
from helia_aot.registry import RegistryContext, build_default_registry_context, list_plugins

from .fakedist import forget_modules, make_distribution

GOOD = """
from helia_aot.plugins import hookimpl

def parse_thing(op_id, model, subgraph, air_model):
    raise NotImplementedError

@hookimpl
def helia_aot_register(context):
    context.litert_parsers.register("THING_OP", parse_thing)
"""

BROKEN_IMPORT = """
raise ImportError("this plugin is broken on purpose")
"""

RAISES = """
from helia_aot.plugins import hookimpl

@hookimpl
def helia_aot_register(context):
    raise RuntimeError("boom inside the hook")
"""

CONFLICT = """
from helia_aot.plugins import hookimpl

@hookimpl
def helia_aot_register(context):
    context.litert_parsers.register("THING_OP", object())
"""

IMPORT_TRAP = """
import os
open(os.environ["HELIA_AOT_TRAP_FILE"], "w").write("imported")
from helia_aot.plugins import hookimpl

@hookimpl
def helia_aot_register(context):
    pass
"""


@pytest.fixture
def site(tmp_path, monkeypatch):
    """A temporary site directory on sys.path; plugin caches and modules are reset around each test."""
    path = tmp_path / "site"
    path.mkdir()
    monkeypatch.syspath_prepend(str(path))
    monkeypatch.delenv(AUTOLOAD_ENV, raising=False)
    reset_plugin_cache()
    yield path
    forget_modules("good_plugin", "broken_plugin", "raising_plugin", "conflict_plugin", "trap_plugin")
    reset_plugin_cache()


def test_working_plugin_is_discovered_and_lists_its_keys(site):
    make_distribution(site, "good-plugin", "1.2.3", "good_plugin", GOOD)
    records = {r.name: r for r in list_plugins()}
    assert records["good_plugin"].distribution == "good-plugin"
    assert records["good_plugin"].version == "1.2.3"
    assert records["good_plugin"].registered == {"litert_parsers": ["THING_OP"]}
    assert "core" in records  # the core's own built-ins load as a plugin too
    context = build_default_registry_context()
    assert "THING_OP" in context.litert_parsers
    assert "good-plugin 1.2.3" in context.litert_parsers.provider("THING_OP")


def test_broken_import_names_entry_point_distribution_and_version(site):
    make_distribution(site, "broken-plugin", "0.0.1", "broken_plugin", BROKEN_IMPORT)
    with pytest.raises(PluginError) as info:
        load_plugins()
    message = str(info.value)
    assert "broken_plugin" in message and "broken-plugin" in message and "0.0.1" in message
    assert "broken on purpose" in message


def test_raising_hook_names_the_plugin(site):
    make_distribution(site, "raising-plugin", "2.0", "raising_plugin", RAISES)
    with pytest.raises(PluginError) as info:
        build_default_registry_context()
    assert "raising-plugin 2.0" in str(info.value) and "boom inside the hook" in str(info.value)


def test_two_plugins_registering_one_key_name_both(site):
    make_distribution(site, "good-plugin", "1.0", "good_plugin", GOOD)
    make_distribution(site, "conflict-plugin", "3.1", "conflict_plugin", CONFLICT)
    with pytest.raises(DuplicateRegistrationError) as info:
        build_default_registry_context()
    message = str(info.value)
    assert "good-plugin 1.0" in message and "conflict-plugin 3.1" in message and "THING_OP" in message


def test_blocked_plugin_is_never_imported(site, tmp_path, monkeypatch):
    trap = tmp_path / "trap.txt"
    monkeypatch.setenv("HELIA_AOT_TRAP_FILE", str(trap))
    make_distribution(site, "trap-plugin", "1.0", "trap_plugin", IMPORT_TRAP)
    host = load_plugins({"disabled": ["trap_plugin"]})
    assert "trap_plugin" not in [r.name for r in host.records]
    assert not trap.exists()
    load_plugins()
    assert trap.exists()  # the same plugin, not blocked, does import


def test_autoload_env_loads_only_enabled_plugins(site, monkeypatch):
    make_distribution(site, "good-plugin", "1.0", "good_plugin", GOOD)
    monkeypatch.setenv(AUTOLOAD_ENV, "1")
    assert [r.name for r in load_plugins().records] == ["core"]
    assert [r.name for r in load_plugins({"enabled": ["good_plugin"]}).records] == ["core", "good_plugin"]


def test_enabling_an_unknown_plugin_is_a_config_error(site):
    with pytest.raises(InvalidConfigError) as info:
        load_plugins({"enabled": ["nope"]})
    assert info.value.exit_code == 2


def test_load_order_is_deterministic(site):
    make_distribution(site, "good-plugin", "1.0", "good_plugin", GOOD)
    make_distribution(
        site,
        "trap-plugin",
        "1.0",
        "trap_plugin",
        IMPORT_TRAP.replace('open(os.environ["HELIA_AOT_TRAP_FILE"], "w").write("imported")', ""),
    )
    first = [r.name for r in load_plugins().records]
    second = [r.name for r in load_plugins().records]
    assert first == second
    assert first.index("good_plugin") < first.index("trap_plugin")


def test_customizer_reused_as_plugin_hook(site):
    from helia_aot.plugins import hookimpl

    def customize_registry(context: RegistryContext) -> None:
        context.transforms.register("MY_TRANSFORM", object)

    direct = build_default_registry_context(customizers=[customize_registry])
    assert "MY_TRANSFORM" in direct.transforms
    host = load_plugins(
        extra=[("mine", type("P", (), {"helia_aot_register": staticmethod(hookimpl(customize_registry))})())]
    )
    ctx = RegistryContext()
    host.register_into(ctx)
    assert "MY_TRANSFORM" in ctx.transforms
