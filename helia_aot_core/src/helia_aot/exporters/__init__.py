"""Build-system exporters: one per ``module.type``, registered in ``module_exporters``.

The core registers these four through its own ``helia_aot_register`` hook; a plugin may add or
(with ``allow_override``) replace one the same way.
"""

from helia_aot.exporters.base import ModuleExporter, ModuleLayout
from helia_aot.exporters.cmake import CMakeExporter
from helia_aot.exporters.cmsis_pack import CmsisPackExporter
from helia_aot.exporters.nsx import NsxExporter
from helia_aot.exporters.zephyr import ZephyrExporter

__all__ = [
    "CMakeExporter",
    "CmsisPackExporter",
    "ModuleExporter",
    "ModuleLayout",
    "NsxExporter",
    "ZephyrExporter",
]
