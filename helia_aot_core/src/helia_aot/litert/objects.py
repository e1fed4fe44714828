"""The object-API classes a conversion reads models into, made from the schema's table layouts.

A model read by :func:`helia_aot.converters.litert.reader.read_model` is a tree of these objects:
``ModelT``, ``SubGraphT``, ``TensorT``, ``OperatorT``, ``Conv2DOptionsT``... with the attributes,
defaults and attribute order of the flatc object API in ``schema_py_generated``, so code written
against the bindings (``op.builtinOptions.strideW``, ``tensor.quantization.scale``) reads them
unchanged. They are made here, one class per table on first use, from the plain data of
:mod:`helia_aot.litert.schema_tables`, because importing the bindings (1 MB of bytecode, ~360
classes) cost every conversion 10-15 ms for the few tables a model uses.

``Pack(builder)`` still works on them: it converts the tree to the bindings' classes (importing
them then) and packs that, so :func:`helia_aot.litert.builder.pack_model` and hand-written
``model.Pack(builder)`` calls serialize a read model as before. Class identity is the one thing
that differs: ``isinstance(x, schema_py_generated.TensorT)`` is false for these; compare
``type(x).__name__`` (what the loader does) to accept both.
"""

from __future__ import annotations

from typing import Any, ClassVar

from helia_aot.litert.schema_tables import TABLES


class LiteRTObject:
    """Base of the object-API classes: fields set to their schema defaults, in schema order."""

    TABLE: ClassVar[str] = ""
    """The schema table the class stands for (``"Tensor"`` for ``TensorT``)."""

    _DEFAULTS: ClassVar[dict[str, Any]] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Like the bindings' __init__: every field in order, positional or keyword overrides.
        self.__dict__.update(self._DEFAULTS)
        if args or kwargs:
            names = list(self._DEFAULTS)
            if len(args) > len(names):
                raise TypeError(
                    f"{type(self).__name__}() takes {len(names)} field arguments, got {len(args)}"
                )
            for name, value in zip(names, args):
                setattr(self, name, value)
            for name, value in kwargs.items():
                if name not in self._DEFAULTS:
                    raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument {name!r}")
                setattr(self, name, value)

    def Pack(self, builder: Any) -> int:  # noqa: N802 (the bindings' method name)
        """Write the table (and everything under it) to a ``flatbuffers.Builder``; its offset."""
        return int(to_generated(self).Pack(builder))


_CLASSES: dict[str, type[Any]] = {}


def object_class(table: str) -> type[Any]:
    """The object-API class of schema table ``table`` (``"Conv2DOptions"`` -> ``Conv2DOptionsT``)."""
    cls = _CLASSES.get(table)
    if cls is None:
        layout = TABLES[table]  # KeyError: not a table of the schema
        name = table + "T"
        namespace = {
            "__module__": __name__,
            "__qualname__": name,
            "__doc__": f"The object API of LiteRT table ``{table}``.",
            "TABLE": table,
            "_DEFAULTS": {attr: default for attr, _, _, default in layout},
        }
        cls = _CLASSES[table] = type(name, (LiteRTObject,), namespace)
    return cls


def to_generated(value: Any) -> Any:
    """``value`` with every :class:`LiteRTObject` in it (lists included) turned into the bindings'
    class of the same name, attributes copied; anything else is returned as it is."""
    if isinstance(value, LiteRTObject):
        from helia_aot.litert import schema_py_generated as litert  # only to pack a model

        out = getattr(litert, type(value).__name__)()
        for name, item in vars(value).items():
            setattr(out, name, to_generated(item))
        return out
    if isinstance(value, list):
        return [to_generated(item) for item in value]
    return value


def __getattr__(name: str) -> type[Any]:
    """``objects.TensorT`` and the like: the class of the table the name ends ``T`` on."""
    if name.endswith("T") and name[:-1] in TABLES:
        return object_class(name[:-1])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["LiteRTObject", "object_class", "to_generated"]
