"""The contract between the emitter and a build-system exporter.

The emitter writes the same C tree for every ``module.type``; an exporter then adds the files one
build system needs to consume it (a CMake target, a Zephyr module, an NSX module, a CMSIS pack
description) and the integration steps the module's README shows. Exporters are registered in
``RegistryContext.module_exporters`` under the ``module.type`` they serve, through the same
``helia_aot_register`` hook as operators, so a plugin can replace one.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from helia_aot.air import c_comment, c_identifier
from helia_aot.codegen import render_template
from helia_aot.platforms.compiler_flags import cpu_compiler_flags

if TYPE_CHECKING:
    from helia_aot.platforms.model import SocPlatform

_PLAIN_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")
_TARGET_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")


@dataclass(frozen=True, slots=True)
class ModuleLayout:
    """What an exporter knows about a finished module tree (every path relative to ``root``).

    ``sources`` are the C files to compile, ``headers`` every header shipped; the public include
    directory is ``includes-api`` and the private ones ``src`` and ``src/kernels``.
    """

    root: Path
    name: str
    prefix: str
    model_name: str
    platform_name: str
    cpu: str
    plan_hash: str
    version: str
    sources: tuple[str, ...]
    headers: tuple[str, ...]
    public_include_dirs: tuple[str, ...] = ("includes-api",)
    private_include_dirs: tuple[str, ...] = ("src", "src/kernels")

    @property
    def target(self) -> str:
        """The build target / package name: ``module.name`` itself, as the product names it
        (``KWS_Mod`` stays ``KWS_Mod``); a name CMake cannot take becomes an identifier."""
        if _TARGET_NAME.match(self.name):
            return self.name
        return c_identifier(self.name, max_length=64, fallback="module")

    @property
    def config_symbol(self) -> str:
        """The Kconfig symbol of the module: the target upper-cased (``ZEP_MOD``)."""
        return re.sub(r"[^A-Za-z0-9_]", "_", self.target).upper()

    @property
    def folder(self) -> str:
        """The module folder as build files and instructions may spell it: the module name when
        it is plain (letters, digits, ``_ . -``), else a placeholder the reader replaces."""
        return self.name if _PLAIN_NAME.match(self.name) else "path/to/module"

    @property
    def name_comment(self) -> str:
        """The module name, safe inside a one-line comment of any build language."""
        return c_comment(self.name).replace('"', "'").replace("#", "")

    @property
    def model_comment(self) -> str:
        """The model's name, safe inside a one-line comment of any build language."""
        return c_comment(self.model_name).replace('"', "'").replace("#", "")

    @property
    def cpu_flags(self) -> tuple[str, ...]:
        """arm-none-eabi-gcc flags selecting the platform's core (``()`` for an unknown CPU)."""
        return cpu_compiler_flags(self.cpu)

    @property
    def source_globs(self) -> tuple[str, ...]:
        """One ``<folder>/*.c`` shell pattern per folder holding sources, relative to the root."""
        folders = sorted({str(Path(source).parent.as_posix()) for source in self.sources})
        return tuple(f"{folder}/*.c" for folder in folders)

    @property
    def existing_include_dirs(self) -> tuple[str, ...]:
        """Private include directories the tree actually has (``src/kernels`` only with kernels)."""
        return tuple(d for d in self.private_include_dirs if (self.root / d).is_dir())

    @classmethod
    def scan(
        cls,
        root: Path,
        *,
        name: str,
        prefix: str,
        model_name: str,
        platform: SocPlatform,
        plan_hash: str,
        version: str,
    ) -> ModuleLayout:
        """Describe the tree under ``root`` once the C is written."""
        root = Path(root)
        return cls(
            root=root,
            name=name,
            prefix=prefix,
            model_name=model_name,
            platform_name=platform.name,
            cpu=platform.cpu,
            plan_hash=plan_hash,
            version=version,
            sources=tuple(sorted(_named(root, "src", ".c", deep=True))),
            headers=tuple(
                sorted(
                    [*_named(root, "includes-api", ".h", deep=False), *_named(root, "src", ".h", deep=True)]
                )
            ),
        )


def _named(root: Path, folder: str, suffix: str, *, deep: bool) -> list[str]:
    """The ``/``-separated paths relative to ``root`` of the entries of ``root/folder`` (and of its
    sub-folders when ``deep``) whose names end in ``suffix``: ``glob("*<suffix>")`` (``rglob``
    when deep) without a path object per file, which over a thousand operators' files cost more
    than the listing itself."""
    found: list[str] = []
    for directory, dirs, files in os.walk(root / folder):
        prefix = os.path.relpath(directory, root).replace(os.sep, "/") + "/"
        found.extend(prefix + name for name in (*dirs, *files) if name.endswith(suffix))
        if not deep:
            break
    return found


class ModuleExporter:
    """Writes one build system's files into a module tree.

    Subclasses set ``TYPE`` (the ``module.type`` value) and ``TITLE``, and implement ``write``
    (returns the paths it wrote, relative to the module root) and ``integration`` (Markdown for the
    README's integration section).
    """

    TYPE: ClassVar[str] = ""
    TITLE: ClassVar[str] = ""
    PLATFORM_HOOKS: ClassVar[str | None] = None
    """Template (``helia_aot/templates``) of the C lines this build system adds to
    ``<prefix>_platform.h`` (its logging and placement hooks), or None: Emit asks the exporter
    (``platform_hooks``) and never names a module type itself."""

    def platform_hooks(self, prefix: str) -> str:
        """The C text this build system adds to ``<prefix>_platform.h`` ("" for none)."""
        if self.PLATFORM_HOOKS is None:
            return ""
        return render_template(self.PLATFORM_HOOKS, PREFIX=prefix.upper())

    def write(self, layout: ModuleLayout) -> list[str]:
        raise NotImplementedError(f"{type(self).__name__} does not implement write()")

    def integration(self, layout: ModuleLayout) -> str:
        raise NotImplementedError(f"{type(self).__name__} does not implement integration()")

    # -- helpers for subclasses ----------------------------------------------------------------
    @staticmethod
    def write_text(layout: ModuleLayout, relative: str, text: str) -> str:
        path = layout.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
        return relative

    @staticmethod
    def render(template: str, layout: ModuleLayout, **values: Any) -> str:
        return render_template(template, layout=layout, PREFIX=layout.prefix.upper(), **values)


__all__ = ["ModuleExporter", "ModuleLayout"]
