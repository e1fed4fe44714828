"""A ready-to-build Cortex-M application around a converted module (``helia-aot app``).

A user with a board wants to see the module run and what it costs before writing any firmware of
their own. :func:`write_board_app` writes one of three layouts (:data:`LAYOUTS`) around the module
it was given, all running the same program (:func:`main_source`):

- ``main.c``: runs the self-test (golden inputs in, outputs compared, a verdict per output), prints
  ``outputs check: pass`` or ``FAIL``, then runs one inference on the application's own context and
  prints the cycles of every operator and their total, read from the DWT cycle counter. What
  differs between build systems (how to print, the SDK's start-up) is in ``app_port.h`` beside it,
  so ``main.c`` is the same bytes in every layout.
- ``cmake`` (the default): a plain CMake project, ``module/<name>/`` (converted with its golden
  self-test, ``test.enabled``), ``board/`` (startup code, semihosted ``printf`` and the linker
  script of the core's QEMU board: the runtime ``helia_aot.testing.cross`` builds self-tests with,
  so the app runs under QEMU as written), ``cmake/arm-none-eabi.cmake``, ``CMakeLists.txt`` and a
  ``README.md`` with the commands.
- ``neuralspot``: a neuralSPOT ``apps/<name>`` folder (:mod:`helia_aot.testing.app_neuralspot`).
- ``zephyr``: a Zephyr application folder (:mod:`helia_aot.testing.app_zephyr`).

The files are written from templates, deterministically (the same module gives the same app).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from helia_aot.testing.cross import CORES, TARGET_DIR

__all__ = [
    "APP_MARKER",
    "BOARD_FILES",
    "LABEL_WIDTH",
    "LAYOUTS",
    "MODULE_TYPES",
    "OUTPUTS_CHECK_LINE",
    "BoardApp",
    "main_source",
    "operator_label",
    "write_board_app",
]

LAYOUTS = ("cmake", "neuralspot", "zephyr")
"""The application layouts ``helia-aot app --app.layout`` writes."""

MODULE_TYPES = {"cmake": "cmake", "neuralspot": "cmake", "zephyr": "zephyr"}
"""The ``module.type`` the module of each layout is converted with: the Zephyr app takes the module
as a Zephyr module; neuralSPOT's ``module.mk`` lists the sources of a plain one."""

BOARD_FILES = ("startup.S", "semihost.c", "harness.h", "sections.ld")
"""The runtime files copied from the cross-build harness into the app's ``board/`` folder (the
core's linker script is copied beside them)."""

APP_MARKER = ".helia-aot-app"
"""The file that marks a folder as an app this command wrote: ``--force`` replaces only those."""

OUTPUTS_CHECK_LINE = "outputs check: "
"""The start of main.c's verdict line: ``outputs check: pass`` or ``outputs check: FAIL``."""


@dataclass(frozen=True, slots=True)
class BoardApp:
    """What :func:`write_board_app` wrote: the app folder, the module inside it and the core."""

    path: Path
    module: Path
    core: str
    prefix: str


_MAIN = """\
/* {name} on a Cortex-M board: the program helia-aot app writes, the same in every layout.
 *
 * 1. The module's golden self-test: the stored inputs run through the model and every output is
 *    compared with the LiteRT reference's; the last line says "outputs check: pass" or "FAIL".
 * 2. One inference on the application's own context (aot_model_init binds it to the module's
 *    arenas), inputs zeroed: put your own data in ctx.inputs[i].data instead. The cycles of every
 *    operator and their total come from the DWT cycle counter (CYCCNT). QEMU does not model the
 *    counter, so under QEMU the cycles read 0; on a board they are the core's clock cycles.
 * What differs between build systems (printing, the SDK's start-up) is in app_port.h.
 */
#include <stdint.h>
#include <string.h>

#include "app_port.h"
#include "{prefix}_model.h"
#include "{prefix}_test_case.h"

/* Debug Exception and Monitor Control (TRCENA) and the DWT's control and cycle count registers. */
#define APP_DEMCR (*(volatile uint32_t *)0xE000EDFCu)
#define APP_DWT_CTRL (*(volatile uint32_t *)0xE0001000u)
#define APP_DWT_CYCCNT (*(volatile uint32_t *)0xE0001004u)
#define APP_DEMCR_TRCENA (1u << 24)
#define APP_DWT_CTRL_CYCCNTENA 1u

#define APP_NUM_OPERATORS {num_operators}

static const char *const app_operator_names[APP_NUM_OPERATORS] = {{
{operator_names}
}};

{modeled_table}static uint32_t app_started[APP_NUM_OPERATORS];
static uint32_t app_cycles[APP_NUM_OPERATORS];
static {prefix}_model_context_t app_ctx;

static void app_cycle_counter_start(void)
{{
    APP_DEMCR |= APP_DEMCR_TRCENA;
    APP_DWT_CYCCNT = 0u;
    APP_DWT_CTRL |= APP_DWT_CTRL_CYCCNTENA;
}}

/* Called before and after every operator's run: the cycles between the two are the operator's. */
static void app_on_operator(int32_t op, {prefix}_operator_state_t state, int32_t status, void *user_data)
{{
    (void)status;
    (void)user_data;
    if (op < 0 || op >= APP_NUM_OPERATORS) {{
        return;
    }}
    if (state == {prefix}_op_state_run_started) {{
        app_started[op] = APP_DWT_CYCCNT;
    }} else if (state == {prefix}_op_state_run_finished) {{
        app_cycles[op] = APP_DWT_CYCCNT - app_started[op];
    }}
}}

int main(void)
{{
    int32_t failures;
    int32_t status;
    int32_t i;
    uint32_t begin;
    uint32_t total;

    app_port_init();
    app_cycle_counter_start();
    APP_PRINTF("{name}: golden self-test\\n");
    failures = {prefix}_test_case_run();
    APP_PRINTF("{outputs_check}%s\\n", failures == 0 ? "pass" : "FAIL");

    memset(&app_ctx, 0, sizeof(app_ctx));
    app_ctx.callback = app_on_operator;
    status = {prefix}_model_init(&app_ctx);
    if (status != 0) {{
        APP_PRINTF("{prefix}_model_init failed with status %ld\\n", (long)status);
        return 1;
    }}
    for (i = 0; i < {prefix}_num_inputs; ++i) {{
        memset(app_ctx.inputs[i].data, 0, app_ctx.inputs[i].size);
    }}
    begin = APP_DWT_CYCCNT;
    status = {prefix}_model_run(&app_ctx);
    total = APP_DWT_CYCCNT - begin;
    if (status != 0) {{
        APP_PRINTF("{prefix}_model_run failed with status %ld\\n", (long)status);
        return 1;
    }}
{print_table}
    return failures == 0 ? 0 : 1;
}}
"""

PORT_HEADER = """\
/* app_port.h: what main.c needs from the board (written by helia-aot app, plain-CMake layout).
 * Output goes through printf, which board/semihost.c sends over Arm semihosting; retarget it to
 * the board's UART or SWO without a debugger. There is nothing to start before main(). */
#ifndef APP_PORT_H
#define APP_PORT_H

#include <stdio.h>

#define APP_PRINTF(...) printf(__VA_ARGS__)

static inline void app_port_init(void)
{
}

#endif /* APP_PORT_H */
"""

_TOOLCHAIN = """\
# arm-none-eabi.cmake: the GNU Arm Embedded toolchain, bare metal (written by helia-aot app).
# Use: cmake -S . -B build -DCMAKE_TOOLCHAIN_FILE=cmake/arm-none-eabi.cmake
# Another install: -DARM_NONE_EABI_PREFIX=/opt/gcc-arm/bin/arm-none-eabi-
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(ARM_NONE_EABI_PREFIX "arm-none-eabi-" CACHE STRING "Path and prefix of the arm-none-eabi tools")
set(CMAKE_C_COMPILER "${ARM_NONE_EABI_PREFIX}gcc")
set(CMAKE_ASM_COMPILER "${ARM_NONE_EABI_PREFIX}gcc")
# Compiler checks link no program: the startup code and linker script belong to the app.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
"""

_CMAKE = """\
# {name}_app: {name} on a {core_description}, written by helia-aot app.
#   cmake -S . -B build -DCMAKE_TOOLCHAIN_FILE=cmake/arm-none-eabi.cmake
#   cmake --build build
cmake_minimum_required(VERSION 3.13)
project({name}_app LANGUAGES C ASM)

# The core's instruction set; every object, the module's included, is built with it.
set(APP_CPU_FLAGS {cpu_flags})
# The board's startup code and linker script: these run the app on the QEMU board {machine};
# point them at your board's own (for example the AmbiqSuite or neuralSPOT ones) to flash it.
set(APP_STARTUP "${{CMAKE_CURRENT_SOURCE_DIR}}/board/startup.S" CACHE FILEPATH "Startup code")
set(APP_LINKER_SCRIPT "${{CMAKE_CURRENT_SOURCE_DIR}}/board/{linker_script}" CACHE FILEPATH "Linker script")

add_compile_options(${{APP_CPU_FLAGS}} -O2 -Wall -Wextra -Werror -ffunction-sections -fdata-sections)

add_subdirectory(module/{name})
# The self-test prints through {prefix_upper}_PRINTF, silent unless routed to printf.
target_compile_options({name} PRIVATE "-D{prefix_upper}_PRINTF(...)=printf(__VA_ARGS__)")

add_executable({name}_app main.c "${{APP_STARTUP}}" board/semihost.c)
set_target_properties({name}_app PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON SUFFIX ".elf")
target_include_directories({name}_app PRIVATE board)
target_link_libraries({name}_app PRIVATE {name} m)
target_link_options({name}_app PRIVATE
    ${{APP_CPU_FLAGS}}
    --specs=nano.specs
    -nostartfiles
    -u _printf_float
    -Wl,--gc-sections
    -Wl,--no-warn-rwx-segments
    "-L${{CMAKE_CURRENT_SOURCE_DIR}}/board"
    "-T${{APP_LINKER_SCRIPT}}"
    "-Wl,-Map=${{CMAKE_CURRENT_BINARY_DIR}}/{name}_app.map"
)
"""

_README = """\
# {name} on a {core_description}

Written by `helia-aot app` for platform `{platform}`: the module in `module/{name}/` (converted
with its golden self-test), `main.c`, the board runtime in `board/` and a plain CMake project.

## Build

    cmake -S . -B build -DCMAKE_TOOLCHAIN_FILE=cmake/arm-none-eabi.cmake
    cmake --build build

The image is `build/{name}_app.elf` (with `build/{name}_app.map`).

## Run under QEMU

    qemu-system-arm -M {machine} -nographic -monitor none -serial null \\
        -semihosting-config enable=on,target=native -kernel build/{name}_app.elf

The program prints the self-test's verdict per output, `outputs check: pass` (or `FAIL`), then
the cycles of every operator of one inference and their total. The cycles come from the DWT cycle
counter (`DWT->CYCCNT`), which QEMU does not model: under QEMU they read 0. `helia-aot profile`
gives modeled cycles per operator for the same module.

## Run on a board

`board/` holds the startup code and linker script of the QEMU board `{machine}`, and output goes
through Arm semihosting (it reaches a debugger's console, for example through a J-Link or
pyOCD semihosting session). To flash the board, set `APP_STARTUP` and `APP_LINKER_SCRIPT`
(`cmake -DAPP_LINKER_SCRIPT=...`) to your board's own and retarget `printf` to its UART or SWO;
the cycle counts are then the core's clock cycles.
"""


LABEL_WIDTH = 48
"""The widest operator label main.c prints: tensor names of converted Keras models run to hundreds
of characters, and a label longer than this is cut, ending in ``...``."""


def operator_label(op_type: str, ident: str) -> str:
    """The label of an operator in main.c's cycle table: its type and output tensor, cut to fit."""
    label = f"{op_type} {ident}"
    return label if len(label) <= LABEL_WIDTH else label[: LABEL_WIDTH - 3] + "..."


def _c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


_PLAIN_TABLE = """\
    APP_PRINTF("cycles per operator (DWT CYCCNT; 0 under QEMU, which does not count cycles):\\n");
    for (i = 0; i < APP_NUM_OPERATORS; ++i) {{
        APP_PRINTF("  %3ld %-{label_width}s %10lu\\n", (long)i, app_operator_names[i],
                   (unsigned long)app_cycles[i]);
    }}
    APP_PRINTF("total cycles: %lu\\n", (unsigned long)total);"""

_MODELED_TABLE = """\
    APP_PRINTF("cycles per operator: DWT CYCCNT (0 under QEMU, which does not count cycles), then as "
               "modeled by helia-aot for {platform} at {clock} MHz:\\n");
    for (i = 0; i < APP_NUM_OPERATORS; ++i) {{
        APP_PRINTF("  %3ld %-{label_width}s %10lu %10lu\\n", (long)i, app_operator_names[i],
                   (unsigned long)app_cycles[i], (unsigned long)app_modeled_cycles[i]);
    }}
    APP_PRINTF("total cycles: %lu (modeled: %lu)\\n", (unsigned long)total,
               (unsigned long)APP_MODELED_TOTAL);"""


@dataclass(frozen=True, slots=True)
class ModeledCycles:
    """The cycles ``helia-aot profile`` models for one inference: per operator in execution order,
    their total with the runtime's, and the platform and clock they were modeled for."""

    operators: tuple[int, ...]
    total: int
    platform: str
    clock_mhz: float


def modeled_from_profile(report: Any) -> ModeledCycles:
    """The modeled cycles of a :class:`helia_aot.testing.profiling.ModuleProfile`."""
    operators = tuple(op.cycles for op in sorted(report.operators, key=lambda op: op.index))
    return ModeledCycles(operators, report.total_cycles, report.platform, report.clock_mhz)


def main_source(plan: Any, name: str, modeled: ModeledCycles | None = None) -> str:
    """The app's ``main.c`` for the module of ``plan`` (named ``name``), with the modeled cycles
    printed beside the measured ones when ``modeled`` is given."""
    prefix = plan.module_prefix
    operators = sorted(plan.operators, key=lambda op: op.index)
    names = [_c_string(operator_label(op.op_type, op.id)) for op in operators] or ['"(none)"']
    modeled_table = ""
    print_table = _PLAIN_TABLE.format(label_width=LABEL_WIDTH)
    if modeled is not None:
        values = ", ".join(f"{cycles}u" for cycles in modeled.operators) or "0u"
        modeled_table = (
            f"/* Cycles modeled by helia-aot (helia-aot profile) for {modeled.platform} at "
            f"{modeled.clock_mhz:g} MHz. */\n"
            f"static const uint32_t app_modeled_cycles[APP_NUM_OPERATORS] = {{{values}}};\n"
            f"#define APP_MODELED_TOTAL {modeled.total}u\n\n"
        )
        print_table = _MODELED_TABLE.format(
            label_width=LABEL_WIDTH, platform=modeled.platform, clock=f"{modeled.clock_mhz:g}"
        )
    return _MAIN.format(
        modeled_table=modeled_table,
        print_table=print_table,
        name=name,
        prefix=prefix,
        num_operators=max(len(operators), 1),
        operator_names="\n".join(f"    {text}," for text in names),
        outputs_check=OUTPUTS_CHECK_LINE,
        label_width=LABEL_WIDTH,
    )


def write_board_app(
    app_dir: Path,
    module_dir: Path,
    plan: Any,
    core: str,
    platform: str,
    modeled: ModeledCycles | None = None,
    layout: str = "cmake",
) -> BoardApp:
    """Write the application of ``layout`` around ``module_dir`` (already inside
    ``app_dir/module/``, converted with the layout's :data:`MODULE_TYPES`) for ``core`` (``m55`` or
    ``m4``). With ``modeled``, main.c prints those cycles beside the DWT counter's."""
    if layout not in LAYOUTS:
        raise ValueError(f"unknown app layout {layout!r}; one of {', '.join(LAYOUTS)}")
    app_dir, module_dir = Path(app_dir), Path(module_dir)
    spec = CORES[core]
    main_c = main_source(plan, module_dir.name, modeled)
    if layout == "neuralspot":
        from helia_aot.testing.app_neuralspot import write_neuralspot_app

        write_neuralspot_app(app_dir, module_dir, main_c, platform, spec.description, plan.module_prefix)
    elif layout == "zephyr":
        from helia_aot.testing.app_zephyr import write_zephyr_app

        write_zephyr_app(app_dir, module_dir, main_c, platform, spec.description)
    else:
        _write_cmake_app(app_dir, module_dir, main_c, plan.module_prefix, core, platform)
    marker = f"helia-aot app: {module_dir.name} for {platform} ({core}, {layout} layout)\n"
    (app_dir / APP_MARKER).write_text(marker, encoding="utf-8")
    return BoardApp(app_dir, module_dir, core, plan.module_prefix)


def _write_cmake_app(
    app_dir: Path, module_dir: Path, main_c: str, prefix: str, core: str, platform: str
) -> None:
    """The plain-CMake layout: main.c, app_port.h, board/, the toolchain file, CMakeLists.txt and
    README.md."""
    spec = CORES[core]
    name = module_dir.name
    board = app_dir / "board"
    board.mkdir(parents=True, exist_ok=True)
    for file in (*BOARD_FILES, spec.linker_script):
        shutil.copyfile(TARGET_DIR / file, board / file)
    (app_dir / "cmake").mkdir(exist_ok=True)
    (app_dir / "cmake" / "arm-none-eabi.cmake").write_text(_TOOLCHAIN, encoding="utf-8")
    (app_dir / "main.c").write_text(main_c, encoding="utf-8")
    (app_dir / "app_port.h").write_text(PORT_HEADER, encoding="utf-8")
    fields = {
        "name": name,
        "prefix_upper": prefix.upper(),
        "core_description": spec.description,
        "cpu_flags": " ".join(spec.cpu_flags),
        "machine": spec.machine,
        "linker_script": spec.linker_script,
        "platform": platform,
    }
    (app_dir / "CMakeLists.txt").write_text(_CMAKE.format(**fields), encoding="utf-8")
    (app_dir / "README.md").write_text(_README.format(**fields), encoding="utf-8")
