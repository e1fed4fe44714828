"""Split a linked image's bytes by owner: how much of the firmware the generated module itself is.

``cross_build_module`` compiles the module's sources into ``obj/module/`` and links with a map
file (``firmware.map``); the map lists every input section that survived ``--gc-sections`` with
its size and object file, so summing the module's objects per output section gives the module's
code, constants, initialised data and zeroed data without the runtime, ``main`` or C library.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class ModuleSize:
    """Linked bytes of the module's own objects (after --gc-sections), by kind."""

    text: int
    rodata: int
    data: int
    bss: int

    @property
    def flash(self) -> int:
        """Code plus constants (weights, tables)."""
        return self.text + self.rodata

    @property
    def ram(self) -> int:
        """Initialised plus zeroed data, activation arenas included."""
        return self.data + self.bss


_KIND_OF_OUTPUT = {
    ".text": "text",
    ".rodata": "rodata",
    ".ARM.extab": "rodata",
    ".ARM.exidx": "rodata",
    ".data": "data",
    ".bss": "bss",
}
_INPUT_SECTION = re.compile(r"^ (\S+)(?:\s+0x([0-9a-fA-F]+)\s+0x([0-9a-fA-F]+)\s+(\S.*))?$")
_CONTINUATION = re.compile(r"^\s+0x([0-9a-fA-F]+)\s+0x([0-9a-fA-F]+)\s+(\S.*)$")


def module_size(elf: Path, *, exclude: Sequence[str] = ("_test_case.o",)) -> ModuleSize:
    """Bytes the module's own objects occupy in the linked image, from ``firmware.map``.

    Counts objects built into ``obj/module/`` by cross_build_module, leaving out the runtime,
    ``main``, library code and, by default, the golden test (objects ending in ``exclude``).
    Library functions the module pulls in (memcpy, expf, ...) are not included.
    """
    elf = Path(elf).resolve()
    module_objects = str(elf.parent / "obj" / "module") + os.sep
    sizes = {"text": 0, "rodata": 0, "data": 0, "bss": 0}
    kind: str | None = None
    pending = False
    in_map = False

    def add(size_hex: str, path: str) -> None:
        path = path.strip()
        if kind is not None and path.startswith(module_objects) and not path.endswith(tuple(exclude)):
            sizes[kind] += int(size_hex, 16)

    for line in elf.with_suffix(".map").read_text().splitlines():
        if not in_map:
            in_map = line.startswith("Linker script and memory map")
            continue
        if line.startswith("."):  # an output section
            kind = _KIND_OF_OUTPUT.get(line.split()[0])
            pending = False
            continue
        if pending:
            pending = False
            cont = _CONTINUATION.match(line)
            if cont:
                add(cont.group(2), cont.group(3))
                continue
        entry = _INPUT_SECTION.match(line)
        if entry and entry.group(1) != "*fill*" and not entry.group(1).startswith("*"):
            if entry.group(2) is None:
                pending = True  # a long section name: address, size and file follow on the next line
            else:
                add(entry.group(3), entry.group(4))
    return ModuleSize(**sizes)
