"""Finding the platform a conversion targets, in the ``platforms`` registry of its context.

Platforms come from plugins (the ``helia_aot_platforms`` hook, or ``context.platforms.register``),
so installing a board-support distribution is all it takes to add targets, and blocking its plugin
(``plugins.disabled``) removes them. Names are matched case-insensitively; a miss names the closest
registered platforms because a typo in a board name is the usual cause.
"""

from __future__ import annotations

import difflib
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING

from helia_aot.errors import DuplicateRegistrationError, InvalidConfigError
from helia_aot.platforms.config import (
    IGNORED_ON_REGISTERED,
    apply_overrides,
    build_custom_platform,
    read_platform_config,
)
from helia_aot.platforms.model import SocPlatform

LOGGER = logging.getLogger("helia_aot.platforms")

if TYPE_CHECKING:  # pragma: no cover - the context type sits in the layer above the platform model
    from helia_aot.registry.context import RegistryContext


def _key(name: str) -> str:
    return name.strip().casefold()


_SCRIPT_PLATFORMS: dict[str, SocPlatform] = {}


def register_platform(platform: SocPlatform, context: RegistryContext | None = None) -> SocPlatform:
    """Register ``platform`` in ``context``, or, without one, for every context built afterwards.

    ``register_platform(p)`` is the product's call: a script adds a board before converting. Ours
    has no process-wide platform table a conversion reads; instead every later
    ``build_default_registry_context()`` registers the platforms given here after the plugins'
    (so a name a plugin already has fails there, unless the context allows overrides). A name
    registered twice here, ignoring case, raises DuplicateRegistrationError at once, since lookups
    ignore case and one of the two would be unreachable.
    """
    if context is not None:
        return context.platforms.register(platform.name, platform)
    if not isinstance(platform, SocPlatform):
        raise TypeError(f"register_platform takes a SocPlatform, not {type(platform).__name__}")
    if any(_key(name) == _key(platform.name) for name in _SCRIPT_PLATFORMS):
        raise DuplicateRegistrationError(
            f"platform {platform.name!r} is already registered",
            hint="register each platform once, under a name no other platform has (ignoring case)",
        )
    _SCRIPT_PLATFORMS[platform.name] = platform
    return platform


def script_platforms() -> list[SocPlatform]:
    """The platforms :func:`register_platform` registered without a context, in that order."""
    return list(_SCRIPT_PLATFORMS.values())


def _find(name: str, context: RegistryContext) -> SocPlatform | None:
    wanted = _key(name)
    return next((p for key, p in context.platforms.items() if _key(key) == wanted), None)


def list_platforms(context: RegistryContext) -> list[SocPlatform]:
    """Every platform of ``context``, sorted by name."""
    return sorted((p for _, p in context.platforms.items()), key=lambda p: p.name)


def list_platform_names(context: RegistryContext) -> list[str]:
    """Names of every platform of ``context``, sorted."""
    return [p.name for p in list_platforms(context)]


def nearest_platform_names(name: str, context: RegistryContext, limit: int = 3) -> list[str]:
    """Registered names closest to ``name``: ones it is a prefix or part of first, then look-alikes."""
    query = _key(name)
    names = list_platform_names(context)
    folded = {n.casefold(): n for n in names}
    found = [n for n in names if query and query in n.casefold()]
    for match in difflib.get_close_matches(query, list(folded), n=limit, cutoff=0.6):
        if folded[match] not in found:
            found.append(folded[match])
    return found[:limit]


def _unknown_message(name: str, context: RegistryContext) -> str:
    nearest = nearest_platform_names(name, context)
    message = f"Unknown platform {name!r}."
    if nearest:
        message += " Did you mean " + " or ".join(repr(n) for n in nearest) + "?"
    return message


def _registered_hint(context: RegistryContext) -> str:
    names = list_platform_names(context)
    if names:
        hint = "Registered platforms: " + ", ".join(names) + "."
    else:
        hint = "No platforms are registered; install a platform plugin such as helia-aot-platforms-apollo."
    if context.blocked_plugins:
        blocked = ", ".join(f"{n} ({d})" for n, d in sorted(context.blocked_plugins.items()))
        hint += f" Blocked by plugins.enabled/disabled, and so not searched: {blocked}."
    return hint


def get_platform(name: str, context: RegistryContext) -> SocPlatform:
    """The platform of ``context`` called ``name`` (case-insensitive)."""
    platform = _find(name, context)
    if platform is None:
        raise InvalidConfigError(
            _unknown_message(name, context),
            hint=_registered_hint(context),
            details={"name": name, "nearest": nearest_platform_names(name, context)},
        )
    return platform


def resolve_platform(platform_config: object, context: RegistryContext) -> SocPlatform:
    """The platform a config section describes, looked up in ``context``.

    A registered name gives that platform, adjusted by any other fields the config sets (see
    :func:`apply_overrides`). An unregistered name with ``cpu`` and ``memories`` gives a custom
    platform; without them it is an error naming the closest registered platforms. A
    :class:`SocPlatform` passes through unchanged.
    """
    if isinstance(platform_config, SocPlatform):
        return platform_config
    _warn_deprecated_speeds(platform_config)
    fields = read_platform_config(platform_config)
    name = fields["name"]
    registered = _find(name, context)
    if registered is not None:
        if not isinstance(platform_config, (str, Mapping)):
            fields = _drop_custom_fields(platform_config, registered, fields)
        return apply_overrides(registered, fields)
    missing = [key for key in ("cpu", "memories") if key not in fields]
    if missing:
        raise InvalidConfigError(
            _unknown_message(name, context),
            hint=(
                f"To target a custom platform, also give {' and '.join(missing)} "
                "(capabilities, preferred_order, alignment and description are optional). "
                + _registered_hint(context)
            ),
            details={"name": name, "nearest": nearest_platform_names(name, context), "missing": missing},
        )
    return build_custom_platform(fields)


def _given(config: object, key: str) -> bool:
    value = getattr(config, key, None)
    return value is not None and not (isinstance(value, (list, tuple, dict)) and not value)


def _warn_deprecated_speeds(config: object) -> None:
    speeds = config.get("speeds") if isinstance(config, Mapping) else getattr(config, "speeds", None)
    if speeds:
        LOGGER.warning(
            "platform.speeds is deprecated since 0.32.0 and will be removed in 2.0; no conversion "
            "reads it. Remove it from the configuration."
        )


def _drop_custom_fields(
    config: object, registered: SocPlatform, fields: dict[str, object]
) -> dict[str, object]:
    """``fields`` without the custom-platform keys, which a registered platform's record overrides.

    A configuration (``ConvertArgs.platform``) naming a registered platform takes that platform's
    CPU, capabilities, fill order and alignment as registered; only ``memories`` (budgets) adjust
    it. The keys given anyway are listed in one warning, which suggests a new name to define a
    custom platform instead.
    """
    ignored = [key for key in IGNORED_ON_REGISTERED if _given(config, key)]
    if ignored:
        LOGGER.warning(
            "platform %r is a built-in platform, so these fields are ignored: %s. To describe a "
            "custom platform with them, give it a name no plugin registers (for example my_board).",
            registered.name,
            ", ".join(ignored),
        )
    return {key: value for key, value in fields.items() if key in ("name", "memories", "description")}


__all__ = [
    "get_platform",
    "list_platform_names",
    "list_platforms",
    "nearest_platform_names",
    "register_platform",
    "resolve_platform",
    "script_platforms",
]
