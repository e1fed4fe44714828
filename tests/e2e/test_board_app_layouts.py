"""``helia-aot app --app.layout neuralspot|zephyr`` (issue 34 item 2): complete, consistent, and built.

Neither SDK can be installed here, so each layout is checked for what its SDK would do with it:
every file it names exists, and its sources, read the way the SDK reads them (neuralSPOT: its
``module.mk`` fragments through a stand-in of neuralSPOT's top-level Makefile; Zephyr: the module's
``zephyr/CMakeLists.txt`` and the app's), build into a program with host gcc and with
arm-none-eabi-gcc for the Cortex-M55 and the Cortex-M4, with -Wall -Wextra -Werror, against stub
SDK headers (tests/e2e/app_sdk_stubs/). The program is the plain-CMake layout's: the same
``main.c`` bytes, which tests/e2e/test_board_app.py runs under QEMU.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from helia_aot.cli.app import app
from helia_aot.testing.app_zephyr import kconfig_option
from helia_aot.testing.board_app import APP_MARKER, operator_label
from helia_aot.testing.cross import CORES, CROSS_PREFIX
from helia_aot.testing.required_tools import require_tools
from typer.testing import CliRunner

MODEL = Path(__file__).resolve().parents[1] / "data" / "models" / "leaky_relu_int8.tflite"
"""One operator with arithmetic and a small kernel: the layouts are about the files around it."""
STUBS = Path(__file__).resolve().parent / "app_sdk_stubs"
PLATFORMS = {"m55": "apollo510_evb", "m4": "apollo4p_evb"}
WARNINGS = ("-std=c99", "-O2", "-Wall", "-Wextra", "-Werror")

runner = CliRunner()


def _write_app(app_dir: Path, platform: str, *extra: str) -> tuple[int, str]:
    args = ["app", "--model.path", str(MODEL), "--platform", platform, "--app.path", str(app_dir)]
    result = runner.invoke(app, [*args, "--verbose", "0", *extra])
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def apps(tmp_path_factory) -> dict[tuple[str, str], Path]:
    """Every layout for both cores: ``(layout, core) -> app folder``."""
    root = tmp_path_factory.mktemp("layouts")
    written = {}
    for layout in ("cmake", "neuralspot", "zephyr"):
        for core, platform in PLATFORMS.items():
            if layout == "cmake" and core == "m4":
                continue  # tests/e2e/test_board_app.py covers the plain layout on both cores
            app_dir = root / f"{layout}_{core}"
            code, output = _write_app(app_dir, platform, "--app.layout", layout)
            assert code == 0, output
            written[(layout, core)] = app_dir
    return written


def _module(app_dir: Path) -> Path:
    return next((app_dir / "module").iterdir())


def _files(app_dir: Path) -> set[str]:
    return {path.relative_to(app_dir).as_posix() for path in app_dir.rglob("*") if path.is_file()}


def test_every_layout_runs_the_same_main_program(apps):
    main = (apps[("cmake", "m55")] / "main.c").read_bytes()
    assert (apps[("zephyr", "m55")] / "src" / "main.c").read_bytes() == main
    assert (apps[("neuralspot", "m55")] / "src" / "neuralspot_m55.c").read_bytes() == main
    text = main.decode()
    assert "0xE0001004u" in text and '#include "app_port.h"' in text and "printf(" not in text
    plan = (_module(apps[("cmake", "m55")]) / "aot_plan.json").read_text(encoding="utf-8")
    for op_type, ident in re.findall(r'"op_type": "(\w+)",\s*"id": "([^"]+)"', plan):
        assert f'"{operator_label(op_type, ident)}"' in text


def test_the_ports_print_through_each_sdk(apps):
    ports = {
        layout: (apps[(layout, "m55")] / ("app_port.h" if layout == "cmake" else "src/app_port.h"))
        for layout in ("cmake", "neuralspot", "zephyr")
    }
    text = {layout: path.read_text(encoding="utf-8") for layout, path in ports.items()}
    assert "printf(__VA_ARGS__)" in text["cmake"]
    assert "ns_lp_printf(__VA_ARGS__)" in text["neuralspot"] and "ns_core_init" in text["neuralspot"]
    assert "printk(__VA_ARGS__)" in text["zephyr"]


def test_the_zephyr_app_names_what_exists(apps):
    for core in PLATFORMS:
        app_dir = apps[("zephyr", core)]
        assert {
            "CMakeLists.txt",
            "prj.conf",
            "src/main.c",
            "src/app_port.h",
            "README.md",
            APP_MARKER,
        } <= _files(app_dir)
        module = _module(app_dir)
        cmake = (app_dir / "CMakeLists.txt").read_text(encoding="utf-8")
        assert "find_package(Zephyr" in cmake
        for source in re.findall(r"target_sources\(app PRIVATE ([^)]+)\)", cmake)[0].split():
            assert (app_dir / source).is_file()
        extra = re.search(r'ZEPHYR_EXTRA_MODULES "\$\{CMAKE_CURRENT_SOURCE_DIR\}/([^"]+)"', cmake)
        assert extra and (app_dir / extra.group(1) / "zephyr" / "module.yml").is_file()
        conf = (app_dir / "prj.conf").read_text(encoding="utf-8")
        assert f"CONFIG_{kconfig_option(module)}=y" in conf.splitlines()
        sources, _ = _zephyr_sources(module)
        assert sorted(sources) == sorted(module.glob("src/**/*.c"))  # every source, each there


def _zephyr_sources(module: Path) -> tuple[list[Path], list[Path]]:
    """The module's sources and include folders, as its zephyr/CMakeLists.txt gives them to Zephyr."""
    zephyr = module / "zephyr"
    text = (zephyr / "CMakeLists.txt").read_text(encoding="utf-8")
    listed = re.search(r"zephyr_library_sources\(([^)]*)\)", text)
    assert listed is not None
    sources = [(zephyr / name).resolve() for name in listed.group(1).split()]
    includes = re.findall(r"zephyr_(?:library_)?include_directories\(([^)]*)\)", text)
    folders = [(zephyr / name).resolve() for group in includes for name in group.split()]
    for path in (*sources, *folders):
        assert path.exists(), path
    return sources, folders


def test_the_neuralspot_app_names_what_exists(apps):
    for core in PLATFORMS:
        app_dir = apps[("neuralspot", core)]
        name = app_dir.name
        files = _files(app_dir)
        module = _module(app_dir)
        assert {"module.mk", f"src/{name}.c", "src/app_port.h", "README.md", APP_MARKER} <= files
        app_mk = (app_dir / "module.mk").read_text(encoding="utf-8")
        assert f"local_app_name := {name}" in app_mk
        module_mk = (module / "module.mk").read_text(encoding="utf-8")
        listed = re.findall(r"^local_src \+= \$\(subdirectory\)/(\S+)$", module_mk, re.MULTILINE)
        assert sorted(listed) == sorted(p.relative_to(module).as_posix() for p in module.glob("src/**/*.c"))


def _compilers(core: str | None) -> tuple[str, str, list[str]]:
    """The C compiler, archiver and CPU flags: host gcc for ``None``, else the core's cross tools."""
    if core is None:
        require_tools("gcc", "make")
        return "gcc", "ar", []
    require_tools(f"{CROSS_PREFIX}gcc", "make")
    return f"{CROSS_PREFIX}gcc", f"{CROSS_PREFIX}ar", list(CORES[core].cpu_flags)


def _run(command: list[str], cwd: Path) -> None:
    proc = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{' '.join(command)}\n{proc.stdout}\n{proc.stderr}"


def _link_flags(core: str | None) -> list[str]:
    # A cross image links against newlib's own start-up files: enough to resolve every symbol.
    return (
        [] if core is None else [*CORES[core].cpu_flags, "--specs=nosys.specs", "-Wl,--no-warn-rwx-segments"]
    )


BUILDS = [
    pytest.param(None, id="host"),
    pytest.param("m55", id="m55", marks=pytest.mark.cross),
    pytest.param("m4", id="m4", marks=pytest.mark.cross),
]


@pytest.mark.parametrize("core", BUILDS)
def test_the_neuralspot_app_builds_from_its_module_mk(core, apps, tmp_path):
    """neuralSPOT's way: the app's module.mk (and the module's, which it includes) read by a
    stand-in of neuralSPOT's Makefile, every object compiled with the flags the fragments give."""
    cc, ar, cpu = _compilers(core)
    app_dir = apps[("neuralspot", core or "m55")]
    root = tmp_path / "neuralSPOT"
    (root / "apps").mkdir(parents=True)
    shutil.copy(STUBS / "neuralspot" / "Makefile", root / "Makefile")
    (root / "apps" / app_dir.name).symlink_to(app_dir, target_is_directory=True)
    stub = STUBS / "neuralspot"
    _run([cc, *cpu, *WARNINGS, f"-I{stub}", "-c", str(stub / "ns_stub.c"), "-o", "ns_stub.o"], root)
    _run([ar, "rcs", "libns_stub.a", "ns_stub.o"], root)
    _run(
        [
            "make",
            "-j2",
            f"EXAMPLE={app_dir.name}",
            f"CC={cc}",
            f"AR={ar}",
            f"STUB_CFLAGS={' '.join([*cpu, *WARNINGS, f'-I{stub}'])}",
            f"LFLAGS={' '.join(_link_flags(core))}",
            "lib_prebuilt=libns_stub.a",
        ],
        root,
    )
    assert (root / "build" / "apps" / app_dir.name / f"{app_dir.name}.axf").is_file()


@pytest.mark.parametrize("core", BUILDS)
def test_the_zephyr_app_builds_from_its_cmake_lists(core, apps, tmp_path):
    """Zephyr's way: the sources and include folders the module's zephyr/CMakeLists.txt names, the
    app's src/main.c, CONFIG_PRINTK as prj.conf sets it (the module's self-test prints through
    printk then), against stub Zephyr headers."""
    cc, _, cpu = _compilers(core)
    app_dir = apps[("zephyr", core or "m55")]
    sources, folders = _zephyr_sources(_module(app_dir))
    stub = STUBS / "zephyr"
    flags = [*cpu, *WARNINGS, "-DCONFIG_PRINTK=1", f"-I{stub}", *(f"-I{folder}" for folder in folders)]
    objects = []
    for n, source in enumerate([app_dir / "src" / "main.c", stub / "zephyr_stub.c", *sources]):
        objects.append(f"{n}.o")
        _run([cc, *flags, "-c", str(source), "-o", objects[-1]], tmp_path)
    _run([cc, *_link_flags(core), *objects, "-lm", "-o", "app.elf"], tmp_path)
    assert (tmp_path / "app.elf").is_file()


def test_an_unknown_layout_is_refused_with_the_closest(tmp_path):
    code, output = _write_app(tmp_path / "app", PLATFORMS["m55"], "--app.layout", "zephir")
    assert code == 2 and "did you mean zephyr" in output
    assert not (tmp_path / "app").exists()


def test_a_module_type_of_another_layout_is_refused(tmp_path):
    code, output = _write_app(
        tmp_path / "app", PLATFORMS["m55"], "--app.layout", "neuralspot", "--module.type", "zephyr"
    )
    assert code == 2 and "--app.layout zephyr" in output
    code, output = _write_app(
        tmp_path / "app", PLATFORMS["m55"], "--app.layout", "zephyr", "--module.type", "nsx"
    )
    assert code == 2 and "module.type 'nsx'" in output
