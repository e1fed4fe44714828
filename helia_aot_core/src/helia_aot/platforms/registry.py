"""The platforms a conversion can target by name.

Platforms come from plugins (the ``helia_aot_platforms`` hook), so installing a board-support
distribution is all it takes to add targets. The registry is filled on first use rather than at
import, so importing the core stays cheap and a broken plugin only fails the conversions that need
the registry. Names are matched case-insensitively; a miss names the closest registered platforms
because a typo in a board name is the usual cause.
"""

from __future__ import annotations

import difflib
import importlib
import threading
from collections.abc import Iterable

from helia_aot.errors import DuplicateRegistrationError, InvalidConfigError, PluginError
from helia_aot.platforms.config import apply_overrides, build_custom_platform, read_platform_config
from helia_aot.platforms.model import SocPlatform

_lock = threading.RLock()
_platforms: dict[str, SocPlatform] = {}
_loaded = False


def _key(name: str) -> str:
    return name.strip().casefold()


def _plugin_platforms() -> list[SocPlatform]:
    """Platforms every loaded plugin contributes; none while the plugin system is not installed."""
    try:
        plugins = importlib.import_module("helia_aot.plugins")
    except ModuleNotFoundError as exc:
        if exc.name == "helia_aot.plugins":
            return []
        raise
    collect = getattr(plugins, "collect_platforms", None)
    if collect is None:
        return []
    return list(collect())


def _stage(platforms: Iterable[object]) -> dict[str, SocPlatform]:
    staged: dict[str, SocPlatform] = {}
    for platform in platforms:
        if not isinstance(platform, SocPlatform):
            raise PluginError(
                f"A platform plugin returned {type(platform).__name__} {platform!r} "
                "instead of a SocPlatform.",
                hint="helia_aot_platforms() must return a list of helia_aot.platforms.SocPlatform records.",
            )
        key = _key(platform.name)
        if key in staged and staged[key] != platform:
            raise DuplicateRegistrationError(
                f"Two plugins define platform {platform.name!r} differently.",
                hint="Uninstall one of the plugins, or give one of the platforms another name.",
            )
        staged[key] = platform
    return staged


def _ensure_loaded() -> None:
    global _loaded
    with _lock:
        if _loaded:
            return
        staged = _stage(_plugin_platforms())
        # Only commit once every plugin answered, so a failing plugin leaves the registry untouched
        # and the next lookup retries.
        _platforms.update(staged)
        _loaded = True


def register_platform(platform: SocPlatform, *, overwrite: bool = False) -> SocPlatform:
    """Add ``platform`` under its name; a name already taken needs ``overwrite=True``.

    Plugin platforms are loaded first, so an explicit registration can deliberately replace one.
    """
    if not isinstance(platform, SocPlatform):
        raise TypeError(f"register_platform() expects a SocPlatform, got {type(platform).__name__}")
    with _lock:
        _ensure_loaded()
        key = _key(platform.name)
        existing = _platforms.get(key)
        if existing is not None and not overwrite:
            raise DuplicateRegistrationError(
                f"Platform {existing.name!r} is already registered.",
                hint="Pass overwrite=True to replace it, or choose another name.",
            )
        _platforms[key] = platform
    return platform


def nearest_platform_names(name: str, limit: int = 3) -> list[str]:
    """Registered names closest to ``name``: ones it is a prefix or part of first, then look-alikes."""
    _ensure_loaded()
    query = _key(name)
    names = sorted(p.name for p in _platforms.values())
    folded = {n.casefold(): n for n in names}
    found = [n for n in names if query and query in n.casefold()]
    for match in difflib.get_close_matches(query, list(folded), n=limit, cutoff=0.6):
        if folded[match] not in found:
            found.append(folded[match])
    return found[:limit]


def _unknown_message(name: str) -> str:
    nearest = nearest_platform_names(name)
    message = f"Unknown platform {name!r}."
    if nearest:
        message += " Did you mean " + " or ".join(repr(n) for n in nearest) + "?"
    return message


def _registered_hint() -> str:
    names = list_platform_names()
    if not names:
        return "No platforms are registered; install a platform plugin such as helia-aot-platforms-apollo."
    return "Registered platforms: " + ", ".join(names) + "."


def get_platform(name: str) -> SocPlatform:
    """The registered platform called ``name`` (case-insensitive)."""
    with _lock:
        _ensure_loaded()
        platform = _platforms.get(_key(name))
        if platform is None:
            raise InvalidConfigError(
                _unknown_message(name),
                hint=_registered_hint(),
                details={"name": name, "nearest": nearest_platform_names(name)},
            )
    return platform


def list_platforms() -> list[SocPlatform]:
    """Every registered platform, sorted by name."""
    with _lock:
        _ensure_loaded()
        return sorted(_platforms.values(), key=lambda p: p.name)


def list_platform_names() -> list[str]:
    """Names of every registered platform, sorted."""
    return [p.name for p in list_platforms()]


def resolve_platform(platform_config: object) -> SocPlatform:
    """The platform a config section describes.

    A registered name gives that platform, adjusted by any other fields the config sets (see
    :func:`apply_overrides`). An unregistered name with ``cpu`` and ``memories`` gives a custom
    platform; without them it is an error naming the closest registered platforms. A
    :class:`SocPlatform` passes through unchanged.
    """
    if isinstance(platform_config, SocPlatform):
        return platform_config
    fields = read_platform_config(platform_config)
    name = fields["name"]
    with _lock:
        _ensure_loaded()
        registered = _platforms.get(_key(name))
    if registered is not None:
        return apply_overrides(registered, fields)
    missing = [key for key in ("cpu", "memories") if key not in fields]
    if missing:
        raise InvalidConfigError(
            _unknown_message(name),
            hint=(
                f"To target a custom platform, also give {' and '.join(missing)} "
                "(capabilities, preferred_order, alignment and description are optional). "
                + _registered_hint()
            ),
            details={"name": name, "nearest": nearest_platform_names(name), "missing": missing},
        )
    return build_custom_platform(fields)


def _reset_platforms_for_tests(*, load_plugins: bool = False) -> None:
    """Empty the registry; with ``load_plugins`` the next use reloads plugin platforms.

    Without it the registry stays empty until a test registers platforms itself, which keeps tests
    independent of the plugins installed in the environment.
    """
    global _loaded
    with _lock:
        _platforms.clear()
        _loaded = not load_plugins


__all__ = [
    "get_platform",
    "list_platform_names",
    "list_platforms",
    "nearest_platform_names",
    "register_platform",
    "resolve_platform",
]
