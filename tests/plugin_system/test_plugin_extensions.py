"""A plugin's planner, exporter, platform and transform are chosen by name exactly like built-ins,
and plugins.enabled / plugins.disabled apply to every collection (conversion, platform lookup,
``helia-aot plugins``, ``helia-aot platforms``), with throwaway distributions."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
import yaml
from helia_aot import AotConverter, ConvertArgs
from helia_aot.cli import app
from helia_aot.errors import InvalidConfigError, PluginError, UnsupportedModelError
from helia_aot.plugins import AUTOLOAD_ENV, reset_plugin_cache
from helia_aot.registry import build_default_registry_context
from typer.testing import CliRunner

from .fakedist import forget_modules, make_distribution

MODEL = Path(__file__).resolve().parents[1] / "data" / "models" / "fc_64x32_relu_int8.tflite"
runner = CliRunner()

EXTENSIONS = """
from helia_aot.exporters import ModuleExporter
from helia_aot.memory import ArenaPlan, plan_greedy
from helia_aot.platforms import SocPlatform
from helia_aot.plugins import hookimpl

RUNS = []


def plan_first_fit(buffers, *, seed=0, options=None):
    RUNS.append(("acme_first_fit", {}))
    plan = plan_greedy(buffers, seed=seed, options=options)
    return ArenaPlan(plan.offsets, plan.used, plan.peak_live, "acme_first_fit")


class MakeExporter(ModuleExporter):
    TYPE = "acme_make"
    TITLE = "Make"

    def write(self, layout):
        objects = " ".join(s[:-2] + ".o" for s in layout.sources)
        return [self.write_text(layout, "module.mk", f"OBJECTS := {objects}\\n")]

    def integration(self, layout):
        return "Include `module.mk` from your Makefile."


class Tag:
    NAME = "acme_tag"
    ORDER = 50
    OPTIONS = dict
    ENABLED_BY_DEFAULT = False

    def __init__(self, options):
        self.options = options

    def apply(self, model, context):
        RUNS.append((self.NAME, dict(self.options)))
        return model


BOARD = SocPlatform(
    name="acme_board",
    cpu="cortex-m55",
    capabilities=["mcu", "dsp", "mve"],
    memories={"dtcm": 256 * 1024, "sram": 1024 * 1024, "mram": 2 * 1024 * 1024},
    preferred_order=["dtcm", "sram"],
    alignment=16,
    description="ACME test board",
)


@hookimpl
def helia_aot_register(context):
    context.memory_planners.register("acme_first_fit", plan_first_fit)
    context.module_exporters.register(MakeExporter.TYPE, MakeExporter)
    context.transforms.register(Tag.NAME, Tag)


@hookimpl
def helia_aot_platforms():
    return [BOARD]
"""

BROKEN = """
raise ImportError("this pack is broken on purpose")
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
    forget_modules("acme_ext", "broken_pack")
    reset_plugin_cache()


@pytest.fixture
def acme(site):
    make_distribution(site, "acme-extensions", "2.0.0", "acme_ext", EXTENSIONS)
    yield sys.modules.setdefault("acme_ext", __import__("acme_ext"))


@pytest.fixture
def broken(site):
    return make_distribution(site, "broken-pack", "0.1.0", "broken_pack", BROKEN)


def settings(tmp_path: Path, **changes) -> dict:
    data = {
        "model": {"path": str(MODEL)},
        "module": {"path": str(tmp_path / "out"), "name": "fc", "type": "cmake"},
        "platform": "apollo510_evb",
    }
    for key, value in changes.items():
        section, _, field = key.partition("__")
        if field:
            data.setdefault(section, {})
            if isinstance(data[section], str):
                data[section] = {"name": data[section]}
            data[section][field] = value
        else:
            data[section] = value
    return data


ACME = {
    "memory__planner": "acme_first_fit",
    "module__type": "acme_make",
    "platform__name": "acme_board",
    "transforms": [{"name": "acme_tag", "options": {"run": "yes"}}],
}


def assert_acme_module(module: Path, runs: list) -> None:
    """The module the acme extensions make: their build file, board, transform and planner."""
    assert (module / "module.mk").read_text().startswith("OBJECTS := src/")
    assert not (module / "CMakeLists.txt").exists()
    assert "acme_board" in (module / "README.md").read_text()
    assert runs[0] == ("acme_tag", {"run": "yes"})  # the transform ran, before Plan
    assert runs[1:] and {name for name, _ in runs[1:]} == {"acme_first_fit"}  # the planner placed
    runs.clear()


# -- a plugin's extensions, chosen by name ----------------------------------------------------------


def test_plugin_extensions_are_listed_by_helia_aot_plugins(acme):
    result = runner.invoke(app, ["plugins", "--json"])
    assert result.exit_code == 0, result.output
    rows = {row["name"]: row for row in json.loads(result.stdout)}
    assert rows["acme_ext"]["distribution"] == "acme-extensions" and rows["acme_ext"]["status"] == "loaded"
    assert rows["acme_ext"]["registered"] == {
        "transforms": ["acme_tag"],
        "memory_planners": ["acme_first_fit"],
        "module_exporters": ["acme_make"],
        "platforms": ["acme_board"],
    }
    core = rows["core"]["registered"]
    assert set(core) == {"memory_planners", "module_exporters", "knobs", "settings", "model_loaders"}
    assert core["model_loaders"] == ["litert"]  # the core's front end registers like any plugin's


def test_plugin_extensions_are_selected_from_yaml(acme, tmp_path):
    path = tmp_path / "acme.yaml"
    path.write_text(yaml.safe_dump(settings(tmp_path, **ACME)))
    assert_acme_module(AotConverter(ConvertArgs.from_yaml(path)).convert().output, acme.RUNS)
    cli = runner.invoke(app, ["convert", "--path", str(path), "--module.path", str(tmp_path / "cli")])
    assert cli.exit_code == 0, cli.output
    assert_acme_module(tmp_path / "cli" / "fc", acme.RUNS)


def test_plugin_extensions_are_selected_from_cli_flags(acme, tmp_path):
    args = ["convert", "--model.path", str(MODEL), "--module.path", str(tmp_path / "out")]
    args += ["--module.name", "fc", "--memory.planner", "acme_first_fit", "--module.type", "acme_make"]
    args += ["--platform.name", "acme_board", "--transforms", "[{name: acme_tag, options: {run: 'yes'}}]"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert_acme_module(tmp_path / "out" / "fc", acme.RUNS)


@pytest.mark.parametrize(
    ("change", "setting", "wanted", "registered"),
    [
        ({"memory__planner": "acme_first_fi"}, "memory.planner", "acme_first_fit", "greedy_by_size"),
        ({"module__type": "acme_mak"}, "module.type", "acme_make", "cmsis_pack"),
        ({"transforms": [{"name": "acme_tagg"}]}, "transforms[].name", "acme_tag", "acme_tag"),
        ({"platform__name": "acme_bord"}, "platform", "acme_board", "apollo510_evb"),
    ],
)
def test_a_misspelt_extension_names_the_registered_ones(acme, tmp_path, change, setting, wanted, registered):
    config = ConvertArgs.model_validate(settings(tmp_path, **change))
    with pytest.raises(InvalidConfigError) as info:
        AotConverter(config).convert()
    text = f"{info.value.message}\n{info.value.hint}"
    assert f"'{wanted}'" in info.value.message and "did you mean" in info.value.message.lower()
    assert registered in info.value.hint and wanted in info.value.hint
    if setting != "platform":
        assert info.value.message.startswith(setting)
    assert not (tmp_path / "out").exists(), text
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(settings(tmp_path, **change)))
    result = runner.invoke(app, ["convert", "--path", str(path)])
    assert result.exit_code == 2 and f"'{wanted}'" in result.stderr


def test_transforms_run_in_their_declared_order_not_registration_order():
    calls = []

    def rewrite(name, order):
        def apply(self, model, context):
            calls.append(name)
            return model

        return type(name, (), {"NAME": name, "ORDER": order, "apply": apply})

    def register(names_and_orders):
        def customize(context):
            for name, order in names_and_orders:
                context.transforms.register(name, rewrite(name, order))

        return customize

    from helia_aot.pipeline.transform import select_transforms

    one = build_default_registry_context([register([("late", 200), ("early", 10), ("b_mid", 100)])])
    two = build_default_registry_context([register([("b_mid", 100), ("late", 200), ("early", 10)])])
    names = [[t.NAME for t in select_transforms([], ctx)] for ctx in (one, two)]
    assert names[0] == names[1]  # the built-in pack's transforms fall in between by their ORDER
    assert [[n for n in found if n in ("early", "b_mid", "late")] for found in names] == [
        ["early", "b_mid", "late"]
    ] * 2


# -- plugins.enabled / plugins.disabled everywhere ---------------------------------------------------


def module_files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_pack_that_cannot_import_is_blocked_everywhere(broken, tmp_path, monkeypatch):
    config = settings(tmp_path)
    with pytest.raises(PluginError, match="broken_pack") as info:
        AotConverter(ConvertArgs.model_validate(config)).convert()
    assert "plugins.disabled: [broken_pack]" in info.value.hint
    assert runner.invoke(app, ["plugins"]).exit_code == 1
    assert runner.invoke(app, ["platforms", "list"]).exit_code == 1

    # Python: the configuration's plugins section, and the context builder's selection.
    blocked = {**config, "plugins": {"disabled": ["broken_pack"]}}
    python = AotConverter(ConvertArgs.model_validate(blocked)).convert().output
    context = build_default_registry_context(plugins={"disabled": ["broken_pack"]})
    assert context.blocked_plugins == {"broken_pack": "broken-pack"}
    # YAML and the command line.
    path = tmp_path / "blocked.yaml"
    path.write_text(
        yaml.safe_dump({**blocked, "module": {**blocked["module"], "path": str(tmp_path / "yaml")}})
    )
    assert runner.invoke(app, ["convert", "--path", str(path)]).exit_code == 0
    flag = ["--plugins.disabled", "broken_pack"]
    args = [
        "convert",
        "--model.path",
        str(MODEL),
        "--module.name",
        "fc",
        "--module.path",
        str(tmp_path / "flag"),
    ]
    assert runner.invoke(app, [*args, *flag]).exit_code == 0
    listed = runner.invoke(app, ["plugins", "--json", *flag])
    assert listed.exit_code == 0, listed.output
    rows = {row["name"]: row for row in json.loads(listed.stdout)}
    assert rows["broken_pack"]["status"] == "blocked" and rows["broken_pack"]["registered"] == {}
    platforms = runner.invoke(app, ["platforms", "list", "--json", *flag])
    assert platforms.exit_code == 0 and "apollo510_evb" in platforms.stdout
    assert runner.invoke(app, ["platforms", "show", "apollo510_evb", *flag]).exit_code == 0
    assert "broken_pack" not in sys.modules  # blocked, so never imported

    # The module is byte-identical to one made without the pack installed.
    shutil.rmtree(broken / "broken_pack-0.1.0.dist-info")
    reset_plugin_cache()
    without = (
        AotConverter(
            ConvertArgs.model_validate(
                {**config, "module": {**config["module"], "path": str(tmp_path / "plain")}}
            )
        )
        .convert()
        .output
    )
    for other in (python, tmp_path / "yaml" / "fc", tmp_path / "flag" / "fc"):
        assert module_files(other) == module_files(without)


def test_disabling_apollo_removes_its_platforms(tmp_path):
    reset_plugin_cache()
    flag = ["--plugins.disabled", "apollo"]
    result = runner.invoke(app, ["platforms", "list", "--json", *flag])
    assert result.exit_code == 0 and json.loads(result.stdout) == {"schema_version": 1, "platforms": []}
    shown = runner.invoke(app, ["platforms", "show", "apollo510_evb", *flag])
    assert shown.exit_code == 2 and "apollo (helia-aot-platforms-apollo)" in shown.stderr
    config = ConvertArgs.model_validate({**settings(tmp_path), "plugins": {"disabled": ["apollo"]}})
    with pytest.raises(InvalidConfigError, match="Unknown platform 'apollo510_evb'"):
        AotConverter(config).convert()
    listed = json.loads(runner.invoke(app, ["plugins", "--json", *flag]).stdout)
    assert {row["name"]: row["status"] for row in listed}["apollo"] == "blocked"


def test_core_may_be_named_in_enabled_but_not_disabled(tmp_path):
    reset_plugin_cache()
    context = build_default_registry_context(plugins={"enabled": ["core", "apollo"]})
    assert "hill_climb" in context.memory_planners and "apollo510_evb" in context.platforms
    assert "CONV_2D" not in context.litert_parsers and "ops_builtin" in context.blocked_plugins
    result = runner.invoke(app, ["plugins", "--json", "--plugins.enabled", "[core]"])
    assert result.exit_code == 0
    assert [row["name"] for row in json.loads(result.stdout) if row["status"] == "loaded"] == ["core"]
    with pytest.raises(InvalidConfigError, match="'core' cannot be disabled"):
        build_default_registry_context(plugins={"disabled": ["core"]})


def test_a_blocked_operator_pack_is_named_with_how_to_unblock_it(tmp_path):
    reset_plugin_cache()
    config = ConvertArgs.model_validate({**settings(tmp_path), "plugins": {"disabled": ["ops_builtin"]}})
    with pytest.raises(UnsupportedModelError) as info:
        AotConverter(config).convert()
    text = str(info.value) + str(info.value.details)
    assert "helia-aot-ops-builtin is installed but blocked" in text
    assert "ops_builtin" in text and "plugins.disabled" in text
