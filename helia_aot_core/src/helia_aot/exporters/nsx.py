"""``module.type: nsx``: a neuralSPOT-X module (``nsx-module.yaml`` plus its ``CMakeLists.txt``)."""

from __future__ import annotations

from typing import Any

from helia_aot.exporters.base import ModuleExporter, ModuleLayout

NSX_SCHEMA_VERSION = 1
"""The ``schema_version`` of ``nsx-module.yaml`` this exporter writes."""


def nsx_metadata(layout: ModuleLayout) -> dict[str, Any]:
    """The ``nsx-module.yaml`` content: identity, build target, dependencies, compatibility.

    The module needs no other NSX module (it carries its kernels), and it is planned for one
    board's memories, so that board is the one it declares.
    """
    return {
        "schema_version": NSX_SCHEMA_VERSION,
        "module": {"name": layout.target, "type": "algorithm", "version": layout.version},
        "support": {"ambiqsuite": True, "zephyr": False},
        "summary": f"helia-aot inference module of {layout.model_comment} (plan {layout.plan_hash})",
        "capabilities": ["ml_inference"],
        "build": {"cmake": {"package": layout.target, "targets": [f"nsx::{layout.target}"]}},
        "depends": {"required": [], "optional": []},
        "compatibility": {
            "boards": [layout.platform_name],
            "socs": ["*"],
            "toolchains": ["arm-none-eabi-gcc"],
        },
    }


class NsxExporter(ModuleExporter):
    """An NSX module: the library ``<target>`` with the namespaced alias ``nsx::<target>``."""

    TYPE = "nsx"
    TITLE = "neuralSPOT-X (NSX)"
    PLATFORM_HOOKS = "nsx.platform.h.mako"

    def write(self, layout: ModuleLayout) -> list[str]:
        import yaml  # only when this module type is chosen

        header = f"# NSX module metadata of helia-aot module {layout.name_comment}.\n"
        return [
            self.write_text(
                layout, "nsx-module.yaml", header + yaml.safe_dump(nsx_metadata(layout), sort_keys=False)
            ),
            self.write_text(layout, "CMakeLists.txt", self.render("nsx.CMakeLists.txt.mako", layout)),
        ]

    def integration(self, layout: ModuleLayout) -> str:
        return self.render("nsx.integration.md.mako", layout, module_name=layout.target)


__all__ = ["NSX_SCHEMA_VERSION", "NsxExporter", "nsx_metadata"]
