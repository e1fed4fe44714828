"""Turning the ``platform:`` section of a conversion config into a :class:`SocPlatform`.

The section is either just the name of a registered platform, the name plus a few fields that
adjust it (a smaller SRAM budget leaves room for the application), or a full description of a board
no plugin knows. The config may arrive as a raw YAML mapping or as a parsed config object, so fields
are read either way, and an absent field, ``None`` and an empty list all mean "not given".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from helia_aot.errors import InvalidConfigError
from helia_aot.platforms.model import (
    DEFAULT_FILL_ORDER,
    SocCapability,
    SocPlatform,
    parse_memory_type,
)
from helia_aot.platforms.sizes import parse_byte_size

PLATFORM_CONFIG_FIELDS = (
    "name",
    "cpu",
    "description",
    "capabilities",
    "memories",
    "preferred_order",
    "alignment",
)
"""Keys a platform config may hold."""

PRODUCT_FIELD_NAMES: Mapping[str, str] = {
    "preferred_memory_order": "preferred_order",
    "min_alignment": "alignment",
}
"""The configuration's spellings (``platform.preferred_memory_order``) of the record's fields."""

IGNORED_ON_REGISTERED = ("cpu", "speeds", "capabilities", "preferred_memory_order", "min_alignment")
"""Configuration keys that describe a custom platform; with a registered name they are ignored."""

_M_BASE = frozenset({SocCapability.MCU})
_M_DSP = frozenset({SocCapability.MCU, SocCapability.DSP})
_M_HELIUM = frozenset({SocCapability.MCU, SocCapability.DSP, SocCapability.MVE, SocCapability.FP16})

CPU_DEFAULT_CAPABILITIES: Mapping[str, frozenset[SocCapability]] = {
    "cortex-m0": _M_BASE,
    "cortex-m0plus": _M_BASE,
    "cortex-m3": _M_BASE,
    "cortex-m4": _M_DSP,
    "cortex-m7": _M_DSP,
    "cortex-m33": _M_DSP,
    "cortex-m55": _M_HELIUM,
    "cortex-m85": _M_HELIUM,
}
"""Capabilities a custom platform gets from its CPU when the config lists none (unknown cores get
``mcu`` only, so no lowering assumes an extension that may be absent)."""


def read_platform_config(config: object) -> dict[str, Any]:
    """The fields a platform config gives, as a dict without absent, ``None`` or empty values.

    ``config`` is a platform name, a mapping (unknown keys are rejected: in hand-written YAML they
    are typos) or an object with the field names as attributes (a parsed config model).
    """
    if isinstance(config, str):
        raw: dict[str, Any] = {"name": config}
    elif isinstance(config, Mapping):
        config = {PRODUCT_FIELD_NAMES.get(str(k), k): v for k, v in config.items() if k != "speeds"}
        unknown = sorted(str(k) for k in config if k not in PLATFORM_CONFIG_FIELDS)
        if unknown:
            raise InvalidConfigError(
                f"Unknown platform config field(s): {', '.join(unknown)}.",
                hint="A platform config may hold: " + ", ".join(PLATFORM_CONFIG_FIELDS) + ".",
            )
        raw = dict(config)
    else:
        raw = {key: getattr(config, key, None) for key in PLATFORM_CONFIG_FIELDS}
        for product_name, key in PRODUCT_FIELD_NAMES.items():
            if raw.get(key) is None:
                raw[key] = getattr(config, product_name, None)
    fields = {key: value for key, value in raw.items() if not _absent(value)}
    name = fields.get("name")
    if not isinstance(name, str) or not name.strip():
        raise InvalidConfigError(
            "The platform config has no name.",
            hint="Give platform.name: a registered platform, or a new name together with cpu and memories.",
        )
    fields["name"] = name.strip()
    if "memories" in fields:
        fields["memories"] = _read_memories(fields["name"], fields["memories"])
    if "alignment" in fields:
        fields["alignment"] = parse_byte_size(fields["alignment"], what=f"Platform {name!r}: alignment")
    return fields


def _absent(value: object) -> bool:
    if value is None:
        return True
    if isinstance(value, (str, Mapping, list, tuple, set, frozenset)):
        return len(value) == 0
    return False


def _read_memories(name: str, memories: object) -> dict[Any, int]:
    if isinstance(memories, Mapping):
        pairs = list(memories.items())
    elif isinstance(memories, (list, tuple)):
        pairs = []
        for entry in memories:
            if isinstance(entry, Mapping) and set(entry) == {"type", "size"}:
                pairs.append((entry["type"], entry["size"]))
            elif isinstance(entry, (list, tuple)) and len(entry) == 2:
                pairs.append((entry[0], entry[1]))
            else:
                raise InvalidConfigError(
                    f"Platform {name!r}: memory entry {entry!r} is not a (type, size) pair.",
                    hint="Write memories as a mapping, e.g. {sram: 1MiB, dtcm: 384KiB}.",
                )
    else:
        raise InvalidConfigError(
            f"Platform {name!r}: memories must be a mapping of memory type to size, not {memories!r}.",
            hint="Write memories as a mapping, e.g. {sram: 1MiB, dtcm: 384KiB}.",
        )
    result: dict[Any, int] = {}
    for key, size in pairs:
        memory = parse_memory_type(key)
        if memory in result:
            raise InvalidConfigError(f"Platform {name!r}: memory {memory.value} is listed twice.")
        result[memory] = parse_byte_size(size, what=f"Platform {name!r}: {memory.value} size")
    return result


def build_custom_platform(fields: Mapping[str, Any]) -> SocPlatform:
    """A platform described entirely by config ``fields`` (as read by :func:`read_platform_config`).

    ``cpu`` and ``memories`` are required; capabilities default from the CPU, the fill order to
    the declared read-write memories fastest first, and alignment to 16 with MVE and 4 without.
    """
    missing = [key for key in ("cpu", "memories") if key not in fields]
    if missing:
        raise InvalidConfigError(f"Custom platform {fields.get('name')!r} lacks {' and '.join(missing)}.")
    cpu = str(fields["cpu"]).strip().lower()
    memories = fields["memories"]
    capabilities = fields.get("capabilities")
    if capabilities is None:
        capabilities = CPU_DEFAULT_CAPABILITIES.get(cpu, _M_BASE)
    order = fields.get("preferred_order")
    if order is None:
        order = tuple(m for m in DEFAULT_FILL_ORDER if m in memories)
        if not order:
            raise InvalidConfigError(
                f"Custom platform {fields['name']!r} has no read-write memory to place data in.",
                hint="Declare sram, dtcm, mram, psram or dram, or give preferred_order explicitly.",
            )
    platform = SocPlatform(
        name=fields["name"],
        cpu=cpu,
        capabilities=capabilities,
        memories=memories,
        preferred_order=order,
        alignment=fields.get("alignment", 4),
        description=fields.get("description", f"Custom platform ({cpu})"),
    )
    if "alignment" not in fields and platform.has_mve:
        platform = dataclasses.replace(platform, alignment=16)
    return platform


def apply_overrides(platform: SocPlatform, fields: Mapping[str, Any]) -> SocPlatform:
    """``platform`` with the config ``fields`` other than ``name`` replacing its own.

    Memories merge (a config naming only ``sram`` changes only the SRAM budget); every other field
    replaces the registered value. Without overrides the registered record itself is returned.
    """
    changes: dict[str, Any] = {}
    for key in ("cpu", "description", "capabilities", "preferred_order", "alignment"):
        if key in fields:
            changes[key] = fields[key]
    if "memories" in fields:
        merged = dict(platform.memories)
        merged.update({parse_memory_type(k): v for k, v in fields["memories"].items()})
        changes["memories"] = merged
    if not changes:
        return platform
    return dataclasses.replace(platform, **changes)


__all__ = [
    "CPU_DEFAULT_CAPABILITIES",
    "IGNORED_ON_REGISTERED",
    "PRODUCT_FIELD_NAMES",
    "PLATFORM_CONFIG_FIELDS",
    "apply_overrides",
    "build_custom_platform",
    "read_platform_config",
]
