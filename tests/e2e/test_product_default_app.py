"""An application written for the product's default KWS module builds and runs against ours.

heliaAOT 1.1 reads a model's constants in place from DTCM when they fit, so its default KWS
module on the Apollo510 has two regions, ``aot_arena_dtcm`` and ``aot_arena_const_dtcm``
(``tests/data/product/default_placement.json``), and with ``memory.allocate_arenas: false`` the
application binds the second to the bytes of ``aot_arena_const_dtcm__blob.bin``.
``capi_apps/product_default_kws_app.c`` names those regions literally; it is built with
``-Wall -Wextra -Werror`` against our default module (internal arenas) and our external-arena
module, on the host under ASan/UBSan and on the Cortex-M55 under QEMU, and runs the bit-exact
self-test.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.testing import build_module
from helia_aot.testing.cross import cross_build_module, run_qemu

MODEL = Path(__file__).resolve().parents[1] / "data" / "models" / "mlperf_kws_dscnn_int8.tflite"
APP = Path(__file__).resolve().parent / "capi_apps" / "product_default_kws_app.c"


def module_and_app(tmp_path: Path, external: bool) -> tuple[Path, str, Path]:
    config = {
        "model": {"path": str(MODEL)},
        "module": {"path": str(tmp_path / "out"), "name": "kws"},
        "platform": {"name": "apollo510_evb"},
        "memory": {"allocate_arenas": not external},
        "test": {"enabled": True, "tolerance": 0.0},
    }
    module = AotConverter(ConvertArgs.model_validate(config)).convert().output
    build = tmp_path / "build"
    build.mkdir(parents=True, exist_ok=True)
    source = APP.read_text()
    if external:
        data = (module / "aot_arena_const_dtcm__blob.bin").read_bytes()
        (build / "aot_const_dtcm_blob.h").write_text(
            f"static const uint8_t aot_const_dtcm_bytes[{len(data)}] __attribute__((aligned(16))) = "
            f"{{{', '.join(map(str, data))}}};\n"
        )
        source = "#define APP_EXTERNAL_ARENAS 1\n" + source
    return module, source, build


@pytest.mark.parametrize("external", [False, True], ids=["internal", "external"])
def test_product_default_application_runs_on_host(tmp_path, external):
    module, source, build = module_and_app(tmp_path, external)
    exe = build_module(module, build, prefix="aot", main_source=source, extra_cflags=("-I", str(build)))
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0", UBSAN_OPTIONS="halt_on_error=1")
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    assert "APP PASS: 0 failed" in proc.stdout and "aot_test_case: PASS" in proc.stdout


@pytest.mark.cross
@pytest.mark.parametrize("external", [False, True], ids=["internal", "external"])
def test_product_default_application_runs_on_m55(tmp_path, external):
    module, source, build = module_and_app(tmp_path, external)
    elf = cross_build_module(
        module,
        build,
        "m55",
        prefix="aot",
        main_source=source,
        extra_cflags=("-Wall", "-Wextra", "-Werror", f"-I{build}"),
    )
    run = run_qemu(elf, "m55", count=False)
    assert run.returncode == 0, run.stdout + run.stderr[-2000:]
    assert "APP PASS: 0 failed" in run.stdout and "aot_test_case: PASS" in run.stdout
