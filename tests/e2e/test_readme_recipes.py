"""The module README's build recipes, followed literally: the commands are parsed out of the
generated README.md and run as written, in a folder holding the module folder and a ``main.c``.

Covered: the plain ``gcc`` command, the self-test command, the ``Makefile`` (host ``app``), the
CMake application (``CMakeLists.txt`` and the two ``cmake`` commands) and the arm-none-eabi static
library recipe (compile only). One small model (an int8 ReLU) is converted once for all of them.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.testing import corpus_golden_to_npz, require_tools

from .corpus import DATA_DIR

MODEL = DATA_DIR / "models" / "relu_int8.tflite"
GOLDEN = DATA_DIR / "golden" / "relu_int8.npz"

APP_MAIN = """#include "aot_test_case.h"
int main(void)
{
    return aot_test_case_init() != 0 || aot_test_case_run() != 0;
}
"""


@pytest.fixture(scope="module")
def module(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("readme")
    config = ConvertArgs.model_validate(
        {
            "model": {"path": str(MODEL)},
            "module": {"path": str(out), "name": "relu"},
            "test": {
                "enabled": True,
                "golden_data": str(corpus_golden_to_npz(GOLDEN, out / "golden.npz")),
                "tolerance": 0.0,
            },
            "verbose": 0,
        }
    )
    return Path(AotConverter(config).convert().output)


def section(module: Path, title: str) -> str:
    """The README text under ``## <title>`` up to the next level-two heading."""
    text = (module / "README.md").read_text()
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    assert match, f"README has no section {title!r}"
    return match.group(1)


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)


def workspace(tmp_path: Path, module: Path, main: str = APP_MAIN) -> Path:
    """A folder holding a copy of the module folder and main.c, as the README's recipes assume."""
    shutil.copytree(module, tmp_path / module.name)
    (tmp_path / "main.c").write_text(main)
    return tmp_path


def run_script(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run a README ``sh`` block exactly as written (stopping at the first failing line)."""
    proc = subprocess.run(
        ["bash", "-e", "-c", script], cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )
    assert proc.returncode == 0, f"{script}\n{proc.stdout}\n{proc.stderr}"
    return proc


def test_plain_gcc_command_builds_an_app_that_runs(tmp_path, module):
    require_tools("gcc")
    text = section(module, "Build with a plain compiler or a Makefile")
    command = blocks(text, "sh")[0]
    assert command.startswith("gcc ") and "-lm" in command and "-Irelu/src/kernels" in command
    work = workspace(tmp_path, module)
    run_script(command, work)
    assert subprocess.run(["./app"], cwd=work, timeout=60, check=False).returncode == 0


def test_self_test_recipe_prints_pass(tmp_path, module):
    require_tools("gcc")
    text = section(module, "Run the self-test")
    main = blocks(text, "c")[0]
    script = blocks(text, "sh")[1]  # the first is the helia-aot test command
    assert "helia-aot test" in blocks(text, "sh")[0]
    work = workspace(tmp_path, module, main)
    proc = run_script(script, work)
    assert "aot_test_case: PASS (3 sample(s), 1 output(s))" in proc.stdout


def test_makefile_recipe_builds_the_app(tmp_path, module):
    require_tools("gcc", "make")
    makefile = blocks(section(module, "Build with a plain compiler or a Makefile"), "make")[0]
    work = workspace(tmp_path, module)
    (work / "Makefile").write_text(makefile)
    run_script("make app", work)
    assert subprocess.run(["./app"], cwd=work, timeout=60, check=False).returncode == 0


def listing(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


def test_makefile_library_builds_outside_the_module_folder(tmp_path, module):
    """The library target compiles objects into <module>-build/, so the module folder stays as
    written and ``convert --force`` may still replace it (it refuses a folder with foreign files)."""
    require_tools("gcc", "make")
    makefile = blocks(section(module, "Build with a plain compiler or a Makefile"), "make")[0]
    work = workspace(tmp_path, module)
    (work / "Makefile").write_text(makefile)
    before = listing(work / module.name)
    run_script("make librelu.a", work)
    assert (work / "librelu.a").is_file() and (work / "relu-build" / "src" / "aot_model.o").is_file()
    assert listing(work / module.name) == before
    again = ConvertArgs.model_validate(
        {"model": {"path": str(MODEL)}, "module": {"path": str(work), "name": "relu"},
         "force": True, "verbose": 0}
    )  # fmt: skip
    assert Path(AotConverter(again).convert().output) == work / module.name


def test_cmake_recipe_builds_the_app(tmp_path, module):
    require_tools("cmake", "gcc")
    text = section(module, "Integration (CMake)")
    project = blocks(text, "cmake")[0]
    assert project.startswith("cmake_minimum_required")
    work = workspace(tmp_path, module)
    (work / "CMakeLists.txt").write_text(project)
    before = listing(work / module.name)
    run_script(blocks(text, "sh")[0], work)
    assert subprocess.run([str(work / "build" / "my_app")], timeout=60, check=False).returncode == 0
    assert listing(work / module.name) == before  # the build tree is outside the module folder


@pytest.mark.cross
def test_arm_library_recipe_compiles_for_the_platforms_core(tmp_path, module):
    text = section(module, "Build with a plain compiler or a Makefile")
    script = blocks(text, "sh")[1]
    assert "-mcpu=cortex-m55 -mfloat-abi=hard" in script
    work = workspace(tmp_path, module)
    run_script(script, work)
    library = work / "relu-build" / "librelu.a"
    listing = subprocess.run(
        ["arm-none-eabi-ar", "t", str(library)], capture_output=True, text=True, check=True
    ).stdout.split()
    assert "aot_model.o" in listing and "aot_test_case.o" in listing
