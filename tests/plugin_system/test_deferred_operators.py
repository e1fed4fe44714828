"""register_operator_modules: operator modules imported on first lookup, same registries as eager.

The built-in pack registers its 41 operator modules this way so a conversion imports only the
modules its model uses (start-up, issue 17). What must not change is what a conversion sees: keys,
their order, providers, values and errors. The index that makes it possible is a cache keyed by the
modules' contents, so an edit is never served a stale one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helia_aot.errors import DuplicateRegistrationError, PluginError
from helia_aot.pack import register_operator_modules
from helia_aot.pack.deferred import INDEX_ENV, index_dir
from helia_aot.registry import Registry, RegistryContext
from helia_aot.registry.registry import DeferredEntry

REGISTRY_NAMES = ("litert_parsers", "air_options", "aot_operator_classes")


class Fills(DeferredEntry):
    """A deferred entry that fills ``values`` into ``registry`` and counts its loads."""

    def __init__(self, registry: Registry, values: dict[str, object]) -> None:
        self.registry, self.values, self.loads = registry, values, 0

    def load(self) -> None:
        self.loads += 1
        for key, value in self.values.items():
            self.registry.fill(key, self, value)


def test_a_deferred_key_keeps_its_place_and_provider_and_loads_once():
    r = Registry("things")
    entry = Fills(r, {"B": 2, "C": 3})
    r.register("A", 1)
    r.active_provider = "plugin 'p'"
    r.defer("B", entry)
    r.defer("C", entry)
    r.active_provider = None
    r.freeze()
    assert r.keys() == ["A", "B", "C"] and "B" in r and entry.loads == 0
    assert r.provider("B") == "plugin 'p'"
    assert r.get("B") == 2 and entry.loads == 1
    assert r.items() == [("A", 1), ("B", 2), ("C", 3)] and entry.loads == 1
    other = Registry("x")
    other.register("B", 0)
    with pytest.raises(DuplicateRegistrationError):
        other.defer("B", entry)


def test_a_replaced_deferred_key_keeps_the_replacement_and_a_missing_fill_is_a_plugin_error():
    r = Registry("things")
    entry = Fills(r, {"A": "loaded", "B": "loaded"})
    r.defer("A", entry)
    r.defer("B", entry)
    r.register("A", "customized", overwrite=True)
    assert r.select("b", setting="x") == ("B", "loaded")
    assert r.get("A") == "customized"
    empty = Registry("things")
    empty.defer("Z", Fills(empty, {}))
    with pytest.raises(PluginError, match="did not provide"):
        empty.get("Z")
    with pytest.raises(TypeError):
        empty.defer("Y", object())  # type: ignore[arg-type]


MODULE = """
from helia_aot_ops_builtin.{source} import REGISTRATIONS as _ALL
REGISTRATIONS = [r for r in _ALL if r.key in {keys!r}]
"""


def make_pack(folder: Path, name: str) -> None:
    """A package of two operator modules re-registering built-in records (made-up modules, real
    records)."""
    package = folder / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a_pool.py").write_text(
        MODULE.format(source="pooling.pool", keys=("AVERAGE_POOL_2D", "MAX_POOL_2D"))
    )
    (package / "b_softmax.py").write_text(MODULE.format(source="activation.softmax", keys=("SOFTMAX",)))


def registries(context: RegistryContext) -> dict[str, list[str]]:
    return {name: getattr(context, name).keys() for name in REGISTRY_NAMES}


def register(package_name: str, provider: str = "plugin 'acme'") -> RegistryContext:
    import importlib

    context = RegistryContext()
    with context.provided_by(provider):
        register_operator_modules(context, importlib.import_module(package_name))
    context.freeze()
    return context


def forget(package_name: str) -> None:
    for module in [m for m in sys.modules if m == package_name or m.startswith(package_name + ".")]:
        del sys.modules[module]


def test_second_registration_defers_imports_and_matches_the_first(tmp_path, monkeypatch):
    name = "deferred_pack_one"
    make_pack(tmp_path, name)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv(INDEX_ENV, str(tmp_path / "index"))
    try:
        eager = register(name)
        assert f"{name}.b_softmax" in sys.modules and len(list((tmp_path / "index").glob("*.json"))) == 1
        forget(name)
        lazy = register(name)
        assert f"{name}.a_pool" not in sys.modules and f"{name}.b_softmax" not in sys.modules
        assert registries(lazy) == registries(eager)
        assert lazy.aot_operator_classes.provider("SOFTMAX") == "plugin 'acme'"
        softmax = lazy.aot_operator_classes.get("SOFTMAX")
        assert softmax.__name__ == eager.aot_operator_classes.get("SOFTMAX").__name__
        assert f"{name}.b_softmax" in sys.modules and f"{name}.a_pool" not in sys.modules
        assert [k for k, _ in lazy.air_options.items()] == eager.air_options.keys()
    finally:
        forget(name)


def test_an_edited_module_gets_a_new_index_and_a_forged_index_is_refused(tmp_path, monkeypatch):
    name = "deferred_pack_two"
    make_pack(tmp_path, name)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv(INDEX_ENV, str(tmp_path / "index"))
    try:
        register(name)
        (written,) = (tmp_path / "index").glob("*.json")
        module = tmp_path / name / "a_pool.py"
        module.write_text(MODULE.format(source="pooling.pool", keys=("MAX_POOL_2D",)))
        forget(name)
        edited = register(name)  # a new digest: imported and registered at once, indexed again
        assert edited.aot_operator_classes.keys() == ["MAX_POOL_2D", "SOFTMAX"]
        assert len(list((tmp_path / "index").glob("*.json"))) == 2
        (fresh,) = set((tmp_path / "index").glob("*.json")) - {written}
        data = json.loads(fresh.read_text())
        data["modules"][f"{name}.a_pool"][0][0] = "AVERAGE_POOL_2D"  # an index that lies about the module
        fresh.write_text(json.dumps(data))
        forget(name)
        forged = register(name)
        with pytest.raises(PluginError, match="does not match its records"):
            forged.aot_operator_classes.get("AVERAGE_POOL_2D")
    finally:
        forget(name)


def test_index_off_imports_every_module(tmp_path, monkeypatch):
    monkeypatch.setenv(INDEX_ENV, "off")
    assert index_dir() is None
    name = "deferred_pack_three"
    make_pack(tmp_path, name)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        register(name)
        register(name)
        assert f"{name}.a_pool" in sys.modules and f"{name}.b_softmax" in sys.modules
    finally:
        forget(name)


BUILD = """
import json, sys
from helia_aot.registry import build_default_registry_context
context = build_default_registry_context()
loaded = sorted(m for m, v in list(sys.modules.items())
                if m.startswith("helia_aot_ops_builtin.") and hasattr(v, "REGISTRATIONS"))
keys = {name: getattr(context, name).keys() for name in %r}
providers = sorted({context.aot_operator_classes.provider(k) or "" for k in keys["aot_operator_classes"]})
print(json.dumps([loaded, keys, providers]))
"""


def test_builtin_pack_registers_the_same_keys_lazily(tmp_path):
    """In fresh processes: the first build indexes the pack, the second imports no operator module
    (transforms import the ones they rewrite) and lists the same keys from the same plugin."""
    env = {**os.environ, INDEX_ENV: str(tmp_path / "index")}
    runs = []
    for _ in range(2):
        proc = subprocess.run(
            [sys.executable, "-c", BUILD % (REGISTRY_NAMES,)],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    (eager_loaded, eager_keys, eager_providers), (lazy_loaded, lazy_keys, lazy_providers) = runs
    assert lazy_keys == eager_keys and lazy_providers == eager_providers
    assert len(eager_loaded) > 30
    assert len(lazy_loaded) <= 5, lazy_loaded
    assert (
        "helia_aot_ops_builtin.recurrent.lstm" in eager_loaded
        and "helia_aot_ops_builtin.recurrent.lstm" not in lazy_loaded
    )


def test_the_docs_name_the_function_and_the_setting():
    docs = Path(__file__).resolve().parents[2] / "docs"
    assert "register_operator_modules" in (docs / "plugin-author-guide.md").read_text()
    assert INDEX_ENV in (docs / "architecture.md").read_text()
