"""Ambiq Apollo target platforms for helia-aot (registered through the ``helia_aot`` entry point)."""

from helia_aot_platforms_apollo.platforms import (
    APOLLO_PLATFORMS,
    APOLLO_PLATFORMS_BY_NAME,
    CPU_COMPILER_FLAGS,
    compiler_flags,
)

__all__ = ["APOLLO_PLATFORMS", "APOLLO_PLATFORMS_BY_NAME", "CPU_COMPILER_FLAGS", "compiler_flags"]
