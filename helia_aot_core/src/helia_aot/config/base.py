"""The base every configuration section shares: strict keys with a suggestion for each typo.

Pydantic's own ``extra="forbid"`` error says only "Extra inputs are not permitted". A configuration
file is hand-written, so the useful answer to ``planer: greedy`` is "did you mean planner?". Each
section therefore checks its keys itself, reports every unknown key as a ``value_error`` carrying an
:class:`InvalidConfigError` (so callers can recover the typed error from ``ctx["error"]``), and still
validates the keys it knows, so one pass lists every problem instead of the first.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from helia_aot.errors import HeliaAotError, InvalidConfigError


class Choices:
    """Annotation marker naming the values a string field accepts, for docs and ``--help``.

    The values come from a callable so a field can list values computed when the docs or the
    ``--help`` text are made (the memories of :class:`helia_aot.platforms.MemoryType`).
    """

    __slots__ = ("values",)

    def __init__(self, values: Callable[[], list[str]]) -> None:
        self.values = values


def nearest_key(key: str, valid: list[str]) -> str | None:
    """The valid key closest to ``key``, or None when nothing is close enough to be a typo."""
    folded = {name.casefold(): name for name in valid}
    wanted = key.casefold()
    # Swapped letters are the commonest typo, and difflib alone ranks `modle` closer to `module`
    # than to `model`; a candidate with exactly the same letters wins outright.
    anagrams = [name for name in folded if sorted(name) == sorted(wanted)]
    if anagrams:
        return folded[anagrams[0]]
    matches = difflib.get_close_matches(wanted, list(folded), n=1, cutoff=0.6)
    return folded[matches[0]] if matches else None


def unknown_key_error(key: str, section: str, valid: list[str]) -> InvalidConfigError:
    """The typed error for one unknown key, with the nearest valid key when there is one."""
    suggestion = nearest_key(key, valid)
    where = f"in {section}" if section else "at the top level"
    if suggestion is not None:
        message = f"unknown key {key!r} {where}; did you mean {suggestion!r}?"
    else:
        message = f"unknown key {key!r} {where}; valid keys are: {', '.join(valid)}"
    return InvalidConfigError(message, hint=f"valid keys {where}: {', '.join(valid)}")


_T = TypeVar("_T")


def empty_list() -> list[Any]:
    """A new empty list: the default factory of the list-valued keys.

    Not ``list`` itself: pydantic asks every default factory for its signature (to see whether it
    takes the validated data), and for a builtin Python parses the signature text with tokenize,
    compiling tokenize's patterns on first use; the configuration's eight ``list`` factories made
    that part of every conversion's start-up.
    """
    return []


def reraise_as_value_error(parse: Callable[..., _T], value: Any, *args: Any) -> _T:
    """Run a helper that raises HeliaAotError and re-raise as ValueError carrying its hint.

    Pydantic turns a ValueError into a ``value_error`` whose text is the exception's ``str``; the
    typed errors keep their hint apart, and in a configuration listing the hint is the useful half.
    ``args`` follow ``value`` in the call to ``parse``.
    """
    try:
        return parse(value, *args)
    except HeliaAotError as error:
        text = error.message if not error.hint else f"{error.message} {error.hint}"
        raise ValueError(text) from error


def _portable(error: dict[str, Any]) -> InitErrorDetails:
    """Turn one reported error back into a form ``ValidationError.from_exception_data`` accepts."""
    details: dict[str, Any] = {"loc": error["loc"], "input": error.get("input")}
    if "error" in (error.get("ctx") or {}):
        details["type"] = error["type"]
        details["ctx"] = error.get("ctx") or {}
    else:
        # Re-raising under a custom type keeps the message exactly as pydantic rendered it.
        details["type"] = PydanticCustomError(error["type"], error["msg"])
    return details  # type: ignore[return-value]


class ConfigSection(BaseModel):
    """A configuration mapping whose unknown keys are reported with the nearest valid key."""

    model_config = ConfigDict(extra="forbid", validate_default=True, use_enum_values=False)

    SECTION: ClassVar[str] = ""
    """Where this mapping appears, as a reader of the YAML file would name it (``memory``)."""

    KEY_ALIASES: ClassVar[dict[str, str]] = {}
    """Other spellings of a key (``{"preferred_order": "preferred_memory_order"}``).

    Files written for an older helia-aot keep loading: an alias is renamed to its key before
    validation, and giving both spellings in one mapping is an error (which one would win is a guess).
    """

    REMOVED_KEYS: ClassVar[dict[str, str]] = {}
    """Keys older versions took here, each with what replaces it: reported as removed, naming the
    replacement, instead of as unknown."""

    @model_validator(mode="wrap")
    @classmethod
    def _reject_unknown_keys(cls, data: Any, handler: Any) -> Any:
        if not isinstance(data, Mapping):
            return handler(data)
        if cls.KEY_ALIASES:
            data = cls._rename_aliases(data)
        valid = list(cls.model_fields)
        unknown = [key for key in data if key not in cls.model_fields]
        if not unknown:
            return handler(data)
        errors: list[Any] = [
            {
                "type": "value_error",
                "loc": (str(key),),
                "input": data[key],
                "ctx": {"error": cls._unknown_key(str(key), valid)},
            }
            for key in unknown
        ]
        known = {key: value for key, value in data.items() if key in cls.model_fields}
        try:
            handler(known)
        except ValidationError as error:
            errors.extend(error.errors(include_url=False))
        raise ValidationError.from_exception_data(cls.__name__, [_portable(e) for e in errors])

    @classmethod
    def _unknown_key(cls, key: str, valid: list[str]) -> InvalidConfigError:
        replacement = cls.REMOVED_KEYS.get(key)
        if replacement is None:
            return unknown_key_error(key, cls.SECTION, valid)
        where = f"{cls.SECTION}.{key}" if cls.SECTION else key
        return InvalidConfigError(f"{where} was removed: {replacement}", hint=replacement)

    @classmethod
    def _rename_aliases(cls, data: Mapping[str, Any]) -> dict[str, Any]:
        renamed: dict[str, Any] = {}
        for key, value in data.items():
            canonical = cls.KEY_ALIASES.get(str(key), key)
            if canonical in renamed or (canonical != key and canonical in data):
                where = f"in {cls.SECTION}" if cls.SECTION else "at the top level"
                raise InvalidConfigError(
                    f"{key!r} and {canonical!r} {where} are the same key given twice",
                    hint=f"keep only {canonical!r}",
                )
            renamed[canonical] = value
        return renamed


__all__ = [
    "Choices",
    "ConfigSection",
    "empty_list",
    "nearest_key",
    "reraise_as_value_error",
    "unknown_key_error",
]
