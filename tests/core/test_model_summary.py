"""``model.description`` and ``model.version`` reach the module's README ("Model summary") and
the comment at the top of ``<prefix>_model.h``; without them the file's own description and LiteRT
schema version show. Both are user or model text, so they are sanitized like every such string."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from helia_aot import AotConverter, ConvertArgs

DATA = Path(__file__).resolve().parents[1] / "data"
MODEL = DATA / "models" / "mlperf_kws_dscnn_int8.tflite"


def convert(out: Path, **model: str) -> Path:
    config = ConvertArgs.model_validate(
        {
            "model": {"path": str(MODEL), "name": "kws", **model},
            "module": {"path": str(out), "name": "kws", "prefix": "kws"},
            "platform": {"name": "apollo510_evb"},
        }
    )
    return AotConverter(config).convert().output


def summary(module: Path) -> dict[str, str]:
    text = (module / "README.md").read_text()
    section = text.split("## Model summary", 1)[1].split("\n## ", 1)[0]
    return dict(re.findall(r"^- \*\*(\w+)\*\*: `([^`\n]*)`$", section, flags=re.M))


def test_configured_description_and_version_show(tmp_path):
    module = convert(tmp_path, description="Keyword spotting, 12 classes", version="2.4.1")
    assert summary(module) == {
        "Name": "kws",
        "Version": "2.4.1",
        "Subgraph": "0",
        "Inputs": "1",
        "Outputs": "1",
        "Tensors": summary(module)["Tensors"],
        "Operators": summary(module)["Operators"],
        "Description": "Keyword spotting, 12 classes",
    }
    assert int(summary(module)["Operators"]) > 0 and int(summary(module)["Tensors"]) > 0
    header = (module / "includes-api" / "kws_model.h").read_text()
    assert "version 2.4.1" in header.split("*/", 1)[0]
    assert "Description: Keyword spotting, 12 classes" in header.split("*/", 1)[0]


def test_without_them_the_files_own_show(tmp_path):
    rows = summary(convert(tmp_path))
    # The file's own description, and the LiteRT schema version every current model records.
    assert rows["Version"] == "3" and rows["Description"] == "MLIR Converted."


@pytest.mark.parametrize(
    "hostile",
    ["*/ int x; /*", "line\nbreak ??= trigraph \\ splice", "tick ` out `of` span", "\u00e9t\u00e9 // c++"],
)
def test_hostile_text_is_sanitized(tmp_path, hostile):
    module = convert(tmp_path, description=hostile, version=hostile)
    header = (module / "includes-api" / "kws_model.h").read_text()
    opening = header.split("*/", 1)[0]
    # The description cannot end the comment early, splice lines or form trigraphs ...
    assert "Description:" in opening and "/*" not in opening[2:] and "//" not in opening
    assert "??" not in opening and "\\" not in opening and not re.search(r"[^\x20-\x7e\n]", opening)
    # ... and in the README it stays inside its own one-line code span.
    rows = summary(module)
    assert rows["Description"] == rows["Version"] and "`" not in rows["Description"]
    # The header still compiles cleanly.
    subprocess.run(
        [
            "gcc",
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-fsyntax-only",
            "-I",
            "includes-api",
            "-x",
            "c",
            "-",
        ],
        input='#include "kws_model.h"\n',
        text=True,
        cwd=module,
        check=True,
    )
