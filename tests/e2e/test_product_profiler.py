"""The product's profiler drives ours: helia-profiler 0.4.1's own code, run against this package.

helia-profiler (``hpx``, from the core's ``test`` extra) reaches helia-aot in two places.
``hpx analyze MODEL --engine helia-aot`` (``evaluation/engine_analysis.py``) converts an NSX module
with result views and counts MACs and shapes per generated layer; what it printed with the product
(helia-aot 1.1.0) is recorded in ``tests/data/product/hpx_analyze_helia_aot.json``. A profiling
run's compile path (``engines/helia_aot/compile.py``, ``manifest.py``) checks the installed
version, converts with its placement rules (scratch and persistent in one memory, constants cold
or staged), reads the views into its operator manifest, arena list and memory plan, and builds the
module with its placement header force-included. Nothing of the profiler is copied here: the tests
import it.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helia_aot.testing.cross import cross_build_module, run_qemu, toolchain_problem
from helia_aot.testing.required_tools import require, require_tools
from helia_profiler.config import load_config
from helia_profiler.engines.helia_aot import compile as hpx_compile
from helia_profiler.engines.helia_aot import manifest as hpx_manifest
from helia_profiler.evaluation.engine_analysis import analyze_for_engine

DATA = Path(__file__).resolve().parents[1] / "data"
MODELS = DATA / "models"
PRODUCT = json.loads((DATA / "product" / "hpx_analyze_helia_aot.json").read_text())["models"]


def _analysis(model: str) -> dict:
    return analyze_for_engine(MODELS / f"{model}.tflite", engine="helia-aot", board="apollo510_evb").to_dict()


def test_hpx_analyze_command_prints_the_products_kws_analysis(tmp_path):
    """The command itself, as a user runs it: every layer, operator, MAC count and shape."""
    hpx = Path(sys.executable).with_name("hpx")
    out = tmp_path / "kws.json"
    model = MODELS / "mlperf_kws_dscnn_int8.tflite"
    cmd = [str(hpx), "analyze", str(model), "--engine", "helia-aot", "--format", "json", "-o", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(out.read_text())["aot_transformed"] == PRODUCT["mlperf_kws_dscnn_int8"]


@pytest.mark.parametrize("model", sorted(set(PRODUCT) - {"mlperf_kws_dscnn_int8"}))
def test_hpx_analysis_is_the_products(model):
    assert _analysis(model) == PRODUCT[model]


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """A module from the profiler's compile path, with the self-test so it can run on the M55."""
    work = tmp_path_factory.mktemp("hpx")
    config = load_config(
        None,
        {
            "model": {"path": str(MODELS / "mlperf_kws_dscnn_int8.tflite")},
            "engine": {"type": "helia-aot", "config": {"aot_args": {"test": {"enabled": True}}}},
            "target": {"board": "apollo510_evb"},
        },
    )
    version = hpx_compile._check_helia_aot_version()
    platform = hpx_compile._resolve_aot_platform(config)
    result = hpx_compile._run_aot_compiler(config, work / "aot_output", "hpx_model", "hpx", platform)
    return version, result, work / "aot_output" / "hpx_model"


def test_version_is_in_the_profilers_range(compiled):
    version, _, _ = compiled
    assert version.startswith("1.1.0")  # the meta-distribution's version: hpx accepts >=0.33,<2


def test_profiler_reads_the_views_into_its_manifest_and_plan(compiled, caplog):
    _, result, module = compiled
    sources = "".join(p.read_text() for p in (module / "src").glob("*.c"))
    with caplog.at_level(logging.DEBUG, logger="hpx"):
        hpx_compile._validate_pragmas(module, "hpx")
    # Every placement hook the module uses is one the profiler's header defines.
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text
    manifest = hpx_manifest._extract_operator_manifest(result, "hpx")
    assert [(e["idx"], e["id"], e["op_type"]) for e in manifest] == [
        (layer["id"], layer["original_id"], layer["op"])
        for layer in PRODUCT["mlperf_kws_dscnn_int8"]["layers"]
    ]
    for entry in manifest:
        assert f"int32_t hpx_{entry['name']}_run(" in sources
        assert list(entry["kernel_calls"]) == ["run"]
        # Each tensor the manifest describes has its placement: region, offset and size.
        for tensor in entry["inputs"] + entry["outputs"]:
            assert {"memory", "offset", "allocation_size", "arena_region_id"} <= set(tensor), tensor
    # The profiler's rules for KWS on Apollo510: scratch in DTCM, constants staged from MRAM to SRAM.
    regions = hpx_manifest._extract_arena_regions(result, "hpx")
    assert [(r.region_id, r.role.value, r.memory) for r in regions] == [
        (0, "scratch", "dtcm"),
        (1, "constant", "sram"),
    ]
    plan = hpx_manifest._extract_memory_plan(result, allocate_arenas=True)
    assert plan is not None and not plan.has_overflow
    symbols = [c.symbol for usage in plan.regions for c in usage.consumers]
    assert symbols and all(re.search(rf"\b{s}\[", sources) for s in symbols), symbols


NSX_APP = """cmake_minimum_required(VERSION 3.15)
project(hpx_app C)
add_subdirectory(hpx_model)
add_executable(app main.c)
target_link_libraries(app PRIVATE nsx::hpx_model)
"""


@pytest.mark.cross
def test_module_builds_in_the_profilers_nsx_flow(compiled, tmp_path):
    """As hpx builds it: the NSX module added to a CMake project with HPX_MODEL_ATTRIBUTES_HEADER
    set to the header hpx writes, cross-compiled for the Apollo510 with -Werror."""
    require_tools("cmake")
    require(toolchain_problem())
    _, _, module = compiled
    header = hpx_compile._write_attributes_header(module, "hpx")
    project = tmp_path / "project"
    shutil.copytree(module, project / "hpx_model")
    (project / "CMakeLists.txt").write_text(NSX_APP)
    (project / "main.c").write_text('#include "hpx_model.h"\nint main(void) { return 0; }\n')
    flags = "-mcpu=cortex-m55 -mthumb -mfloat-abi=hard -DAM_PART_APOLLO510 -Wall -Wextra -Werror"
    build = tmp_path / "build"
    configure = [
        "cmake", "-S", str(project), "-B", str(build),
        "-DCMAKE_SYSTEM_NAME=Generic", "-DCMAKE_C_COMPILER=arm-none-eabi-gcc",
        "-DCMAKE_TRY_COMPILE_TARGET_TYPE=STATIC_LIBRARY", f"-DCMAKE_C_FLAGS={flags}",
        f"-DHPX_MODEL_ATTRIBUTES_HEADER={project / 'hpx_model' / header.name}",
        "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
    ]  # fmt: skip
    for cmd in (configure, ["cmake", "--build", str(build), "--target", "hpx_model"]):
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    commands = json.loads((build / "compile_commands.json").read_text())
    assert commands and all(
        f"-include{project / 'hpx_model' / header.name}" in c["command"] for c in commands
    )


@pytest.mark.cross
def test_module_runs_on_the_m55_with_the_profilers_placement(compiled, tmp_path):
    """The self-test of the module from the compile path passes under QEMU, every source built
    with the profiler's placement header force-included and -Werror."""
    require(toolchain_problem())
    _, _, module = compiled
    header = hpx_compile._write_attributes_header(module, "hpx")
    flags = ("-Wall", "-Wextra", "-Werror", "-DAM_PART_APOLLO510", "-include", str(header))
    elf = cross_build_module(module, tmp_path / "build", "m55", prefix="hpx", extra_cflags=flags)
    run = run_qemu(elf, "m55", count=False)
    assert run.returncode == 0 and "hpx_test_case: PASS" in run.stdout, run.stdout + run.stderr[-2000:]


def test_cmake_names_a_missing_attributes_header(compiled, tmp_path):
    require_tools("cmake", "gcc")
    _, _, module = compiled
    project = tmp_path / "project"
    shutil.copytree(module, project / "hpx_model")
    (project / "CMakeLists.txt").write_text(NSX_APP)
    (project / "main.c").write_text("int main(void) { return 0; }\n")
    missing = tmp_path / "no_such_header.h"
    cmd = ["cmake", "-S", str(project), "-B", str(tmp_path / "b"), f"-DHPX_MODEL_ATTRIBUTES_HEADER={missing}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    assert "HPX_MODEL_ATTRIBUTES_HEADER" in proc.stderr and str(missing) in proc.stderr, proc.stderr
