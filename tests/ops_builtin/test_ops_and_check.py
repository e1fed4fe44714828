"""``helia-aot ops`` and ``helia-aot check``: the operator catalogue from the pack records, and one
model's operators checked without converting (exit 0 when all convert, 1 otherwise)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helia_aot.cli import app
from helia_aot.config import ConvertArgs
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.support import check_model, operator_catalogue
from helia_aot_ops_builtin.plugin import registrations
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "tests" / "data" / "models" / "conv2d_3x3_s1_same_relu_float32.tflite"

runner = CliRunner()


def _custom_op_model(path: Path) -> Path:
    """RELU, a custom operator no pack parses, then TANH (float32)."""
    b = LiteRTModelBuilder()
    x, y, z, w = (b.add_tensor(n, (1, 8), "float32") for n in "xyzw")
    b.add_operator("RELU", [x], [y])
    b.add_custom_operator("MyMagic", [y], [z])
    b.add_operator("TANH", [z], [w])
    b.set_inputs([x])
    b.set_outputs([w])
    return b.save(path)


def _float16_model(path: Path) -> Path:
    """float16 RELU widened by DEQUANTIZE: converts on the Cortex-M55, not on the Cortex-M4."""
    b = LiteRTModelBuilder()
    x, y = (b.add_tensor(n, (1, 8), "float16") for n in "xy")
    z = b.add_tensor("z", (1, 8), "float32")
    b.add_operator("RELU", [x], [y])
    b.add_operator("DEQUANTIZE", [y], [z])
    b.set_inputs([x])
    b.set_outputs([z])
    return b.save(path)


def _int64_relu_model(path: Path) -> Path:
    """RELU on int64, which its SUPPORTED_DTYPES leave out: parses, refused at Resolve."""
    b = LiteRTModelBuilder()
    x, y = (b.add_tensor(n, (1, 4), "int64") for n in "xy")
    b.add_operator("RELU", [x], [y])
    b.set_inputs([x])
    b.set_outputs([y])
    return b.save(path)


def test_catalogue_is_the_pack_records():
    entries = {e.operator: e for e in operator_catalogue()}
    for record in registrations():
        entry = entries[record.key]
        assert entry.litert_keys == record.litert_keys
        assert entry.dtypes == tuple(np.dtype(t).name for t in (record.operator.SUPPORTED_DTYPES or ()))
        assert entry.restrictions == tuple(record.operator.RESTRICTIONS)
        assert (entry.pack, entry.distribution) == ("ops_builtin", "helia-aot-ops-builtin")


def test_ops_prints_one_line_per_operator():
    proc = runner.invoke(app, ["ops"])
    assert proc.exit_code == 0, proc.output
    lines = proc.stdout.strip().splitlines()
    count = len(registrations())
    assert len(lines) == count + 2 and lines[-1].startswith(f"{count} operators")
    conv = next(line for line in lines if line.startswith("CONV_2D "))
    assert "float32, float16, int8, int16" in conv and "(ops_builtin; " in conv
    assert any(line.startswith("ETHOS_U ") and "none: refused at Resolve" in line for line in lines)


def test_ops_json_and_details():
    proc = runner.invoke(app, ["ops", "--json"])
    data = json.loads(proc.stdout)
    assert data["schema_version"] == 1 and len(data["operators"]) == len(registrations())
    conv = next(o for o in data["operators"] if o["operator"] == "CONV_2D")
    assert set(conv) == {
        "operator",
        "litert_keys",
        "dtypes",
        "weight_dtypes",
        "hybrid_weight_dtypes",
        "rewritten_dtypes",
        "restrictions",
        "pack",
        "distribution",
    }
    assert conv["weight_dtypes"] == ["int4"] and conv["rewritten_dtypes"] == []
    assert conv["hybrid_weight_dtypes"] == ["int8", "int4"]
    add = next(o for o in data["operators"] if o["operator"] == "ADD")
    assert add["rewritten_dtypes"] == [["uint8", "UINT8_AS_INT8"]]
    detail = runner.invoke(app, ["ops", "conv_2d"])
    assert detail.exit_code == 0
    for sentence in conv["restrictions"]:
        assert f"    - {sentence}" in detail.stdout
    unknown = runner.invoke(app, ["ops", "NOT_AN_OP"])
    assert unknown.exit_code == 2 and "NOT_AN_OP" in unknown.stderr


def test_check_a_supported_model_exits_0():
    proc = runner.invoke(app, ["check", str(MODEL)])
    assert proc.exit_code == 0, proc.output
    assert proc.stdout.splitlines()[0].split() == ["#0", "CONV_2D", "ok"]
    assert "1 of 1 operators convert for apollo510_evb." in proc.stdout


def test_check_names_an_operator_no_pack_parses(tmp_path):
    model = _custom_op_model(tmp_path / "custom.tflite")
    rows = check_model(ConvertArgs(model={"path": str(model)}))
    assert [(r.index, r.key, r.supported) for r in rows] == [
        (0, "RELU", True),
        (1, "MYMAGIC", False),
        (2, "TANH", True),
    ]
    assert "no parser registered" in rows[1].reasons[0]
    proc = runner.invoke(app, ["check", str(model)])
    assert proc.exit_code == 1
    assert "#1    MYMAGIC  unsupported: no parser registered" in proc.stdout
    assert "2 of 3 operators convert" in proc.stdout


@pytest.mark.parametrize(("platform", "supported"), [("apollo510_evb", True), ("apollo4p_evb", False)])
def test_check_follows_the_platform(tmp_path, platform, supported):
    model = _float16_model(tmp_path / "f16.tflite")
    proc = runner.invoke(app, ["check", str(model), "--platform.name", platform, "--json"])
    assert proc.exit_code == (0 if supported else 1), proc.output
    data = json.loads(proc.stdout)
    assert data["supported"] is supported and data["platform"] == platform
    assert [o["key"] for o in data["operators"]] == ["RELU", "DEQUANTIZE"]
    if not supported:
        assert all("FP16" in o["reasons"][0] for o in data["operators"])


def test_check_names_a_type_resolve_refuses(tmp_path):
    model = _int64_relu_model(tmp_path / "relu64.tflite")
    (row,) = check_model(ConvertArgs(model={"path": str(model)}))
    assert (row.key, row.supported) == ("RELU", False)
    assert "int64" in row.reasons[0] and "supported:" in row.reasons[0]


def test_check_a_missing_file_exits_2(tmp_path):
    proc = runner.invoke(app, ["check", str(tmp_path / "nope.tflite")])
    assert proc.exit_code == 2 and "not found" in proc.stderr


def _two_unsupported_tensors_model(path: Path) -> Path:
    """RELU on a COMPLEX64 tensor, then ADD whose second operand is a STRING constant: two tensor
    types no pack handles, on two operators."""
    from helia_aot.litert.schema_tables import TensorType

    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (1, 4), "float32")
    c = b.add_tensor("c", (1, 4), TensorType.COMPLEX64)
    y = b.add_tensor("y", (1, 4), "float32")
    s = b.add_tensor("s", (1, 4), TensorType.STRING)
    z = b.add_tensor("z", (1, 4), "float32")
    b.add_operator("RELU", [c], [y])
    b.add_operator("ADD", [x, s], [z])
    b.set_inputs([x, c])
    b.set_outputs([y, z])
    return b.save(path)


def test_check_reports_every_unsupported_tensor(tmp_path):
    """Load collects every unsupported tensor before it stops; check puts each on the operators
    using it, and the conversion's error names both too."""
    from helia_aot import AotConverter
    from helia_aot.errors import UnsupportedModelError

    model = _two_unsupported_tensors_model(tmp_path / "two.tflite")
    rows = check_model(ConvertArgs(model={"path": str(model)}))
    assert [(r.index, r.key, r.supported) for r in rows] == [(0, "RELU", False), (1, "ADD", False)]
    assert "tensor 1 ('c'): tensor type COMPLEX64 is not supported" in rows[0].reasons[0]
    assert "tensor 3 ('s'): tensor type STRING is not supported" in rows[1].reasons[0]
    with pytest.raises(UnsupportedModelError) as caught:
        AotConverter(ConvertArgs(model={"path": str(model)}, dry_run=True)).convert()
    text = str(caught.value)
    assert "2 problems stop the conversion" in text
    assert "COMPLEX64 is not supported (used by #0 RELU)" in text
    assert "STRING is not supported (used by #1 ADD)" in text
    assert [d["tensor"] for d in caught.value.details] == [1, 3]
    proc = runner.invoke(app, ["check", str(model)])
    assert proc.exit_code == UnsupportedModelError.exit_code
    assert "0 of 2 operators convert" in proc.stdout
