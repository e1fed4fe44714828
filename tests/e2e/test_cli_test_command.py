"""``helia-aot test``: converts with the self-test, builds and runs it, prints each output's verdict.

One small model (a 8x8x4 int8 ReLU, three golden samples from the LiteRT reference interpreter) on
the host and on the Cortex-M55 under QEMU; each case converts and builds once (about a second on
the host, a few under QEMU). The altered golden data changes one expected value of one sample far
(a mismatch at any tolerance: exit 1) or by one step (within the default tolerance 1: exit 0, but
exit 1 with ``--exact`` or ``--test.tolerance 0``).
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


def golden(tmp_path: Path, *, altered: bool, step: bool = False) -> Path:
    path = corpus_golden_to_npz(GOLDEN, tmp_path / "golden.npz")
    if altered:
        with np.load(path) as data:
            arrays = {key: data[key].copy() for key in data.files}
        expected = arrays["output_0"]
        value = expected[1, 0, 2, 3, 1]
        if step:
            expected[1, 0, 2, 3, 1] = value + 1 if value < 127 else value - 1
        else:
            expected[1, 0, 2, 3, 1] = np.int8(-128 if value > 0 else 127)
        np.savez(path, **arrays)
    return path


def run_test_command(
    tmp_path: Path, target: str, *, altered: bool, step: bool = False, extra: tuple[str, ...] = ()
):
    args = [
        "test",
        "--model.path",
        str(MODEL),
        "--test.golden-data",
        str(golden(tmp_path, altered=altered, step=step)),
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
        assert "aot_test_case: FAIL (3 sample(s), 1 output(s)): mismatch" in lines
        assert lines[-1] == "FAIL: mismatch"
        assert row(result.stdout) == ["0", "int8", "768", "1", "208", "mismatch", "|diff| <= 1; 1 beyond"]
    else:
        assert result.exit_code == 0, result.output
        assert lines[0] == "aot_test_case: PASS (3 sample(s), 1 output(s)): bit-exact"
        assert lines[-1] == "PASS: bit-exact"
        assert row(result.stdout) == ["0", "int8", "768", "0", "0", "bit-exact"]
    # The module went to a temporary folder: nothing is left in the working directory.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["golden.npz"]


def row(stdout: str) -> list[str]:
    """The cells of output 0's row in the verdict table."""
    (line,) = [line for line in stdout.splitlines() if line.lstrip().startswith("0 ")]
    return [cell.strip() for cell in line.split("\u2502") if cell.strip()]


@pytest.mark.parametrize(
    ("extra", "exit_code", "last"),
    [
        ((), 0, "PASS: within tolerance"),
        (("--exact",), 1, "FAIL: within tolerance, not bit-exact (--exact)"),
        (("--test.tolerance", "0"), 1, "FAIL: mismatch"),
    ],
    ids=["default-tolerance", "exact", "tolerance-0"],
)
def test_one_step_off_is_within_the_default_tolerance_and_fails_when_exact(tmp_path, extra, exit_code, last):
    result = run_test_command(tmp_path, "host", altered=True, step=True, extra=extra)
    lines = result.stdout.splitlines()
    assert result.exit_code == exit_code, result.output
    assert lines[-1] == last
    verdict = "mismatch" if "--test.tolerance" in extra else "within tolerance"
    bound = "|diff| <= 0; 1 beyond" if "--test.tolerance" in extra else "|diff| <= 1"
    assert row(result.stdout) == ["0", "int8", "768", "1", "1", verdict, bound]


def test_exact_passes_a_bit_exact_run(tmp_path):
    result = run_test_command(tmp_path, "host", altered=False, extra=("--exact",))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == "PASS: bit-exact"


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
        assert (
            "sample 1 run 0 output 0: 1 of 256 mismatched" in result.stdout and lines[-1] == "FAIL: mismatch"
        )
    else:
        assert result.exit_code == 0, result.output
        assert "aot_test_case: PASS (3 sample(s), 1 output(s)): bit-exact" in lines
        assert lines[-1] == "PASS: bit-exact"


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


def test_a_target_core_other_than_the_platforms_is_refused(tmp_path):
    """--target m4 on the default platform (apollo510_evb, a Cortex-M55) would test a module the
    platform never receives: a configuration error (exit 2) naming both cores, before any build."""
    from helia_aot.testing import require_toolchain

    require_toolchain()
    result = run_test_command(tmp_path, "m4", altered=False)
    assert result.exit_code == 2, result.output
    assert "--target m4 runs a cortex-m4, but platform apollo510_evb has a cortex-m55" in result.stderr
    assert "use --target m55" in result.stderr and "Traceback" not in result.stderr
