"""``helia-aot convert`` from plain flags, parsed without building the typer app.

Most command lines are ``helia-aot convert --model.path M --module.path OUT --force``. Importing
typer and building its click command (one option per configuration key, each with a pydantic
adapter) took about a tenth of a KWS conversion, to parse a handful of ``--key value`` pairs whose
meaning the flag table (:mod:`helia_aot.cli.flags`) already fixes. So a command line is parsed
here when, and only when, it is one this parser reads exactly as click would: ``convert``
followed by known flags, each given once (list flags may repeat), each value a separate or
``=``-joined token that does not start with ``-``. Anything else (``--help``, an unknown or
misspelt flag, a missing value, a positional word, ``--``, root options, any other command, a
shell-completion request) returns None and the typer app parses the line, so every usage error
keeps click's message and exit code. The values reach the same ``convert`` function, so a
configuration error is reported by the same code either way.
"""

from __future__ import annotations

import os
from typing import Any

from helia_aot.cli.flags import (
    cli_keys,
    is_bool,
    kebab_flag,
    negated,
    normalise_args,
    parameter_name,
)

COMMAND = "convert"


def _completion_requested() -> bool:
    # click answers shell completion when `_<PROG>_COMPLETE` is set; leave that to it.
    return any(name.startswith("_") and name.endswith("_COMPLETE") for name in os.environ)


def convert_parameters(argv: list[str]) -> dict[str, Any] | None:
    """The keyword arguments click would call ``convert`` with for ``argv`` (the command line
    after the program name), or None when the line is not one parsed here (see the module)."""
    if not argv or argv[0] != COMMAND or _completion_requested():
        return None
    try:
        args = normalise_args(argv[1:])
    except Exception:  # a malformed boolean word: click reports it (typer.BadParameter)
        return None
    keys = cli_keys()
    flags = {kebab_flag(key.key): key for key in keys}
    negations = {negated(kebab_flag(key.key)): key for key in keys if is_bool(key)}
    given: dict[str, Any] = {}
    index = 0
    while index < len(args):
        name, equals, inline = args[index].partition("=")
        index += 1
        key = negations.get(name) or flags.get(name)
        if key is None:
            return None
        param = parameter_name(key.key)
        if is_bool(key):
            if equals or param in given:
                return None
            given[param] = name not in negations
            continue
        if equals:
            value = inline
        elif index < len(args):
            value = args[index]
            index += 1
        else:
            return None
        if value.startswith("-"):
            return None
        if key.is_list:
            given.setdefault(param, []).append(value)
        elif param in given:
            return None
        else:
            given[param] = value
    return {parameter_name(key.key): given.get(parameter_name(key.key)) for key in keys}


def run_direct(argv: list[str]) -> bool:
    """Run ``convert`` when ``argv`` is parsed here; False (nothing run) when the typer app must
    parse it. A failed conversion ends with ``SystemExit`` (:func:`helia_aot.cli.errors.reported_errors`)."""
    parameters = convert_parameters(argv)
    if parameters is None:
        return False
    from helia_aot.cli.convert import convert

    convert(**parameters)
    return True


__all__ = ["COMMAND", "convert_parameters", "run_direct"]
