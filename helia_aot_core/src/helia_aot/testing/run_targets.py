"""Where a module runs for ``helia-aot test`` and ``validate``: the host, or a core under QEMU.

Both commands check the tools before converting (a missing compiler fails fast, exit code 2),
refuse a QEMU core that is not the platform's, and quote the compiler's last lines when a build
fails; these are the one copy of those rules.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import Any

from helia_aot.errors import InvalidConfigError, ToolMissingError

TARGETS = ("host", "m55", "m4")
"""Where a module runs: the host, or a Cortex-M55 / Cortex-M4 emulated by QEMU."""


def _tool_missing(tools: list[str], target: str, command: str) -> ToolMissingError:
    if target == "host":
        hint = "install a C compiler (Debian/Ubuntu: sudo apt-get install gcc) or set CC to one"
    else:
        hint = (
            "run scripts/setup.sh or scripts/install_cross_toolchain.sh from a helia-aot checkout, or "
            "sudo apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm"
        )
    return ToolMissingError(
        f"helia-aot {command} --target {target} needs {', '.join(tools)}, which is not on PATH", hint=hint
    )


def check_tools(target: str, command: str = "test") -> None:
    """Raise ToolMissingError naming what is missing for ``target`` (before any conversion work);
    ``command`` is the helia-aot command the message names."""
    if target == "host":
        cc = os.environ.get("CC", "gcc")
        if shutil.which(cc) is None:
            raise _tool_missing([cc], target, command)
        return
    from helia_aot.testing import cross

    missing = [tool for tool in (f"{cross.CROSS_PREFIX}gcc", cross.QEMU) if shutil.which(tool) is None]
    if missing:
        raise _tool_missing(missing, target, command)
    libc = subprocess.run(
        [f"{cross.CROSS_PREFIX}gcc", "--specs=nano.specs", "-print-file-name=libc_nano.a"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    if not os.path.isabs(libc):
        raise _tool_missing(["newlib-nano for arm-none-eabi (libnewlib-arm-none-eabi)"], target, command)


def compiler_output(error: subprocess.CalledProcessError) -> str:
    """The tail of a failed compile's diagnostics, for an error message."""
    text = f"{error.stderr or ''}{error.output or ''}".strip()
    return text[-4000:]


_TARGET_CPU = {"m55": "cortex-m55", "m4": "cortex-m4"}


def refuse_foreign_core(plan: Any, target: str) -> None:
    """Refuse a QEMU target whose core is not the platform's: the module was planned for the
    platform's core (its kernels, memories and cycle model), so a run on another core tests a
    module the platform would never receive, and a PASS there would say nothing about it."""
    wanted = _TARGET_CPU.get(target)
    cpu = str(plan.platform.cpu).lower()
    if wanted is None or wanted == cpu:
        return
    other = next((name for name, core in _TARGET_CPU.items() if core == cpu), None)
    raise InvalidConfigError(
        f"--target {target} runs a {wanted}, but platform {plan.platform.name} has a {cpu}",
        hint=(f"use --target {other}, or " if other else "")
        + f"choose a {wanted} platform with --platform.name (helia-aot platforms list names them)",
    )


__all__ = ["TARGETS", "check_tools", "compiler_output", "refuse_foreign_core"]
