"""``helia-aot app`` (issue 34 item 2): a plain-CMake board application that builds and runs.

The app is written for a small corpus model (one int8 convolution) on the Apollo510 EVB (M55) and
the Apollo4 Plus EVB (M4), cross-built with its own CMake project and toolchain file, and run
under QEMU: the golden self-test must say bit-exact and main.c's check line ``outputs check:
pass``, and the cycle table must list every operator of the plan (on the M55 with the cycles
helia-aot models beside the DWT counter's, which QEMU leaves at 0). The refusals (non-empty folder,
--force on a folder the command did not write) and the layout need no toolchain.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from helia_aot.cli.app import app
from helia_aot.testing.board_app import APP_MARKER, LABEL_WIDTH, OUTPUTS_CHECK_LINE, operator_label
from helia_aot.testing.required_tools import require_tools
from typer.testing import CliRunner

MODEL = Path(__file__).resolve().parents[1] / "data" / "models" / "conv2d_3x3_s2_same_int8.tflite"
PLATFORMS = {"m55": "apollo510_evb", "m4": "apollo4p_evb"}

runner = CliRunner()


def _write_app(app_dir: Path, platform: str, *extra: str) -> tuple[int, str]:
    args = ["app", "--model.path", str(MODEL), "--platform", platform, "--app.path", str(app_dir)]
    result = runner.invoke(app, [*args, "--verbose", "0", *extra])
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def m55_app(tmp_path_factory) -> Path:
    app_dir = tmp_path_factory.mktemp("board_app") / "m55_app"
    code, output = _write_app(app_dir, PLATFORMS["m55"])
    assert code == 0, output
    return app_dir


def _operators(app_dir: Path) -> list[str]:
    plan = json.loads(next((app_dir / "module").glob("*/*_plan.json")).read_text(encoding="utf-8"))
    return [operator_label(op["op_type"], op["id"]) for op in plan["operators"]]


def test_the_app_holds_the_module_main_board_runtime_and_cmake_project(m55_app):
    names = {path.relative_to(m55_app).as_posix() for path in m55_app.rglob("*") if path.is_file()}
    for expected in (
        "main.c",
        "app_port.h",
        "CMakeLists.txt",
        "README.md",
        "cmake/arm-none-eabi.cmake",
        "board/startup.S",
        "board/semihost.c",
        "board/m55_an547.ld",
        APP_MARKER,
    ):
        assert expected in names
    module = next((m55_app / "module").iterdir())
    assert (module / "includes-api" / "aot_test_case.h").is_file()  # golden data travels with it
    main = (m55_app / "main.c").read_text(encoding="utf-8")
    assert "0xE0001004u" in main and "0xE000EDFCu" in main  # DWT->CYCCNT, DEMCR
    for operator in _operators(m55_app):
        assert f'"{operator}"' in main
    cmake = (m55_app / "CMakeLists.txt").read_text(encoding="utf-8")
    assert "-mcpu=cortex-m55" in cmake and f"add_subdirectory(module/{module.name})" in cmake


def test_long_operator_labels_are_cut_to_the_table_width():
    long_id = "0:functional_1/activation_1/Relu;functional_1/batch_normalization_1/batchnorm/add_1"
    label = operator_label("DEPTHWISE_CONV_2D", long_id)
    assert len(label) == LABEL_WIDTH and label.endswith("...")
    assert label.startswith("DEPTHWISE_CONV_2D 0:functional_1/")
    assert operator_label("SOFTMAX", "0:Identity") == "SOFTMAX 0:Identity"


def test_the_same_model_gives_the_same_app(m55_app, tmp_path):
    code, output = _write_app(tmp_path / "again", PLATFORMS["m55"])
    assert code == 0, output
    for path in m55_app.rglob("*"):
        if path.is_file() and "build" not in path.relative_to(m55_app).parts:
            assert (tmp_path / "again" / path.relative_to(m55_app)).read_bytes() == path.read_bytes(), path


def test_a_non_empty_folder_is_refused_and_force_spares_a_users_own(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me", encoding="utf-8")
    code, output = _write_app(mine, PLATFORMS["m55"])
    assert code == 2 and "exists and is not empty" in output and "--force" in output
    code, output = _write_app(mine, PLATFORMS["m55"], "--force")
    assert code == 2 and "not an application helia-aot app wrote" in output
    assert (mine / "notes.txt").read_text(encoding="utf-8") == "keep me"


def test_force_replaces_an_app_it_wrote(tmp_path):
    app_dir = tmp_path / "app"
    assert _write_app(app_dir, PLATFORMS["m4"])[0] == 0
    (app_dir / "stale.c").write_text("/* left over */\n", encoding="utf-8")
    code, output = _write_app(app_dir, PLATFORMS["m4"], "--force")
    assert code == 0, output
    assert not (app_dir / "stale.c").exists() and (app_dir / "board" / "m4_an386.ld").is_file()


def test_a_module_type_other_than_cmake_is_refused(tmp_path):
    code, output = _write_app(tmp_path / "app", PLATFORMS["m55"], "--module.type", "zephyr")
    assert code == 2 and "module.type 'zephyr'" in output
    assert not (tmp_path / "app").exists()


def test_app_without_a_folder_is_a_usage_error():
    result = runner.invoke(app, ["app", "--model.path", str(MODEL), "--verbose", "0"])
    assert result.exit_code == 2 and "--app.path" in result.output


def _cmake_build(app_dir: Path) -> Path:
    build = app_dir / "build"
    for command in (
        ["cmake", "-S", str(app_dir), "-B", str(build), "-DCMAKE_TOOLCHAIN_FILE=cmake/arm-none-eabi.cmake"],
        ["cmake", "--build", str(build), "-j", "2"],
    ):
        proc = subprocess.run(command, cwd=app_dir, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, f"{' '.join(command)}\n{proc.stdout}\n{proc.stderr}"
    module = next((app_dir / "module").iterdir()).name
    return build / f"{module}_app.elf"


@pytest.mark.cross
@pytest.mark.parametrize("core", sorted(PLATFORMS))
def test_the_app_cross_builds_with_its_cmake_and_passes_under_qemu(core, tmp_path):
    from helia_aot.testing import cross

    cross.require_toolchain()
    require_tools("cmake")
    app_dir = tmp_path / f"{core}_app"
    modeled = core == "m55"  # the M55 app also carries the modeled cycles; the M4 one the plain table
    code, output = _write_app(app_dir, PLATFORMS[core], *(["--modeled-cycles"] if modeled else []))
    assert code == 0, output
    elf = _cmake_build(app_dir)
    run = cross.run_qemu(elf, core, timeout=300, count=False)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert f"{OUTPUTS_CHECK_LINE}pass" in lines
    assert any(line.endswith(": bit-exact") and "PASS" in line for line in lines), run.stdout
    table = lines[lines.index(next(line for line in lines if line.startswith("cycles per operator"))) + 1 :]
    operators = _operators(app_dir)
    rows = [row.split() for row in table[: len(operators)]]
    columns = 2 if modeled else 1  # DWT cycles, then the modeled ones
    assert [" ".join(row[1:-columns]) for row in rows] == operators
    assert all(row[-columns] == "0" for row in rows)  # QEMU does not count cycles in DWT_CYCCNT
    total = table[len(operators)]
    assert total.startswith("total cycles: 0")
    if modeled:
        per_operator = [int(row[-1]) for row in rows]
        assert all(cycles > 0 for cycles in per_operator)
        modeled_total = int(total.rsplit("modeled: ", 1)[1].rstrip(")"))
        assert sum(per_operator) < modeled_total  # the runtime's cycles are in the total only
