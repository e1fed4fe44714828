"""The neuralSPOT layout of ``helia-aot app`` (``--app.layout neuralspot``): an ``apps/<name>`` folder.

neuralSPOT builds every module from a ``module.mk`` fragment that its top-level Makefile includes:
an application's fragment names the app (``local_app_name``), adds its ``src/`` sources and asks
for the ``.axf``/``.bin`` (``make-axf``); a library's fragment adds its public ``includes-api/``
to ``includes_api`` and archives its sources (``make-library``). ``$(subdirectory)`` is the folder
of the fragment being read. The app written here has both:

- ``module.mk`` and ``src/<app>.c`` (the same program as the plain-CMake layout's ``main.c``),
  ``src/app_port.h`` (neuralSPOT's start-up and ``ns_lp_printf``);
- ``module/<name>/module.mk``: the helia-aot module as a neuralSPOT library (it already has the
  ``src/`` and ``includes-api/`` folders a library module has), included by the app's fragment.
  Its objects get the module's private include folders and its self-test's print hook through
  target-specific ``CFLAGS``, so nothing leaks into the rest of the build.

Nothing here needs neuralSPOT: the tests read the fragments with a stub of neuralSPOT's make
helpers and build everything with gcc and arm-none-eabi-gcc against stub SDK headers.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["PORT_HEADER", "app_name_for", "write_neuralspot_app"]

PORT_HEADER = """\
/* app_port.h: what main.c needs from neuralSPOT (written by helia-aot app, neuralSPOT layout).
 * neuralSPOT discards printf, so output goes through ns_lp_printf (ITM/SWO once
 * ns_itm_printf_enable has run; call ns_uart_printf_enable instead for the UART). main.c reads the
 * DWT cycle counter itself. */
#ifndef APP_PORT_H
#define APP_PORT_H

#include "ns_ambiqsuite_harness.h"
#include "ns_core.h"
#include "ns_peripherals_power.h"

#define APP_PRINTF(...) ns_lp_printf(__VA_ARGS__)

static inline void app_port_init(void)
{
    static ns_core_config_t app_core_config = {.api = &ns_core_V1_0_0};

    (void)ns_core_init(&app_core_config);
    (void)ns_power_config(&ns_development_default);
    ns_itm_printf_enable();
}

#endif /* APP_PORT_H */
"""

_APP_MK = """\
# {app_name}: {name} on a neuralSPOT board, written by helia-aot app (neuralSPOT layout).
# Put this folder at neuralSPOT/apps/{app_name}, then from neuralSPOT's root:
#   make PLATFORM={platform} EXAMPLE={app_name}
#   make PLATFORM={platform} EXAMPLE={app_name} deploy
local_app_dir := $(subdirectory)

# The helia-aot module, a neuralSPOT library of its own; read first, since it sets the local_ names.
include $(local_app_dir)/module/{name}/module.mk

local_app_name := {app_name}
local_src := $(wildcard $(local_app_dir)/src/*.c)
local_bin := $(BINDIR)/$(local_app_dir)

bindirs   += $(local_bin)
examples  += $(local_bin)/$(local_app_name).axf
examples  += $(local_bin)/$(local_app_name).bin
mains     += $(local_bin)/src/$(local_app_name).o

$(eval $(call make-axf, $(local_bin)/$(local_app_name), $(local_src)))
"""

_MODULE_MK = """\
# The helia-aot module {name} as a neuralSPOT library module (written by helia-aot app).
local_src :=
{sources}

includes_api += $(subdirectory)/includes-api

# Private to the module's objects (eval expands $(subdirectory) now, while it names this folder):
# its own include folders, its self-test printing through ns_lp_printf (neuralSPOT discards
# printf), and IEEE float arithmetic, which the module's float operators are checked with
# (neuralSPOT's CFLAGS have -ffast-math).
local_objects := $(call source-to-object,$(local_src))
$(eval $(local_objects): CFLAGS += {private_includes} -fno-fast-math)
$(eval $(local_objects): CFLAGS += -include ns_ambiqsuite_harness.h)
$(eval $(local_objects): CFLAGS += '-D{prefix_upper}_PRINTF(...)=ns_lp_printf(__VA_ARGS__)')

local_bin := $(BINDIR)/$(subdirectory)
bindirs   += $(local_bin)
$(eval $(call make-library, $(local_bin)/{name}.a, $(local_src)))
"""

_README = """\
# {name} on a neuralSPOT board

Written by `helia-aot app` for platform `{platform}` ({core_description}): a neuralSPOT
application `{app_name}` with the module in `module/{name}/` (converted with its golden
self-test, built as a neuralSPOT library by its `module.mk`), `src/{app_name}.c` and `module.mk`.

## Build and flash

Put this folder at `apps/{app_name}` in a neuralSPOT checkout, then from neuralSPOT's root:

    make PLATFORM={platform} EXAMPLE={app_name}
    make PLATFORM={platform} EXAMPLE={app_name} deploy

## What it prints

Over ITM/SWO (`ns_lp_printf`; see `src/app_port.h` for the UART): the self-test's verdict per
output, `outputs check: pass` (or `FAIL`), then the cycles of every operator of one inference and
their total, read from the core's DWT cycle counter (`DWT->CYCCNT`). `helia-aot profile` gives
the modeled cycles per operator for the same module.
"""

_PLAIN_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def app_name_for(app_dir: Path, module_name: str) -> str:
    """The neuralSPOT app's name: the folder's, so that ``EXAMPLE=<folder>`` finds its binary
    (neuralSPOT's ``deploy`` looks for the ``.bin`` named like the folder), unless the folder's
    name is not a plain identifier; then ``<module>_app``."""
    return app_dir.name if _PLAIN_NAME.match(app_dir.name) else f"{module_name}_app"


def module_sources(module_dir: Path) -> list[str]:
    """The module's C sources, relative to its folder, in a fixed order."""
    return sorted(path.relative_to(module_dir).as_posix() for path in (module_dir / "src").rglob("*.c"))


def write_neuralspot_app(
    app_dir: Path, module_dir: Path, main_c: str, platform: str, core_description: str, prefix: str
) -> list[Path]:
    """Write the neuralSPOT application around ``module_dir`` (``app_dir/module/<name>``);
    returns the files written."""
    name = module_dir.name
    app_name = app_name_for(app_dir, name)
    include_dirs = [
        "src",
        *sorted(p.relative_to(module_dir).as_posix() for p in (module_dir / "src").iterdir() if p.is_dir()),
    ]
    fields = {
        "name": name,
        "app_name": app_name,
        "platform": platform,
        "core_description": core_description,
        "prefix_upper": prefix.upper(),
        "sources": "\n".join(
            f"local_src += $(subdirectory)/{source}" for source in module_sources(module_dir)
        ),
        "private_includes": " ".join(f"-I$(subdirectory)/{folder}" for folder in include_dirs),
    }
    (app_dir / "src").mkdir(parents=True, exist_ok=True)
    files = {
        f"src/{app_name}.c": main_c,
        "src/app_port.h": PORT_HEADER,
        "module.mk": _APP_MK.format(**fields),
        f"module/{name}/module.mk": _MODULE_MK.format(**fields),
        "README.md": _README.format(**fields),
    }
    for relative, text in files.items():
        (app_dir / relative).write_text(text, encoding="utf-8")
    return [app_dir / relative for relative in files]
