"""Registry: a named, ordered, freezable mapping from canonical keys to implementations."""

from __future__ import annotations

import builtins
import difflib
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

from helia_aot.errors import (
    DuplicateRegistrationError,
    InvalidConfigError,
    PluginError,
    RegistryFrozenError,
    RegistryLookupError,
)

V = TypeVar("V")
_T = TypeVar("_T")


class DeferredEntry:
    """A value not loaded yet, registered with :meth:`Registry.defer` under a known key.

    ``load()`` imports what the entry stands for and hands the real values to
    :meth:`Registry.fill` (of this registry and any other it covers), once. A pack registers its
    operators this way so a conversion imports only the operator modules its model uses (see
    :mod:`helia_aot.pack.deferred`); every lookup that returns a value loads it first, so a caller
    never sees a DeferredEntry.
    """

    def load(self) -> None:
        raise NotImplementedError


class Registry(Generic[V]):
    """One kind of implementation (parsers, operator classes, ...) keyed by canonical key.

    Iteration follows registration order, so everything built from a registry is deterministic.
    Each entry remembers its *provider* (a plugin, ``"customizer"``, or ``None`` for direct calls)
    so a collision can name both sides. A frozen registry rejects every change. ``check``, when
    given, is called with each new ``(key, value)`` before it is stored and raises a typed error
    for a value that cannot serve this extension point (a platform that is not a ``SocPlatform``),
    so a bad registration fails where it is made rather than in the middle of a conversion.

    The product's surface is here too, so a script written for it runs unchanged:
    ``Registry(key_encoder=...)`` (keys are stored, looked up and listed encoded, e.g. upper-cased),
    :meth:`has`, :meth:`list`, :meth:`decorator` and :meth:`clear`. Ours adds the registry's
    ``name`` (which errors quote), ``check``, providers, protection of built-ins and :meth:`select`.
    """

    def __init__(
        self,
        name: str = "registry",
        check: Callable[[str, V], None] | None = None,
        *,
        key_encoder: Callable[[Any], str] | None = None,
    ) -> None:
        self.name = name
        self._check = check
        self._encode = key_encoder
        self._entries: dict[str, Any] = {}  # V, or a DeferredEntry until it is loaded
        self._providers: dict[str, str | None] = {}
        self._frozen = False
        self._protected: frozenset[str] = frozenset()
        #: Set by whoever calls registration code (the plugin loader, build_default_registry_context)
        #: so entries record where they came from.
        self.active_provider: str | None = None

    # -- changes ---------------------------------------------------------------------------------
    def _key(self, key: Any) -> str:
        return self._encode(key) if self._encode is not None else key

    def register(self, key: str, value: V, overwrite: bool = False) -> V:
        """Add ``value`` under ``key``; an existing key needs ``overwrite=True``. Returns ``value``."""
        key = self._admit(key, overwrite)
        if self._check is not None:
            self._check(key, value)
        self._entries[key] = value
        self._providers[key] = self.active_provider
        return value

    def defer(self, key: str, entry: DeferredEntry) -> None:
        """Add ``key`` now and its value when it is first looked up (``entry.load()`` supplies it
        through :meth:`fill`). The key is checked, ordered and attributed to its provider exactly as
        :meth:`register` does; only the value waits."""
        if not isinstance(entry, DeferredEntry):
            raise TypeError(f"{self.name}: defer takes a DeferredEntry, not {type(entry).__name__}")
        key = self._admit(key, False)
        self._entries[key] = entry
        self._providers[key] = self.active_provider

    def fill(self, key: str, entry: DeferredEntry, value: V) -> None:
        """Replace the deferred ``entry`` under ``key`` with its loaded ``value``.

        Allowed once the registry is frozen: the key was registered before, only its value was
        waiting. A key whose entry is no longer ``entry`` (a customizer replaced it) keeps what it has.
        """
        key = self._key(key)
        if self._entries.get(key) is not entry:
            return
        if self._check is not None:
            self._check(key, value)
        self._entries[key] = value

    def _value(self, key: str) -> V:
        value = self._entries[key]
        if isinstance(value, DeferredEntry):
            value.load()
            value = self._entries[key]
            if isinstance(value, DeferredEntry):
                raise PluginError(
                    f"{self.name}: loading {key!r} did not provide it",
                    hint="the pack's operator index does not match its modules; set "
                    "HELIA_AOT_OPERATOR_INDEX=off to read them all",
                )
        return value  # type: ignore[no-any-return]

    def _admit(self, key: str, overwrite: bool) -> str:
        """The encoded key, once it may be stored (mutable, new or overwritten, not protected)."""
        key = self._key(key)
        self._check_mutable(key)
        if not isinstance(key, str) or not key:
            raise TypeError(f"{self.name} keys must be non-empty strings, not {key!r}")
        if key in self._entries and not overwrite:
            previous = self._providers.get(key)
            provider = self.active_provider
            raise DuplicateRegistrationError(
                f"{self.name}: {key!r} is already registered"
                + (f" by {previous}" if previous else "")
                + (f"; {provider} tried to register it again" if provider else ""),
                hint="pass overwrite=True to replace it deliberately, or choose another key",
                details={"registry": self.name, "key": key, "providers": [previous, provider]},
            )
        if key in self._protected:
            self._reject_override(key, "replace")
        return key

    def unregister(self, key: str) -> V:
        """Remove and return the entry under ``key``."""
        key = self._key(key)
        self._check_mutable(key)
        value = self.get(key)
        if key in self._protected:
            self._reject_override(key, "remove")
        del self._entries[key]
        self._providers.pop(key, None)
        return value

    def decorator(self, key: str, *, overwrite: bool = False) -> Callable[[_T], _T]:
        """``@registry.decorator("KEY")`` registers the decorated class or function and returns it."""

        def register(value: _T) -> _T:
            self.register(key, value, overwrite=overwrite)  # type: ignore[arg-type]
            return value

        return register

    def clear(self) -> None:
        """Remove every entry (refused when frozen, or while built-ins are protected)."""
        self._check_mutable("*")
        if self._protected:
            self._reject_override(sorted(self._protected)[0], "remove")
        self._entries.clear()
        self._providers.clear()

    def protect(self, keys: frozenset[str] | set[str]) -> None:
        """Refuse to replace or remove ``keys`` (the built-ins, unless a context allows override)."""
        self._protected = frozenset(keys)

    def _reject_override(self, key: str, action: str) -> None:
        raise DuplicateRegistrationError(
            f"{self.name}: {self.active_provider or 'a registration'} tried to {action} the built-in "
            f"{key!r} (registered by {self._providers.get(key) or 'the core'})",
            hint="pass allow_override=True to build_default_registry_context to replace a built-in "
            "deliberately (subclass it to keep its validation)",
            details={"registry": self.name, "key": key},
        )

    def freeze(self) -> None:
        """Reject every later change."""
        self._frozen = True

    @property
    def frozen(self) -> bool:
        return self._frozen

    def _check_mutable(self, key: str) -> None:
        if self._frozen:
            raise RegistryFrozenError(
                f"{self.name} is frozen; cannot change {key!r}",
                hint="build a new context with build_default_registry_context(customizers=[...]) "
                "or freeze=False",
            )

    # -- lookups ---------------------------------------------------------------------------------
    def get(self, key: str) -> V:
        """The entry under ``key``; a missing key raises RegistryLookupError naming close keys.

        RegistryLookupError is a KeyError, which is what the product raises here.
        """
        key = self._key(key)
        if key in self._entries:
            return self._value(key)
        close = difflib.get_close_matches(str(key), list(self._entries), n=3, cutoff=0.6)
        hint = (
            f"did you mean {', '.join(repr(c) for c in close)}?"
            if close
            else (f"registered keys: {', '.join(sorted(self._entries)) or '(none)'}")
        )
        raise RegistryLookupError(f"{self.name} has no entry {key!r}", hint=hint)

    def select(self, key: str, *, setting: str) -> tuple[str, V]:
        """The entry a configuration value names: ``(registered key, entry)``.

        A configuration value is typed by a person, so case is forgiven when exactly one key
        matches that way; anything else is an InvalidConfigError (exit status 2) naming the
        ``setting`` (``memory.planner``), the closest keys and every registered key, which is how a
        plugin's extension is offered exactly like a built-in one.
        """
        if key in self._entries:
            return key, self._value(key)
        folded = [k for k in self._entries if k.casefold() == str(key).strip().casefold()]
        if len(folded) == 1:
            return folded[0], self._value(folded[0])
        close = difflib.get_close_matches(str(key), list(self._entries), n=3, cutoff=0.6)
        message = f"{setting} {key!r} is not registered in {self.name}"
        if close:
            message += "; did you mean " + " or ".join(repr(c) for c in close) + "?"
        registered = ", ".join(sorted(self._entries)) or "(none)"
        raise InvalidConfigError(
            message,
            hint=f"registered {self.name}: {registered} (`helia-aot plugins` shows which plugin "
            "provides each; install or enable the plugin that provides another)",
            details={"setting": setting, "value": key, "registered": sorted(self._entries)},
        )

    def provider(self, key: str) -> str | None:
        """Who registered ``key`` (a plugin description, ``'customizer'``, or None)."""
        return self._providers.get(key)

    def has(self, key: str) -> bool:
        """Whether an entry is registered under ``key`` (encoded first, like every lookup)."""
        return self._key(key) in self._entries

    def keys(self) -> builtins.list[str]:
        return builtins.list(self._entries)

    def list(self) -> builtins.list[str]:
        """The registered keys in registration order (the product's name for :meth:`keys`)."""
        return builtins.list(self._entries)

    def items(self) -> builtins.list[tuple[str, V]]:
        return [(key, self._value(key)) for key in builtins.list(self._entries)]

    def __contains__(self, key: object) -> bool:
        return self._key(key) in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(builtins.list(self._entries))

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        state = "frozen" if self._frozen else "open"
        return f"Registry({self.name!r}, {len(self)} entries, {state})"
