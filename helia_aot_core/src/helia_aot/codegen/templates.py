"""Mako template lookup with a defined precedence: user override directory, plugins, core.

Templates travel inside the package that owns them. A plugin template may ``<%inherit>`` a core
base template because all directories share one lookup.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from mako import exceptions as mako_exceptions
from mako.lookup import TemplateLookup

from helia_aot.errors import TemplateRenderError

CORE_TEMPLATE_DIR = Path(__file__).resolve().parent.parent / "templates"


class TemplateRenderer:
    """Renders templates found in ``directories`` (searched in order), then the core's."""

    def __init__(self, directories: Sequence[Path] = ()) -> None:
        dirs = [str(Path(d)) for d in directories] + [str(CORE_TEMPLATE_DIR)]
        self.lookup = TemplateLookup(
            directories=dirs, strict_undefined=True, input_encoding="utf-8", output_encoding=None
        )

    def render(self, name: str, **values: Any) -> str:
        try:
            template = self.lookup.get_template(name)
            text = template.render(**values)
        except Exception as exc:
            detail = mako_exceptions.text_error_template().render()
            raise TemplateRenderError(
                f"template {name} failed to render: {type(exc).__name__}: {exc}",
                hint="a template or the values an operator computed for it are inconsistent",
                details=detail,
            ) from exc
        # One trailing newline and no trailing blanks keep the output byte-stable and diff-friendly.
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
