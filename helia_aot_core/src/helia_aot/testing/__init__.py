"""Helpers for testing generated modules: host builds and golden-data runs.

Plugin authors use these to check that their operators convert, compile warning-free, and compute
what the reference computes; the project's own end-to-end tests use the same functions.
"""

from helia_aot.testing.contract import PackContractReport, check_pack_contract
from helia_aot.testing.cross import (
    CORES,
    CrossBuildError,
    CrossCore,
    ModuleSize,
    QemuRun,
    cross_build_module,
    cross_build_program,
    module_size,
    require_toolchain,
    run_qemu,
    size_of,
    toolchain_available,
    toolchain_problem,
)
from helia_aot.testing.host import (
    HOST_CFLAGS,
    SANITIZE_FLAGS,
    HostRun,
    build_module,
    corpus_golden_to_npz,
    module_sources,
    run_module_test_case,
)
from helia_aot.testing.packs import (
    GoldenRun,
    compile_module,
    convert_model,
    pack_customizer,
    pack_registry_context,
    run_golden,
    write_golden,
)
from helia_aot.testing.required_tools import MissingToolError, require_tools, running_in_ci
from helia_aot.testing.verdict import OutputVerdict, SelfTestReport, parse_self_test

__all__ = [
    "CORES",
    "CrossBuildError",
    "CrossCore",
    "ModuleSize",
    "QemuRun",
    "cross_build_module",
    "cross_build_program",
    "module_size",
    "require_toolchain",
    "run_qemu",
    "size_of",
    "toolchain_available",
    "toolchain_problem",
    "MissingToolError",
    "require_tools",
    "running_in_ci",
    "HOST_CFLAGS",
    "SANITIZE_FLAGS",
    "HostRun",
    "build_module",
    "corpus_golden_to_npz",
    "module_sources",
    "run_module_test_case",
    "PackContractReport",
    "check_pack_contract",
    "GoldenRun",
    "compile_module",
    "convert_model",
    "pack_customizer",
    "pack_registry_context",
    "run_golden",
    "write_golden",
    "OutputVerdict",
    "SelfTestReport",
    "parse_self_test",
]
