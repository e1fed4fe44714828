"""``module.type: zephyr``: a Zephyr module (``zephyr/module.yml``, ``Kconfig``, ``CMakeLists.txt``)."""

from __future__ import annotations

import yaml

from helia_aot.exporters.base import ModuleExporter, ModuleLayout


def kconfig_symbol(layout: ModuleLayout) -> str:
    """The Kconfig option that builds the module: ``HELIA_AOT_<TARGET>``."""
    return f"HELIA_AOT_{layout.target.upper()}"


class ZephyrExporter(ModuleExporter):
    """A Zephyr module whose library builds when ``CONFIG_HELIA_AOT_<TARGET>=y``.

    Zephyr finds the module through ``ZEPHYR_EXTRA_MODULES`` (or a west manifest entry); the
    ``zephyr/`` folder holds everything Zephyr reads, and the sources stay where every module type
    keeps them.
    """

    TYPE = "zephyr"
    TITLE = "Zephyr"

    def write(self, layout: ModuleLayout) -> list[str]:
        manifest = {
            "name": layout.target.replace("_", "-"),
            "build": {"cmake": "zephyr", "kconfig": "zephyr/Kconfig"},
        }
        header = (
            f"# Zephyr module manifest of helia-aot module {layout.name_comment} ({layout.model_comment}).\n"
        )
        return [
            self.write_text(
                layout,
                "zephyr/module.yml",
                header + yaml.safe_dump(manifest, sort_keys=False, default_flow_style=False),
            ),
            self.write_text(
                layout,
                "zephyr/Kconfig",
                self.render("zephyr.Kconfig.mako", layout, symbol=kconfig_symbol(layout)),
            ),
            self.write_text(
                layout,
                "zephyr/CMakeLists.txt",
                self.render("zephyr.CMakeLists.txt.mako", layout, symbol=kconfig_symbol(layout)),
            ),
        ]

    def integration(self, layout: ModuleLayout) -> str:
        return self.render("zephyr.integration.md.mako", layout, symbol=kconfig_symbol(layout))


__all__ = ["ZephyrExporter", "kconfig_symbol"]
