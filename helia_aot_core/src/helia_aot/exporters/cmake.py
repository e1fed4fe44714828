"""``module.type: cmake``: a static library target for any CMake project."""

from __future__ import annotations

from helia_aot.exporters.base import ModuleExporter, ModuleLayout


class CMakeExporter(ModuleExporter):
    """A ``CMakeLists.txt`` defining the static library ``<target>`` (alias ``helia_aot::<target>``).

    The file works both as a top-level project and through ``add_subdirectory``, so a host test
    and a firmware build consume the same tree.
    """

    TYPE = "cmake"
    TITLE = "CMake"

    def write(self, layout: ModuleLayout) -> list[str]:
        return [self.write_text(layout, "CMakeLists.txt", self.render("cmake.CMakeLists.txt.mako", layout))]

    def integration(self, layout: ModuleLayout) -> str:
        return self.render("cmake.integration.md.mako", layout)


__all__ = ["CMakeExporter"]
