"""An application written for the product's module C API 1.1 builds and runs against ours unchanged.

``capi_apps/product_app.c`` is hand-written against the API as the product documents it (prefix
``app``). It is built with ``-Wall -Wextra -Werror`` against a module with internal arenas and one
with external arenas whose cold constant region it binds to the bytes of the ``__blob.bin``
sidecar, on the host under ASan/UBSan and on the Cortex-M55 under QEMU. The self-test's
``test.num_iterations`` / ``test.state_feedback`` and the build files an application written for
the product's module uses are checked here as well.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import InvalidConfigError
from helia_aot.testing import build_module, parse_self_test
from helia_aot.testing.cross import cross_build_module, run_qemu, toolchain_problem

MODELS = Path(__file__).resolve().parents[1] / "data" / "models"
APP = Path(__file__).resolve().parent / "capi_apps" / "product_app.c"


def convert(tmp_path: Path, model: str, **sections) -> Path:
    config = {
        "model": {"path": str(MODELS / model)},
        "module": {"path": str(tmp_path / "out"), "name": "app_mod", "prefix": "app"},
        "test": {"enabled": True, "tolerance": 0.0},  # the module must match the reference bit for bit
        **sections,
    }
    return AotConverter(ConvertArgs.model_validate(config)).convert().output


def app_source(module: Path, build: Path, *, external: bool) -> str:
    """The application with the facts it checks: operator and init counts, and with external arenas
    the cold region's sidecar bytes as the application would link them."""
    model_c = (module / "src" / "app_model.c").read_text()
    schedule = model_c.split("app_schedule[", 1)[1].split("};", 1)[0]
    operators = schedule.count("_run}")
    inits = schedule.count("_init, ")
    head = f"#define APP_EXPECTED_OPERATORS {operators}\n#define APP_EXPECTED_INITS {inits}\n"
    if external:
        (sidecar,) = sorted(module.glob("app_arena_const_*__blob.bin"))
        region = sidecar.name.removesuffix("__blob.bin")
        data = sidecar.read_bytes()
        build.mkdir(parents=True, exist_ok=True)
        (build / "app_cold_blob.h").write_text(
            f"#define app_cold_region {region}\n"
            f"static const uint8_t app_cold_bytes[{len(data)}] __attribute__((aligned(16))) = "
            f"{{{', '.join(map(str, data))}}};\n"
        )
        head += "#define APP_EXTERNAL_ARENAS 1\n"
    return head + APP.read_text()


def run_host(module: Path, build: Path, source: str) -> subprocess.CompletedProcess[str]:
    exe = build_module(module, build, prefix="app", main_source=source, extra_cflags=("-I", str(build)))
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0", UBSAN_OPTIONS="halt_on_error=1")
    return subprocess.run([str(exe)], capture_output=True, text=True, timeout=120, env=env)


@pytest.mark.parametrize("external", [False, True], ids=["internal", "external"])
def test_product_application_runs_on_host(tmp_path, external):
    module = convert(tmp_path, "fc_64x32_relu_int8.tflite", memory={"allocate_arenas": not external})
    if external:
        # The cold constants ship as the sidecar, not as C: the application binds them.
        assert not list((module / "src").glob("app_constants_*.c"))
    proc = run_host(module, tmp_path / "build", app_source(module, tmp_path / "build", external=external))
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    assert "APP PASS: 0 failed" in proc.stdout and "app_test_case: PASS" in proc.stdout


@pytest.mark.skipif(toolchain_problem() is not None, reason=str(toolchain_problem()))
@pytest.mark.parametrize("external", [False, True], ids=["internal", "external"])
def test_product_application_runs_on_m55(tmp_path, external):
    module = convert(tmp_path, "fc_64x32_relu_int8.tflite", memory={"allocate_arenas": not external})
    build = tmp_path / "build"
    source = app_source(module, build, external=external)
    elf = cross_build_module(
        module,
        build,
        "m55",
        prefix="app",
        main_source=source,
        extra_cflags=("-Wall", "-Wextra", "-Werror", f"-I{build}"),
    )
    run = run_qemu(elf, "m55", count=False)
    assert run.returncode == 0, run.stdout + run.stderr[-2000:]
    assert "APP PASS: 0 failed" in run.stdout and "app_test_case: PASS" in run.stdout


def test_self_test_iterates_with_state_feedback(tmp_path):
    """num_iterations runs per sample with output 0 copied into input 0 between runs; the expected
    outputs are the reference interpreter's after the same iterations, so a module that skipped the
    copies (or the iterations) would fail its own test."""
    module = convert(
        tmp_path,
        "leaky_relu_int8.tflite",
        test={"enabled": True, "num_iterations": 3, "state_feedback": [[0, 0]], "tolerance": 0.0},
    )
    test_c = (module / "src" / "app_test_case.c").read_text()
    assert "#define APP_TEST_ITERATIONS 3" in test_c and "{0, 0}" in test_c
    main = (
        '#include "app_test_case.h"\nint main(void) { return app_test_case_init() || app_test_case_run(); }\n'
    )
    exe = build_module(module, tmp_path / "build", prefix="app", main_source=main)
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "app_test_case: PASS" in proc.stdout, proc.stdout + proc.stderr[-2000:]
    assert parse_self_test(proc.stdout).bit_exact, proc.stdout


def test_state_feedback_out_of_range_is_a_config_error(tmp_path):
    with pytest.raises(InvalidConfigError, match="names a tensor the model does not have"):
        convert(tmp_path, "leaky_relu_int8.tflite", test={"enabled": True, "state_feedback": [[1, 0]]})


APP_CMAKE = """cmake_minimum_required(VERSION 3.15)
project(app C)
add_subdirectory(modules/app_mod)
add_executable(app main.c)
target_link_libraries(app PRIVATE app_mod)
"""


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
def test_application_cmakelists_for_the_product_target_builds(tmp_path):
    """The product's README: copy the module to modules/<name>, add_subdirectory it and link the
    target named module.name."""
    module = convert(tmp_path, "fc_64x32_relu_int8.tflite")
    project = tmp_path / "project"
    shutil.copytree(module, project / "modules" / "app_mod")
    (project / "CMakeLists.txt").write_text(APP_CMAKE)
    (project / "main.c").write_text(
        '#include "app_model.h"\n#include "app_test_case.h"\n'
        "static app_model_context_t ctx = {0};\n"
        "int main(void) { if (app_model_init(&ctx) != 0) return 1; if (app_model_run(&ctx) != 0) return 1;\n"
        "  return app_test_case_init() || app_test_case_run(); }\n"
    )
    build = tmp_path / "cmake-build"
    for cmd in (["cmake", "-S", str(project), "-B", str(build)], ["cmake", "--build", str(build)]):
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert subprocess.run([str(build / "app")], timeout=60).returncode == 0


def test_zephyr_and_nsx_names_are_the_products(tmp_path):
    zephyr = convert(
        tmp_path / "z",
        "fc_64x32_relu_int8.tflite",
        module={"path": str(tmp_path / "z"), "name": "zep_mod", "prefix": "app", "type": "zephyr"},
    )
    assert "name: zep_mod" in (zephyr / "zephyr" / "module.yml").read_text()
    kconfig = (zephyr / "zephyr" / "Kconfig").read_text()
    assert re.search(r"^config ZEPHYR_ZEP_MOD_MODULE$", kconfig, re.MULTILINE)
    assert re.search(r"^menuconfig ZEP_MOD$", kconfig, re.MULTILINE)
    assert "if(CONFIG_ZEP_MOD OR" in (zephyr / "zephyr" / "CMakeLists.txt").read_text()
    nsx = convert(
        tmp_path / "n",
        "fc_64x32_relu_int8.tflite",
        module={"path": str(tmp_path / "n"), "name": "nsx_mod", "prefix": "app", "type": "nsx"},
    )
    meta = yaml.safe_load((nsx / "nsx-module.yaml").read_text())
    assert meta["module"] == {"name": "nsx_mod", "type": "algorithm", "version": meta["module"]["version"]}
    assert meta["build"]["cmake"] == {"package": "nsx_mod", "targets": ["nsx::nsx_mod"]}
    assert "add_library(nsx::nsx_mod ALIAS nsx_mod)" in (nsx / "CMakeLists.txt").read_text()
