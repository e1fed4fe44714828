"""Target platforms: what a conversion may assume about the SoC it generates code for.

:class:`SocPlatform` records describe a CPU, its capabilities and memory budgets; platform plugins
register them in a context's ``platforms`` registry and :func:`resolve_platform` turns a config's
``platform:`` section into one, looked up in that context.
"""

from helia_aot.platforms.compiler_flags import CPU_COMPILER_FLAGS, cpu_compiler_flags
from helia_aot.platforms.config import (
    CPU_DEFAULT_CAPABILITIES,
    PLATFORM_CONFIG_FIELDS,
    apply_overrides,
    build_custom_platform,
    read_platform_config,
)
from helia_aot.platforms.lookup import (
    get_platform,
    list_platform_names,
    list_platforms,
    nearest_platform_names,
    register_platform,
    resolve_platform,
    script_platforms,
)
from helia_aot.platforms.model import (
    DEFAULT_FILL_ORDER,
    MemoryType,
    SocCapability,
    SocPlatform,
    parse_capability,
    parse_memory_type,
)
from helia_aot.platforms.sizes import format_byte_size, parse_byte_size
from helia_aot.platforms.tables import format_platform_table

__all__ = [
    "CPU_COMPILER_FLAGS",
    "CPU_DEFAULT_CAPABILITIES",
    "DEFAULT_FILL_ORDER",
    "PLATFORM_CONFIG_FIELDS",
    "MemoryType",
    "SocCapability",
    "SocPlatform",
    "apply_overrides",
    "build_custom_platform",
    "cpu_compiler_flags",
    "format_byte_size",
    "format_platform_table",
    "get_platform",
    "list_platform_names",
    "list_platforms",
    "nearest_platform_names",
    "parse_byte_size",
    "parse_capability",
    "parse_memory_type",
    "read_platform_config",
    "register_platform",
    "resolve_platform",
    "script_platforms",
]
