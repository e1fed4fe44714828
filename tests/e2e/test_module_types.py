"""Every module type builds with the build system it is for, and its archives hold what they promise.

The CMake, NSX and Zephyr modules are configured and built with the real ``cmake`` (the Zephyr one
through a small project that defines the Zephyr functions its ``CMakeLists.txt`` calls), linked
into a program that runs the module's golden self test. The model is a one-layer int8 fully
connected network from the corpus, so each build takes about a second.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path, PurePosixPath

import pytest
import yaml
from helia_aot import AotConverter, ConvertArgs
from helia_aot.testing import corpus_golden_to_npz

from .corpus import DATA_DIR

MODEL = DATA_DIR / "models" / "fc_64x32_relu_int8.tflite"
GOLDEN = DATA_DIR / "golden" / "fc_64x32_relu_int8.npz"

MAIN = """#include <stdio.h>
#include "aot_model.h"
#include "aot_test_case.h"
int main(void)
{
    /* The module's self-test prints through AOT_PRINTF, silent in a plain build: report here. */
    printf("plan %s\\n", AOT_PLAN_HASH);
    if (aot_test_case_init() != 0 || aot_test_case_run() != 0) {
        return 1;
    }
    printf("PASS\\n");
    return 0;
}
"""


def convert(tmp_path: Path, module_type: str, path: Path | None = None, **module):
    golden = corpus_golden_to_npz(GOLDEN, tmp_path / "golden.npz")
    config = ConvertArgs.model_validate(
        {
            "model": {"path": str(MODEL)},
            "module": {
                "path": str(path or tmp_path / "out"),
                "name": "fc_module",
                "type": module_type,
                **module,
            },
            "test": {"enabled": True, "golden_data": str(golden), "tolerance": 0.0},
        }
    )
    return AotConverter(config).convert()


def cmake_build_and_run(project: Path, build: Path) -> str:
    for cmd in (
        ["cmake", "-S", str(project), "-B", str(build), "-DCMAKE_BUILD_TYPE=Debug"],
        ["cmake", "--build", str(build), "--parallel", "2"],
    ):
        proc = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    run = subprocess.run([str(build / "app")], check=False, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr
    return run.stdout


def consumer(tmp_path: Path, body: str) -> Path:
    project = tmp_path / "app"
    project.mkdir(parents=True)
    (project / "main.c").write_text(MAIN)
    (project / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.13)\nproject(consumer C)\n" + body
    )
    return project


def assert_readme(module: Path, title: str) -> None:
    text = (module / "README.md").read_text()
    for heading in ("## Inputs and outputs", "## Arenas", f"## Integration ({title})", "## Use"):
        assert heading in text, heading
    assert re.search(
        r"\| input \| 0 \| \[1, 64\] \| int8 \| scale [0-9.e-]+, zero point -1 \| 64 \|", text
    ), text
    assert re.search(
        r"\| output \| 0 \| \[1, 32\] \| int8 \| scale [0-9.e-]+, zero point -128 \| 32 \|", text
    )
    assert re.search(r"\| `aot_arena_dtcm` \| scratch \| DTCM \| \d+ \| \d+ \| 16 \|", text)
    assert "| constant | DTCM |" in text


def test_cmake_module_is_a_static_library_cmake_builds(tmp_path):
    module = convert(tmp_path, "cmake").output
    assert (module / "CMakeLists.txt").is_file()
    assert_readme(module, "CMake")
    project = consumer(
        tmp_path,
        f"add_subdirectory({module} module)\n"
        "add_executable(app main.c)\ntarget_link_libraries(app PRIVATE helia_aot::fc_module)\n",
    )
    out = cmake_build_and_run(project, tmp_path / "build")
    assert "PASS" in out
    assert list((tmp_path / "build" / "module").glob("libfc_module.a"))


def test_nsx_module_has_valid_metadata_and_builds_with_board_flags(tmp_path):
    module = convert(tmp_path, "nsx").output
    meta = yaml.safe_load((module / "nsx-module.yaml").read_text())
    # The fields NSX requires of a module's metadata.
    assert meta["schema_version"] == 1
    assert meta["module"] == {"name": "fc_module", "type": "algorithm", "version": meta["module"]["version"]}
    assert meta["build"]["cmake"] == {"package": "fc_module", "targets": ["nsx::fc_module"]}
    assert meta["depends"] == {"required": [], "optional": []}
    assert meta["compatibility"]["boards"] == ["apollo510_evb"]
    assert meta["compatibility"]["socs"] and meta["compatibility"]["toolchains"]
    assert_readme(module, "neuralSPOT-X (NSX)")
    # The board flags target carries strict warnings: the module must compile clean under them.
    project = consumer(
        tmp_path,
        (
            "add_library(board_flags INTERFACE)\n"
            "target_compile_options(board_flags INTERFACE -Wall -Wextra -Werror)\n"
            "set(NSX_BOARD_FLAGS_TARGET board_flags)\n"
            f"add_subdirectory({module} module)\n"
            "add_executable(app main.c)\ntarget_link_libraries(app PRIVATE nsx::fc_module)\n"
        ),
    )
    cmake_build_and_run(project, tmp_path / "build")


ZEPHYR_SHIM = """
# What Zephyr provides a module's CMakeLists.txt, reduced to the functions this module calls.
add_library(zephyr_interface INTERFACE)
macro(zephyr_library_named name)
  set(ZEPHYR_CURRENT_LIBRARY ${name})
  add_library(${name} STATIC)
  target_link_libraries(${name} PUBLIC zephyr_interface)
endmacro()
macro(zephyr_library_sources)
  target_sources(${ZEPHYR_CURRENT_LIBRARY} PRIVATE ${ARGN})
endmacro()
macro(zephyr_library_include_directories)
  target_include_directories(${ZEPHYR_CURRENT_LIBRARY} PRIVATE ${ARGN})
endmacro()
function(zephyr_include_directories)
  target_include_directories(zephyr_interface INTERFACE ${ARGN})
endfunction()
"""


def test_zephyr_module_builds_when_its_kconfig_option_is_set(tmp_path):
    module = convert(tmp_path, "zephyr").output
    manifest = yaml.safe_load((module / "zephyr" / "module.yml").read_text())
    assert manifest == {"name": "fc_module", "build": {"cmake": "zephyr", "kconfig": "zephyr/Kconfig"}}
    kconfig = (module / "zephyr" / "Kconfig").read_text()
    # The product's names (menuconfig FC_MODULE), and the earlier option, which selects it.
    match = re.search(r"^menuconfig (\w+)\n\tbool \"[^\"]+\"\n\thelp\n", kconfig, re.MULTILINE)
    assert match and match.group(1) == "FC_MODULE"
    assert "config ZEPHYR_FC_MODULE_MODULE\n" in kconfig and "\tselect FC_MODULE\n" in kconfig
    assert_readme(module, "Zephyr")
    project = consumer(
        tmp_path,
        ZEPHYR_SHIM
        + (
            "set(CONFIG_FC_MODULE y)\n"
            f"add_subdirectory({module}/zephyr module)\n"
            "add_executable(app main.c)\ntarget_link_libraries(app PRIVATE fc_module zephyr_interface m)\n"
        ),
    )
    cmake_build_and_run(project, tmp_path / "build")
    # Without the option the module adds nothing.
    off = consumer(
        tmp_path / "off",
        ZEPHYR_SHIM + f"add_subdirectory({module}/zephyr module)\n"
        'if(TARGET fc_module)\n  message(FATAL_ERROR "built without CONFIG")\nendif()\n',
    )
    proc = subprocess.run(
        ["cmake", "-S", str(off), "-B", str(tmp_path / "off" / "build")],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr


def test_zip_archive_holds_the_module_under_its_name(tmp_path):
    result = convert(tmp_path, "cmake", path=tmp_path / "fc.zip")
    assert result.output == tmp_path / "fc.zip"
    with zipfile.ZipFile(result.output) as archive:
        names = set(archive.namelist())
    for expected in (
        "CMakeLists.txt",
        "README.md",
        "aot_plan.json",
        "aot_report.json",
        "includes-api/aot_model.h",
        "includes-api/aot_context.h",
        "includes-api/aot_platform.h",
        "src/aot_model.c",
        "src/aot_constants_dtcm.c",
        "src/aot_test_case.c",
    ):
        assert f"fc_module/{expected}" in names, expected
    assert all(n.startswith("fc_module/") for n in names)


def test_cmsis_pack_describes_every_file_of_the_archive(tmp_path):
    result = convert(tmp_path, "cmsis_pack", path=tmp_path / "Ambiq.fc_module.pack")
    with zipfile.ZipFile(result.output) as archive:
        names = set(archive.namelist())
        pdscs = [n for n in names if n.endswith(".pdsc")]
        assert len(pdscs) == 1 and PurePosixPath(pdscs[0]).name == "Ambiq.fc_module.pdsc"
        root = ET.fromstring(archive.read(pdscs[0]))
    base = PurePosixPath(pdscs[0]).parent
    assert root.tag == "package" and root.get("schemaVersion")
    for element in ("vendor", "name", "description", "url", "releases/release", "components/component"):
        assert root.find(element) is not None, element
    assert (root.findtext("vendor"), root.findtext("name")) == ("Ambiq", "fc_module")
    component = root.find("components/component")
    assert component.get("Cclass") == "Machine Learning" and component.get("Cversion")
    listed = {f.get("name"): f.get("category") for f in component.iter("file")}
    for name, category in listed.items():
        path = (base / name).as_posix()
        if category == "include":
            assert any(n.startswith(path) for n in names), name
        else:
            assert path in names, name
    sources = {n for n in names if n.endswith(".c")}
    assert sources == {(base / n).as_posix() for n, c in listed.items() if c == "source"}
    assert listed["includes-api/aot_model.h"] == "header" and listed["includes-api/"] == "include"
    assert (base / "README.md").as_posix() in names


def test_cmsis_pack_folder_has_its_pdsc_and_readme(tmp_path):
    module = convert(tmp_path, "cmsis_pack").output
    assert (module / "Ambiq.fc_module.pdsc").is_file()
    assert_readme(module, "CMSIS-Pack")
    assert not (module / "CMakeLists.txt").exists()


def test_a_plugin_exporter_serves_its_module_type(tmp_path):
    from helia_aot.exporters import ModuleExporter
    from helia_aot.registry import build_default_registry_context

    class MakefileExporter(ModuleExporter):
        TYPE = "cmake"
        TITLE = "Make"

        def write(self, layout):
            objects = " ".join(s[:-2] + ".o" for s in layout.sources)
            return [self.write_text(layout, "module.mk", f"OBJECTS := {objects}\n")]

        def integration(self, layout):
            return "Include `module.mk` from your Makefile."

    def customize(context):
        context.module_exporters.register("cmake", MakefileExporter, overwrite=True)

    context = build_default_registry_context(customizers=[customize], allow_override=True)
    config = ConvertArgs.model_validate(
        {"model": {"path": str(MODEL)}, "module": {"path": str(tmp_path / "out"), "name": "m"}}
    )
    module = AotConverter(config, registry_context=context).convert().output
    assert (module / "module.mk").read_text().startswith("OBJECTS := src/")
    assert not (module / "CMakeLists.txt").exists()
    assert "## Integration (Make)" in (module / "README.md").read_text()


@pytest.fixture(autouse=True)
def _no_cmake_user_presets(monkeypatch):
    # A developer's CMAKE_* environment (generator, toolchain) must not change what is built.
    for name in list(os.environ):
        if name.startswith("CMAKE_"):
            monkeypatch.delenv(name)
    assert shutil.which("cmake"), "cmake is part of the development machine and CI"


def test_cmsis_pack_has_the_products_vendor_names_and_conditions(tmp_path, monkeypatch):
    """The pdsc declares what a project made for the product's pack selects and resolves."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764547200")  # 2025-12-01T00:00:00Z
    module = convert(tmp_path, "cmsis_pack").output
    root = ET.parse(module / "Ambiq.fc_module.pdsc").getroot()
    assert root.get("schemaVersion") == "1.7.36"
    assert (root.findtext("vendor"), root.findtext("name"), root.findtext("url")) == (
        "Ambiq",
        "fc_module",
        "https://github.com/AmbiqAI/helia-aot/",
    )
    assert [k.text for k in root.iter("keyword")] == [
        "heliaAOT",
        "Ambiq",
        "Machine Learning",
        "CMSIS-NN",
        "fc_module",
    ]
    assert root.find("releases/release").get("date") == "2025-12-01"
    (required,) = root.findall("requirements/packages/package")
    assert required.attrib == {"vendor": "Ambiq", "name": "NS-CMSIS-NN", "version": "7.47.0"}
    conditions = {c.get("id"): [r.attrib for r in c.findall("require")] for c in root.iter("condition")}
    assert conditions == {
        "cond.aot.dcore": [{"Dcore": "Cortex-M55"}],
        "cond.aot.component": [
            {"condition": "cond.aot.dcore"},
            {
                "Cclass": "Machine Learning",
                "Cgroup": "NN Lib",
                "Csub": "heliaCORE",
                "Cvariant": "Source",
                "Cvendor": "Ambiq",
                "Cversion": "7.47.0",
            },
        ],
    }
    (component,) = root.findall("components/component")
    assert {k: component.get(k) for k in ("Cclass", "Cgroup", "Csub", "Cvendor", "condition")} == {
        "Cclass": "Machine Learning",
        "Cgroup": "AOT Model",
        "Csub": "fc_module",
        "Cvendor": "Ambiq",
        "condition": "cond.aot.component",
    }
    assert component.get("Cversion") == root.find("releases/release").get("version")
    files = {f.get("name"): f.get("category") for f in component.iter("file")}
    assert files["includes-api/"] == "include"
    headers = {p.relative_to(module).as_posix() for p in (module / "includes-api").glob("*.h")}
    assert headers and all(files[h] == "header" for h in headers)


def test_cmsis_pack_description_is_deterministic_without_a_date(tmp_path, monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = (convert(tmp_path / "a", "cmsis_pack").output / "Ambiq.fc_module.pdsc").read_bytes()
    second = (convert(tmp_path / "b", "cmsis_pack").output / "Ambiq.fc_module.pdsc").read_bytes()
    assert first == second and b"date=" not in first
