"""Mako template lookup with a defined precedence: user override directory, plugins, core.

Templates travel inside the package that owns them. A plugin template may ``<%inherit>`` a core
base template because all directories share one lookup.
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path
from typing import Any

from helia_aot.errors import TemplateRenderError
from helia_aot.user_cache import cache_folder


def _import_mako() -> Any:
    """``mako.lookup``, imported without the Pygments syntax highlighter.

    ``mako.exceptions`` (which every Mako module imports) loads Pygments, if installed, to colour
    HTML tracebacks; this compiler reports template errors as text, and Pygments was a tenth of
    a conversion's start-up. While Mako loads, its Pygments plug-in is made unimportable, so Mako
    takes its documented plain fallback; the block is lifted right after.
    """
    if "mako.exceptions" not in sys.modules:
        plugin = "mako.ext.pygmentplugin"
        present = sys.modules.get(plugin)
        sys.modules[plugin] = None  # type: ignore[assignment]  # import now raises ImportError
        try:
            import mako.lookup
        finally:
            if present is None:
                del sys.modules[plugin]
            else:
                sys.modules[plugin] = present
    import mako.lookup

    return mako.lookup


TemplateLookup = _import_mako().TemplateLookup

_CHECKING: ContextVar[object | None] = ContextVar("helia_aot_templates_checked", default=None)
"""The current :func:`templates_checked_once` block (a token), or None outside one."""


@contextmanager
def templates_checked_once() -> Iterator[None]:
    """Check each template file's date once until the block ends (the Emit stage).

    Mako's lookup checks a template's file (an ``os.stat``) every time it is asked for it, and a
    module of a thousand operators asks for some five thousand templates (two per operator and
    the base templates they inherit). The files do not change while one module is emitted;
    outside the block every ask checks again, so a template edited between conversions is used.
    """
    token = _CHECKING.set(object())
    try:
        yield
    finally:
        _CHECKING.reset(token)


class _Lookup(TemplateLookup):  # type: ignore[misc, valid-type]
    """Mako's lookup, whose date checks :func:`templates_checked_once` makes once per template."""

    _block: object | None = None
    _checked: dict[str, Any]

    def get_template(self, uri: str) -> Any:
        block = _CHECKING.get()
        if block is None:
            return super().get_template(uri)
        if self._block is not block:  # a new block: every template is checked again
            self._block, self._checked = block, {}
        template = self._checked.get(uri)
        if template is None:
            template = self._checked[uri] = super().get_template(uri)
        return template


CORE_TEMPLATE_DIR = Path(__file__).resolve().parent.parent / "templates"

CACHE_ENV = "HELIA_AOT_TEMPLATE_CACHE"
"""A folder for compiled templates, or ``off`` to compile them in memory every run."""


@lru_cache(maxsize=1)
def compiled_template_dir() -> Path | None:
    """Where compiled templates are kept between runs, or None when no folder is writable.

    Compiling the Mako templates was a third of a small model's conversion; kept as Python
    modules (and their bytecode) they load instead. ``$HELIA_AOT_TEMPLATE_CACHE`` names the
    folder (``off`` disables it); the default is ``$XDG_CACHE_HOME/helia_aot/templates``.
    """
    return cache_folder(CACHE_ENV, "templates")


def _module_file(folder: Path, filename: str, uri: str) -> str:
    """One compiled module per template path and contents: an edit or another file never reuses it."""
    digest = hashlib.sha256(filename.encode() + b"\0" + Path(filename).read_bytes()).hexdigest()[:32]
    return str(folder / f"{digest}.py")


class TemplateRenderer:
    """Renders templates found in ``directories`` (searched in order), then the core's."""

    def __init__(self, directories: Sequence[Path] = ()) -> None:
        dirs = [str(Path(d)) for d in directories] + [str(CORE_TEMPLATE_DIR)]
        folder = compiled_template_dir()
        self.lookup = _Lookup(
            directories=dirs,
            strict_undefined=True,
            input_encoding="utf-8",
            output_encoding=None,
            modulename_callable=(lambda filename, uri: _module_file(folder, filename, uri))
            if folder
            else None,
        )

    def render(self, name: str, **values: Any) -> str:
        try:
            template = self.lookup.get_template(name)
            text = template.render(**values)
        except Exception as exc:
            from mako import exceptions as mako_exceptions  # only here: it imports pygments

            detail = mako_exceptions.text_error_template().render()
            raise TemplateRenderError(
                f"template {name} failed to render: {type(exc).__name__}: {exc}",
                hint="a template or the values an operator computed for it are inconsistent",
                details=detail,
            ) from exc
        return tidy_lines(text)


_OTHER_LINE_BREAKS = re.compile("[\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
"""What ``str.splitlines`` breaks lines at besides ``\\n``."""

_TRAILING_BLANKS = re.compile(r"[^\S\n]+$", re.MULTILINE)


def tidy_lines(text: str) -> str:
    """``text`` without trailing blanks on any line and with exactly one newline at its end: what
    joining ``text.splitlines()``, each line right-stripped and trailing empty lines dropped, gives.

    One trailing newline and no trailing blanks keep the output byte-stable and diff-friendly.
    Text broken only at ``\\n`` (all generated C) is tidied by one substitution; stripping line by
    line cost a call per line of every rendered file (tests/core/test_conversion_scaling.py)."""
    if _OTHER_LINE_BREAKS.search(text) is None:
        return _TRAILING_BLANKS.sub("", text).rstrip("\n") + "\n"
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n"


@lru_cache(maxsize=32)
def _renderer(directories: tuple[str, ...]) -> TemplateRenderer:
    return TemplateRenderer([Path(d) for d in directories])


def render_template(name: str, directories: Sequence[Path] = (), **values: Any) -> str:
    """Render ``name`` with a cached renderer over ``directories`` then the core templates."""
    return _renderer(tuple(str(d) for d in directories)).render(name, **values)
