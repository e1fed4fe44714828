"""``module.type: zephyr``: a Zephyr module (``zephyr/module.yml``, ``Kconfig``, ``CMakeLists.txt``)."""

from __future__ import annotations

from helia_aot.exporters.base import ModuleExporter, ModuleLayout


def kconfig_symbol(layout: ModuleLayout) -> str:
    """The Kconfig option that builds the module: ``module.name`` upper-cased (``ZEP_MOD``), as the
    product's module has it, so ``CONFIG_ZEP_MOD=y`` in a prj.conf written for it works."""
    return layout.config_symbol


def legacy_kconfig_symbol(layout: ModuleLayout) -> str:
    """The option earlier helia-aot modules used, ``HELIA_AOT_<TARGET>``: still accepted."""
    return f"HELIA_AOT_{layout.config_symbol}"


class ZephyrExporter(ModuleExporter):
    """A Zephyr module whose library builds when ``CONFIG_<NAME>=y`` (or ``CONFIG_HELIA_AOT_<NAME>=y``).

    Zephyr finds the module through ``ZEPHYR_EXTRA_MODULES`` (or a west manifest entry); the
    ``zephyr/`` folder holds everything Zephyr reads, and the sources stay where every module type
    keeps them.
    """

    TYPE = "zephyr"
    TITLE = "Zephyr"
    PLATFORM_HOOKS = "zephyr.platform.h.mako"

    def write(self, layout: ModuleLayout) -> list[str]:
        import yaml  # only when this module type is chosen

        manifest = {
            "name": layout.target,
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
                self.render(
                    "zephyr.Kconfig.mako",
                    layout,
                    symbol=kconfig_symbol(layout),
                    legacy=legacy_kconfig_symbol(layout),
                ),
            ),
            self.write_text(
                layout,
                "zephyr/CMakeLists.txt",
                self.render(
                    "zephyr.CMakeLists.txt.mako",
                    layout,
                    symbol=kconfig_symbol(layout),
                    legacy=legacy_kconfig_symbol(layout),
                ),
            ),
        ]

    def integration(self, layout: ModuleLayout) -> str:
        return self.render("zephyr.integration.md.mako", layout, symbol=kconfig_symbol(layout))


__all__ = ["ZephyrExporter", "kconfig_symbol", "legacy_kconfig_symbol"]
