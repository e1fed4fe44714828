"""Names a package exports but imports on first use (PEP 562), written once for every package.

Start-up is most of a small model's conversion (issue 17), so a package whose names pull in
something a conversion does not need (pydantic readers, the model builder, the flatc bindings)
lists them here instead of importing them: the package's ``__getattr__`` imports the defining
module when a caller first asks, and ``__dir__`` still shows every name. Type checkers see the
real names through the package's ``if TYPE_CHECKING:`` imports.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping

WHOLE_MODULE = ""
"""The attribute to give in ``lazy_names`` when the exported name is the module itself."""


def lazy_names(
    package: str, names: Mapping[str, tuple[str, str]], defined: Mapping[str, object]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: ``names`` maps an exported name to the module
    that defines it and the attribute to take there (:data:`WHOLE_MODULE` for the module object);
    ``defined`` is the package's ``globals()`` (a live mapping: its eagerly defined names, for
    ``__dir__``)."""

    def get(name: str) -> object:
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module_name, attribute = names[name]
        module = importlib.import_module(module_name)
        return module if attribute == WHOLE_MODULE else getattr(module, attribute)

    def listing() -> list[str]:
        return sorted(set(defined) | set(names))

    return get, listing
