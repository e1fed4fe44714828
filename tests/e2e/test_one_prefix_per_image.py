"""One prefix per image: a build holding two modules with the same ``module.prefix`` stops at configure.

Every C symbol of a module starts with its prefix, so two modules converted with the default prefix
collide: the linker keeps one model's functions and the other model silently never runs. The
generated CMake (and NSX) ``CMakeLists.txt`` and the Zephyr one record each prefix in a global
property and stop the configure step naming the prefix when it is taken. Configuring only (no
compile) keeps these tests to about a second each.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from helia_aot import AotConverter, ConvertArgs

from .corpus import DATA_DIR
from .test_module_types import ZEPHYR_SHIM

MODEL = DATA_DIR / "models" / "relu_int8.tflite"


@pytest.fixture(scope="module")
def modules(tmp_path_factory) -> dict[str, Path]:
    """Five modules of one model: name -> folder (prefix ``aot`` unless the name says ``kws``)."""
    out = tmp_path_factory.mktemp("modules")
    folders = {}
    for name, module_type, prefix in (
        ("first", "cmake", "aot"),
        ("second", "cmake", "aot"),
        ("third", "cmake", "kws"),
        ("zfirst", "zephyr", "aot"),
        ("zsecond", "zephyr", "aot"),
    ):
        config = ConvertArgs.model_validate(
            {
                "model": {"path": str(MODEL)},
                "module": {"path": str(out), "name": name, "type": module_type, "prefix": prefix},
                "verbose": 0,
            }
        )
        folders[name] = AotConverter(config).convert().output
    return folders


def configure(tmp_path: Path, body: str) -> subprocess.CompletedProcess[str]:
    project = tmp_path / "app"
    project.mkdir()
    (project / "main.c").write_text("int main(void) { return 0; }\n")
    (project / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.13)\nproject(app C)\n" + body)
    return subprocess.run(
        ["cmake", "-S", str(project), "-B", str(tmp_path / "build")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_two_cmake_modules_with_one_prefix_stop_the_configure_step(tmp_path, modules):
    proc = configure(
        tmp_path,
        f"add_subdirectory({modules['first']} first)\nadd_subdirectory({modules['second']} second)\n",
    )
    assert proc.returncode != 0
    message = " ".join(proc.stderr.split())
    assert "modules 'first' and 'second' both use the C prefix 'aot'" in message
    assert "another --module.prefix" in message


def test_cmake_modules_with_different_prefixes_configure(tmp_path, modules):
    proc = configure(
        tmp_path,
        f"add_subdirectory({modules['first']} first)\nadd_subdirectory({modules['third']} third)\n"
        "add_executable(app main.c)\ntarget_link_libraries(app PRIVATE first third)\n",
    )
    assert proc.returncode == 0, proc.stderr


def test_two_zephyr_modules_with_one_prefix_stop_the_configure_step(tmp_path, modules):
    proc = configure(
        tmp_path,
        ZEPHYR_SHIM
        + "set(CONFIG_ZFIRST y)\nset(CONFIG_ZSECOND y)\n"
        + f"add_subdirectory({modules['zfirst']}/zephyr zfirst)\n"
        + f"add_subdirectory({modules['zsecond']}/zephyr zsecond)\n",
    )
    assert proc.returncode != 0
    assert "modules 'zfirst' and 'zsecond' both use the C prefix 'aot'" in " ".join(proc.stderr.split())


def test_a_zephyr_module_alone_configures(tmp_path, modules):
    proc = configure(
        tmp_path,
        ZEPHYR_SHIM + "set(CONFIG_ZFIRST y)\n" + f"add_subdirectory({modules['zfirst']}/zephyr zfirst)\n",
    )
    assert proc.returncode == 0, proc.stderr
