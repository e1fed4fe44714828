"""``helia-aot test``: converts with the self-test, builds and runs it, prints PASS or the mismatches.

One small model (a 8x8x4 int8 ReLU, three golden samples from the LiteRT reference interpreter) on
the host and on the Cortex-M55 under QEMU; each case converts and builds once (about a second on
the host, a few under QEMU). The altered golden data changes one expected value of one sample, so
the command must print that output's mismatch line and exit 1.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from helia_aot.cli.app import app
from helia_aot.cli.selftest import check_tools
from helia_aot.errors import ToolMissingError
from helia_aot.testing import corpus_golden_to_npz
from typer.testing import CliRunner

from .corpus import DATA_DIR

MODEL = DATA_DIR / "models" / "relu_int8.tflite"
GOLDEN = DATA_DIR / "golden" / "relu_int8.npz"


def golden(tmp_path: Path, *, altered: bool) -> Path:
    path = corpus_golden_to_npz(GOLDEN, tmp_path / "golden.npz")
    if altered:
        with np.load(path) as data:
            arrays = {key: data[key].copy() for key in data.files}
        expected = arrays["output_0"]
        expected[1, 0, 2, 3, 1] = np.int8(-128 if expected[1, 0, 2, 3, 1] > 0 else 127)
        np.savez(path, **arrays)
    return path


def run_test_command(tmp_path: Path, target: str, *, altered: bool, extra: tuple[str, ...] = ()):
    args = [
        "test",
        "--model.path",
        str(MODEL),
        "--test.golden-data",
        str(golden(tmp_path, altered=altered)),
        "--target",
        target,
        "--verbose",
        "0",
        *extra,
    ]
    return CliRunner().invoke(app, args)


@pytest.mark.parametrize("altered", [False, True], ids=["good-golden", "altered-golden"])
def test_host_self_test_passes_on_good_data_and_fails_on_altered_data(tmp_path, monkeypatch, altered):
    monkeypatch.chdir(tmp_path)
    result = run_test_command(tmp_path, "host", altered=altered)
    lines = result.stdout.splitlines()
    if altered:
        assert result.exit_code == 1, result.output
        assert "sample 1 run 0 output 0: 1 of 256 mismatched" in result.stdout
        assert "aot_test_case: FAIL (3 sample(s), 1 output(s))" in lines and lines[-1] == "FAIL"
    else:
        assert result.exit_code == 0, result.output
        assert lines == ["aot_test_case: PASS (3 sample(s), 1 output(s))", "PASS"]
    # The module went to a temporary folder: nothing is left in the working directory.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["golden.npz"]


def test_keep_work_dir_keeps_the_module_and_its_build(tmp_path):
    result = run_test_command(
        tmp_path, "host", altered=False, extra=("--keep-work-dir", "--module.prefix", "kws")
    )
    assert result.exit_code == 0, result.output
    kept = Path(result.stderr.split("Kept the module and its build in", 1)[1].split()[0])
    try:
        assert len(list(kept.glob("module/*/src/kws_test_case.c"))) == 1
        assert (kept / "build" / "module_test").is_file()
    finally:
        shutil.rmtree(kept)


@pytest.mark.cross
@pytest.mark.parametrize("altered", [False, True], ids=["good-golden", "altered-golden"])
def test_m55_self_test_under_qemu_passes_and_fails(tmp_path, altered):
    result = run_test_command(tmp_path, "m55", altered=altered)
    lines = result.stdout.splitlines()
    if altered:
        assert result.exit_code == 1, result.output
        assert "sample 1 run 0 output 0: 1 of 256 mismatched" in result.stdout and lines[-1] == "FAIL"
    else:
        assert result.exit_code == 0, result.output
        assert lines[-2:] == ["aot_test_case: PASS (3 sample(s), 1 output(s))", "PASS"]


def test_a_missing_cross_compiler_is_a_typed_error_naming_the_setup(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(ToolMissingError) as info:
        check_tools("m55")
    assert "arm-none-eabi-gcc" in info.value.message and "qemu-system-arm" in info.value.message
    assert "scripts/setup.sh" in info.value.hint and "gcc-arm-none-eabi" in info.value.hint
    assert info.value.exit_code == 2


def test_missing_tool_and_unknown_target_exit_2(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    result = run_test_command(tmp_path, "m4", altered=False)
    assert result.exit_code == 2 and "needs arm-none-eabi-gcc" in result.stderr
    result = run_test_command(tmp_path, "riscv", altered=False)
    assert result.exit_code == 2 and "is not one of host, m55, m4" in result.stderr
