"""Typed failures of a conversion.

Every error a conversion raises on purpose is a :class:`HeliaAotError`. Each class also inherits the
standard-library exception an existing handler would expect (a missing model is an ``OSError``, an
existing output a ``FileExistsError``), carries a one-line ``hint`` that says what to do about it,
optional ``details`` (a mapping or text with the specifics), and the ``exit_code`` the command line
exits with when the error ends a command.
"""

from __future__ import annotations

from typing import Any


class HeliaAotError(Exception):
    """Base class of every typed helia-aot failure (exit code 1)."""

    exit_code: int = 1

    def __init__(self, message: str, *, hint: str | None = None, details: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.details = details

    def __str__(self) -> str:
        # The product's format, which scripts that log or match str(error) rely on: the message,
        # then its hint in parentheses. ``details`` stays out: it is data for programs, not prose.
        return self.message if not self.hint else f"{self.message} (hint: {self.hint})"

    # Keep hint/details through pickling (multiprocessing, pytest-xdist).
    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_error, (type(self), self.message, self.hint, self.details))


def _rebuild_error(cls: type[HeliaAotError], message: str, hint: str | None, details: Any) -> HeliaAotError:
    return cls(message, hint=hint, details=details)


class ModelLoadError(HeliaAotError, OSError):
    """The model file is missing, unreadable, or not a well-formed LiteRT model."""

    exit_code = 2


class UnknownModelFormatError(ModelLoadError):
    """No installed model loader reads the file's format, or ``model.format`` names none; the
    message names the format and the loaders installed."""

    exit_code = 2


class OutputExistsError(HeliaAotError, FileExistsError):
    """The output already exists and ``force`` was not given."""

    exit_code = 2


class ForeignOutputError(OutputExistsError):
    """``force`` was given but the output is not (only) a module helia-aot wrote: a folder without
    helia-aot's marker or holding files it did not write, or an archive without its comment. It is
    left untouched, since replacing it could destroy a user's files."""

    exit_code = 2


class ToolMissingError(HeliaAotError, FileNotFoundError):
    """A compiler or emulator a command needs (``helia-aot test``: gcc, arm-none-eabi-gcc,
    qemu-system-arm) is not installed; the hint names the packages (exit code 2)."""

    exit_code = 2


class SelfTestBuildError(HeliaAotError, RuntimeError):
    """A module's self-test did not compile or link; the message ends with the compiler's output."""

    exit_code = 1


class ConfigValueError(HeliaAotError, ValueError):
    """A valid request the model cannot be converted with (exit code 1)."""

    exit_code = 1


class InvalidConfigError(ConfigValueError):
    """A configuration value rejected on its own, against the model, or against the target."""

    exit_code = 2


class UnsupportedModelError(ConfigValueError):
    """The model uses operators, dtypes or shapes no registered lowering accepts."""

    exit_code = 1


class DynamicShapeError(UnsupportedModelError):
    """The model does not convert at the stored shape of an input whose signature has unknown
    (-1) dimensions; the message names the input and the hint the ``model.input_shapes`` entry
    that fixes it. Its message and ``details`` are the underlying error's, with the inputs added."""

    exit_code = 1


class MissingQuantizationError(ConfigValueError):
    """A tensor read as quantized lacks its scale or zero point."""

    exit_code = 1


class OperatorOrderError(HeliaAotError, RuntimeError):
    """The operator schedule is inconsistent (an operator reads a tensor produced later)."""

    exit_code = 1


class OperatorIdError(HeliaAotError, ValueError):
    """An ``operators[]`` rule names an operator id the model does not have."""

    exit_code = 1


class TemplateRenderError(HeliaAotError, RuntimeError):
    """A code template failed to render."""

    exit_code = 1


class GoldenDataKeyError(HeliaAotError, KeyError):
    """A golden-data archive lacks a key the model needs (``input_N`` / ``output_N``)."""

    exit_code = 2


class GoldenDataNotFoundError(HeliaAotError, FileNotFoundError):
    """The golden-data archive named by ``test.golden_data`` does not exist."""

    exit_code = 2


class GoldenDataError(HeliaAotError, ValueError):
    """A golden-data archive cannot be read or does not match the model's tensors."""

    exit_code = 2


class ValidationDataError(HeliaAotError, ValueError):
    """The inputs given to ``helia-aot validate`` (an ``.npz``, a folder of ``.npy``, a callable)
    cannot be read or do not fit the model's inputs; the message names the input and the fix."""

    exit_code = 2


class RegistryFrozenError(HeliaAotError, RuntimeError):
    """A registration was attempted on a frozen registry."""

    exit_code = 1


class DuplicateRegistrationError(HeliaAotError, KeyError):
    """A key was registered twice without ``overwrite`` (or two plugins claim one key)."""

    exit_code = 1


class RegistryLookupError(HeliaAotError, KeyError):
    """A registry has no entry under the requested key."""

    exit_code = 1


class ReferenceExecutionError(HeliaAotError, RuntimeError):
    """The reference interpreter failed to run the model."""

    exit_code = 1


class ProfileError(HeliaAotError, RuntimeError):
    """``helia-aot profile`` could not cross-build or run the module (a missing tool included)."""

    exit_code = 1


class ClusterUnavailableError(HeliaAotError, ConnectionError):
    """A sweep was sent to a Dask cluster that cannot be used: the ``distributed`` extra is not
    installed, or no scheduler answers at the address (exit code 2)."""

    exit_code = 2


class PluginError(HeliaAotError, RuntimeError):
    """A plugin failed to import or raised inside a hook."""

    exit_code = 1


__all__ = [
    "ClusterUnavailableError",
    "ConfigValueError",
    "DuplicateRegistrationError",
    "DynamicShapeError",
    "ForeignOutputError",
    "GoldenDataError",
    "GoldenDataKeyError",
    "GoldenDataNotFoundError",
    "HeliaAotError",
    "InvalidConfigError",
    "MissingQuantizationError",
    "ModelLoadError",
    "OperatorIdError",
    "OperatorOrderError",
    "OutputExistsError",
    "PluginError",
    "ProfileError",
    "ReferenceExecutionError",
    "RegistryFrozenError",
    "RegistryLookupError",
    "SelfTestBuildError",
    "TemplateRenderError",
    "ToolMissingError",
    "UnknownModelFormatError",
    "UnsupportedModelError",
    "ValidationDataError",
]
