"""Without the pack, the example fails to convert with an error naming its custom operators.

Both routes are checked: the CLI (exit code 1, an ``Error:`` line and a hint to install a pack, no
traceback) and the Python API (UnsupportedModelError listing each operator).
"""

from __future__ import annotations

import shutil
import subprocess

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import UnsupportedModelError
from helia_aot.plugins import discover_entry_points

from .example_pack import ENTRY_POINT, PACK_SOURCE, user_env_without_pack


@pytest.fixture
def example(tmp_path):
    assert ENTRY_POINT not in {ep.name for ep in discover_entry_points()}, (
        "helia-aot-example-ops must not be installed in the test environment"
    )
    return shutil.copytree(
        PACK_SOURCE / "example", tmp_path / "example", ignore=shutil.ignore_patterns("out")
    )


def test_cli_names_the_custom_operator_and_suggests_a_pack(example, tmp_path):
    proc = subprocess.run(
        ["helia-aot", "convert", "--path", "convert.yaml"],
        cwd=example,  # the file's relative paths resolve from the working directory
        env=user_env_without_pack(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == UnsupportedModelError.exit_code, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert "2 operators cannot be converted" in proc.stderr
    assert "#0 CUSTOM_NOOP: no parser registered" in proc.stderr
    assert "#1 EXAMPLE_GAIN_CLIP: no parser registered" in proc.stderr
    assert "hint: install an operator pack that registers the key CUSTOM_NOOP" in proc.stderr
    assert not (example / "out").exists()


def test_api_lists_every_custom_operator(example):
    # Without operators[] rules the Load stage sees the whole model and lists both nodes.
    config = ConvertArgs.model_validate(
        {"model": {"path": str(example / "gain_clip_int8.tflite")}, "module": {"path": str(example / "out")}}
    )
    with pytest.raises(UnsupportedModelError) as info:
        AotConverter(config).convert()
    assert info.value.message == (
        "2 operators cannot be converted:\n"
        "  #0 CUSTOM_NOOP: no parser registered; install an operator pack that registers the key "
        "CUSTOM_NOOP\n"
        "  #1 EXAMPLE_GAIN_CLIP: no parser registered; install an operator pack that registers the key "
        "EXAMPLE_GAIN_CLIP"
    )
    assert [(d["index"], d["key"]) for d in info.value.details] == [
        (0, "CUSTOM_NOOP"),
        (1, "EXAMPLE_GAIN_CLIP"),
    ]


def test_api_with_the_example_configuration(example, monkeypatch):
    # The configuration's rule for EXAMPLE_GAIN_CLIP must not hide the missing pack.
    monkeypatch.chdir(example)  # the file's relative paths resolve from the working directory
    with pytest.raises(UnsupportedModelError) as info:
        AotConverter(ConvertArgs.from_yaml(example / "convert.yaml")).convert()
    assert "#1 EXAMPLE_GAIN_CLIP: no parser registered" in info.value.message
    assert "install an operator pack that registers the key EXAMPLE_GAIN_CLIP" in info.value.hint
