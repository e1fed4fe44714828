"""The JSON ``platforms list --json`` and ``platforms show NAME --json`` print (schema_version 1).

The shape is the one scripts written for the heliaAOT 1.1 command line parse: a versioned wrapper
(``{"schema_version": 1, "platforms": [...]}`` / ``{"schema_version": 1, "platform": {...}}``) around
one record per platform with upper-case memory and capability names, memories as a list of
``{name, bytes}`` in fill-rank order, ``preferred_memory_order`` and ``min_alignment``. Fields only
this compiler knows (``description``) follow the shared ones; readers of the shared shape ignore
them. The CLI builds its JSON only through these functions, so the shape lives in one place.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from helia_aot.platforms.model import SocCapability, SocPlatform

PLATFORMS_JSON_SCHEMA_VERSION = 1


def platform_json(platform: SocPlatform) -> dict[str, Any]:
    """One platform in the shared shape.

    ``speeds_mhz`` is empty: our platform records declare no clock choices, and conversion never
    reads them. ``supports_fp16`` says whether the platform declares the FP16 capability (our
    platform records refuse a declaration the CPU cannot honour, so it is never null here).
    """
    record = platform.to_dict()
    return {
        "name": platform.name,
        "cpu": platform.cpu,
        "speeds_mhz": [],
        "capabilities": [str(c).upper() for c in record["capabilities"]],
        "memories": [{"name": memory.value.upper(), "bytes": size} for memory, size in platform.memories],
        "preferred_memory_order": [memory.value.upper() for memory in platform.preferred_order],
        "min_alignment": platform.alignment,
        "supports_fp16": SocCapability.FP16 in platform.capabilities,
        "description": platform.description,
    }


def platforms_list_json(platforms: Iterable[SocPlatform]) -> dict[str, Any]:
    """``platforms list --json``: every platform, in the order given."""
    return {
        "schema_version": PLATFORMS_JSON_SCHEMA_VERSION,
        "platforms": [platform_json(p) for p in platforms],
    }


def platform_show_json(platform: SocPlatform) -> dict[str, Any]:
    """``platforms show NAME --json``: one platform."""
    return {"schema_version": PLATFORMS_JSON_SCHEMA_VERSION, "platform": platform_json(platform)}


__all__ = ["PLATFORMS_JSON_SCHEMA_VERSION", "platform_json", "platform_show_json", "platforms_list_json"]
