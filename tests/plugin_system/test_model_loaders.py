"""Model loaders are a registry: a plugin's front end is chosen from the file's bytes (or
``model.format``) exactly like the core's LiteRT reader, ``helia-aot plugins`` lists them, a
blocked loader is never imported, and a format nobody reads is a typed error naming it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.cli import app
from helia_aot.converters.litert.format import LITERT_LOADER
from helia_aot.converters.loaders import HEAD_BYTES, ModelLoader, choose_loader
from helia_aot.errors import ModelLoadError, PluginError, UnknownModelFormatError
from helia_aot.plugins import AUTOLOAD_ENV, reset_plugin_cache
from helia_aot.registry import Registry, build_default_registry_context
from helia_aot.support import check_model
from typer.testing import CliRunner

from .fakedist import forget_modules, make_distribution

MODEL = Path(__file__).resolve().parents[1] / "data" / "models" / "fc_64x32_relu_int8.tflite"
runner = CliRunner()

# A front end for "acme" files: the magic line, then the path of a LiteRT model it stands for
# (so the loader's reader is real code run through the registry, not a stub AIR model).
ACME_PLUGIN = """
from helia_aot.converters.loaders import ModelLoader
from helia_aot.plugins import hookimpl


def claims(head):
    return head.startswith(b"ACME1\\n")


@hookimpl
def helia_aot_model_loaders():
    return [ModelLoader("acme", claims, "acme_reader:AcmeReader", "ACME text", (".acme",))]
"""

ACME_READER = """
from pathlib import Path

from helia_aot.converters.loaders import ModelReader
from helia_aot.pipeline.litert_reader import LiteRTReader

LOADED = []


class AcmeReader(ModelReader):
    def _target(self, path):
        return Path(Path(path).read_text().splitlines()[1])

    def load(self, path, config, context):
        LOADED.append(Path(path).name)
        model = LiteRTReader().load(self._target(path), config, context)
        model.metadata["source_format"] = "acme"
        return model

    def check(self, path, config, context):
        return LiteRTReader().check(self._target(path), config, context)
"""


@pytest.fixture
def site(tmp_path, monkeypatch):
    path = tmp_path / "site"
    path.mkdir()
    monkeypatch.syspath_prepend(str(path))
    monkeypatch.delenv(AUTOLOAD_ENV, raising=False)
    reset_plugin_cache()
    yield path
    forget_modules("acme_front", "acme_reader")
    reset_plugin_cache()


@pytest.fixture
def acme(site, tmp_path) -> Path:
    """The acme front end installed, and an .acme file standing for the fc model."""
    make_distribution(site, "acme-front", "1.0.0", "acme_front", ACME_PLUGIN)
    (site / "acme_reader.py").write_text(ACME_READER)
    model = tmp_path / "fc.acme"
    model.write_text(f"ACME1\n{MODEL}\n")
    return model


def _config(model: Path, out: Path, **model_fields) -> ConvertArgs:
    return ConvertArgs.model_validate(
        {"model": {"path": str(model), **model_fields}, "module": {"path": str(out), "name": "fc"}}
    )


def test_a_plugin_loader_is_chosen_by_the_file_bytes_and_listed(acme, tmp_path):
    result = AotConverter(_config(acme, tmp_path / "out")).convert()
    assert sys.modules["acme_reader"].LOADED == ["fc.acme"]  # imported when an acme file loaded
    assert result.output.is_dir()
    assert [row.supported for row in check_model(_config(acme, tmp_path / "chk"))] == [True]
    listed = runner.invoke(app, ["plugins", "--json"])
    assert listed.exit_code == 0, listed.output
    rows = {row["name"]: row for row in json.loads(listed.stdout)}
    assert rows["acme_front"]["registered"] == {"model_loaders": ["acme"]}
    assert rows["core"]["registered"]["model_loaders"] == ["litert"]


def test_the_litert_loader_is_a_registered_loader_like_any_other(acme, tmp_path):
    context = build_default_registry_context()
    assert context.model_loaders.get("litert") is LITERT_LOADER
    assert (context.model_loaders.provider("litert") or "").startswith("plugin 'core' (helia-aot-core ")
    assert choose_loader(MODEL, None, context.model_loaders).format == "litert"
    assert choose_loader(acme, None, context.model_loaders).format == "acme"


def test_a_blocked_loader_is_never_imported(acme, tmp_path):
    blocked = {"disabled": ["acme_front"]}
    context = build_default_registry_context(plugins=blocked)
    assert "acme" not in context.model_loaders
    config = _config(acme, tmp_path / "out").model_copy(update={"plugins": _plugins(blocked)})
    with pytest.raises(UnknownModelFormatError) as error:
        AotConverter(config).convert()
    assert "installed but blocked plugins: acme_front" in error.value.message
    assert "acme" in error.value.message and "litert" in error.value.message
    # The LiteRT model still converts, and neither of the front end's modules was imported.
    AotConverter(_config(MODEL, tmp_path / "tfl").model_copy(update={"plugins": _plugins(blocked)})).convert()
    assert "acme_front" not in sys.modules and "acme_reader" not in sys.modules
    listed = runner.invoke(app, ["plugins", "--json", "--plugins.disabled", "acme_front"])
    rows = {row["name"]: row for row in json.loads(listed.stdout)}
    assert rows["acme_front"]["status"] == "blocked" and rows["acme_front"]["registered"] == {}


def _plugins(selection: dict) -> object:
    return ConvertArgs.model_validate({"plugins": selection}).plugins


def test_an_unknown_format_names_the_format_and_the_installed_loaders(site, tmp_path):
    model = tmp_path / "net.caffemodel"
    model.write_bytes(b"\x0a\x05hello" + bytes(range(40)))
    with pytest.raises(UnknownModelFormatError) as error:
        AotConverter(_config(model, tmp_path / "out")).convert()
    assert (
        "caffemodel" in error.value.message and "litert (LiteRT flatbuffer, .tflite)" in error.value.message
    )
    assert error.value.exit_code == 2 and isinstance(error.value, ModelLoadError)
    result = runner.invoke(
        app,
        [
            "convert",
            "--model.path",
            str(MODEL),
            "--module.path",
            str(tmp_path / "o"),
            "--model.format",
            "caffe",
        ],
    )
    assert result.exit_code == 2
    assert "model.format 'caffe' has no loader" in " ".join(result.output.split())


def test_model_format_overrides_detection(acme, tmp_path):
    # Named explicitly, the LiteRT loader reads the .acme file as LiteRT, and says it is not one.
    with pytest.raises(ModelLoadError) as error:
        AotConverter(_config(acme, tmp_path / "out", format="litert")).convert()
    assert not isinstance(error.value, UnknownModelFormatError)
    assert AotConverter(_config(MODEL, tmp_path / "tfl", format="litert")).convert().output.is_dir()


def test_a_loader_record_is_checked_where_it_is_registered():
    registry: Registry[ModelLoader] = build_default_registry_context(freeze=False).model_loaders
    with pytest.raises(PluginError, match="not a ModelLoader"):
        registry.register("x", object())  # type: ignore[arg-type]
    with pytest.raises(PluginError, match="under another format"):
        registry.register("x", LITERT_LOADER)
    broken = ModelLoader("broken", lambda head: False, "no_such_module_anywhere:Reader")
    with pytest.raises(PluginError, match="cannot be imported"):
        broken.open()
    assert HEAD_BYTES >= 8  # the flatbuffer identifier sits at bytes 4..8
