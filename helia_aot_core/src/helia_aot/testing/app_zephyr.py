"""The Zephyr layout of ``helia-aot app`` (``--app.layout zephyr``): a west application folder.

A Zephyr application is a folder with ``CMakeLists.txt`` (``find_package(Zephyr)`` then the
sources of the ``app`` target), ``prj.conf`` (its Kconfig choices) and ``src/``. The module goes
in as what ``module.type: zephyr`` makes of it, a Zephyr module: the app lists it in
``ZEPHYR_EXTRA_MODULES`` before ``find_package``, and ``prj.conf`` turns on its Kconfig option, so
Zephyr builds it as a library of its own and links it into the app. ``src/main.c`` is the same
program as the plain-CMake layout's; ``src/app_port.h`` routes its output to ``printk``.

Nothing here needs Zephyr installed: the files are text, and the tests build ``src/main.c`` with
the module's sources against a stub of the two Zephyr headers the port includes.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["PORT_HEADER", "kconfig_option", "write_zephyr_app"]

PORT_HEADER = """\
/* app_port.h: what main.c needs from Zephyr (written by helia-aot app, Zephyr layout).
 * Output goes through printk, to the board's console; Zephyr's kernel has started the core before
 * main() runs, so there is nothing more to start. main.c reads the DWT cycle counter itself. */
#ifndef APP_PORT_H
#define APP_PORT_H

#include <zephyr/kernel.h>
#include <zephyr/sys/printk.h>

#define APP_PRINTF(...) printk(__VA_ARGS__)

static inline void app_port_init(void)
{
}

#endif /* APP_PORT_H */
"""

_CMAKE = """\
# {app_name}: {name} on a Zephyr board, written by helia-aot app (Zephyr layout).
#   west build -b <board> {folder}
# The helia-aot module is a Zephyr module (module/{name}/zephyr/module.yml): listed here, it is
# built as a library of its own when prj.conf sets CONFIG_{symbol}=y, and linked into the app.
cmake_minimum_required(VERSION 3.20.0)

list(APPEND ZEPHYR_EXTRA_MODULES "${{CMAKE_CURRENT_SOURCE_DIR}}/module/{name}")

find_package(Zephyr REQUIRED HINTS $ENV{{ZEPHYR_BASE}})
project({app_name} LANGUAGES C)

target_sources(app PRIVATE src/main.c)
"""

_PRJ_CONF = """\
# {app_name}: Kconfig of the application (written by helia-aot app, Zephyr layout).
# The helia-aot module {name}, built and linked into the app:
CONFIG_{symbol}=y
# main.c and the module's self-test print through printk:
CONFIG_PRINTK=y
# The self-test and the cycle table run in main(); the module's arenas are static, not on the stack.
CONFIG_MAIN_STACK_SIZE=4096
# Float operators and the Cortex-M FPU:
CONFIG_FPU=y
"""

_README = """\
# {name} on a Zephyr board

Written by `helia-aot app` for platform `{platform}` ({core_description}): a Zephyr application
with the module in `module/{name}/` (a Zephyr module, converted with its golden self-test),
`src/main.c`, `prj.conf` and `CMakeLists.txt`.

## Build and flash

From a west workspace (`ZEPHYR_BASE` set, the Zephyr SDK installed), with the Zephyr name of your
board:

    west build -b <board> {folder}
    west flash

`CMakeLists.txt` adds `module/{name}` to `ZEPHYR_EXTRA_MODULES`, and `prj.conf` sets
`CONFIG_{symbol}=y`, which builds the module as a library and links it into the app.

## What it prints

On the board's console (`printk`): the self-test's verdict per output, `outputs check: pass` (or
`FAIL`), then the cycles of every operator of one inference and their total, read from the
core's DWT cycle counter (`DWT->CYCCNT`). `helia-aot profile` gives the modeled cycles per
operator for the same module.
"""


def kconfig_option(module_dir: Path) -> str:
    """The Kconfig option that builds the module, as its own ``zephyr/Kconfig`` declares it."""
    kconfig = (Path(module_dir) / "zephyr" / "Kconfig").read_text(encoding="utf-8")
    match = re.search(r"^menuconfig (\w+)$", kconfig, re.MULTILINE)
    if match is None:  # the exporter always writes one; a replaced exporter might not
        raise ValueError(f"{module_dir}/zephyr/Kconfig declares no menuconfig option for the module")
    return match.group(1)


def write_zephyr_app(
    app_dir: Path, module_dir: Path, main_c: str, platform: str, core_description: str
) -> list[Path]:
    """Write the Zephyr application around ``module_dir`` (``app_dir/module/<name>``, converted
    with ``module.type: zephyr``); returns the files written."""
    name = module_dir.name
    fields = {
        "name": name,
        "app_name": f"{name}_app",
        "folder": app_dir.name,
        "symbol": kconfig_option(module_dir),
        "platform": platform,
        "core_description": core_description,
    }
    (app_dir / "src").mkdir(parents=True, exist_ok=True)
    files = {
        "src/main.c": main_c,
        "src/app_port.h": PORT_HEADER,
        "CMakeLists.txt": _CMAKE.format(**fields),
        "prj.conf": _PRJ_CONF.format(**fields),
        "README.md": _README.format(**fields),
    }
    for relative, text in files.items():
        (app_dir / relative).write_text(text, encoding="utf-8")
    return [app_dir / relative for relative in files]
