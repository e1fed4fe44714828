"""Hostile names in a model or a configuration produce C that compiles and computes what the model does.

Tensor names, the model description, the model's file name, a custom operator's code and the
module name carry comment terminators, line comments, quotes, backslashes, newlines, ``#include``,
``??/`` trigraphs, non-ASCII text, C keywords, leading digits, and names that collide once
sanitized. The modules build with ``-Wall -Wextra -Werror`` under ASan/UBSan, in ISO C99 (where
trigraphs are on) and GNU C99 (where they are off), and their self test compares the outputs with
the LiteRT reference (or, for the custom operator, with numpy). No generated file leaves the
output folder, holds a non-ASCII byte or an absolute path.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import UnsupportedModelError
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.testing import build_module
from pydantic import ValidationError

DESCRIPTION = '*/ #include <stdlib.h>\n// ??/\nint main(void) { return 1; } /* "q" \\'
MODEL_FILE = '9 evil *\\ "int" ??= é model.tflite'
TENSOR_NAMES = {
    "x": 'x */ #include "evil.h" /*',
    "w": "int",
    "bias": "9lives",
    "h": "a-b",
    "h2": "a.b",  # collides with "a-b" once sanitized
    "shape": "// comment \\",
    "r": "??/\n#define x 1\r\n??=",
    "y": "權重 é \"quoted\" 'single' \\x41",
}
HOSTILE_CODE = 'noop */ "q" \\ ??/ é\n#include <x.h>'
MODULE_NAME = '9 "int" * #include <x.h> ??= é\nx ${y}'


def hostile_model(path: Path) -> Path:
    """int8 FULLY_CONNECTED -> RELU -> RESHAPE -> SOFTMAX, every tensor hostile-named."""
    n = TENSOR_NAMES
    rng = np.random.default_rng(0)
    b = LiteRTModelBuilder(description=DESCRIPTION)
    x = b.add_tensor(n["x"], (1, 16), "int8", quantization=([0.5], [-1]))
    w = b.add_tensor(
        n["w"], (8, 16), "int8", data=rng.integers(-127, 128, (8, 16)), quantization=([0.02], [0])
    )
    bias = b.add_tensor(n["bias"], (8,), "int32", data=rng.integers(-500, 500, 8), quantization=([0.01], [0]))
    h = b.add_tensor(n["h"], (1, 8), "int8", quantization=([0.25], [3]))
    h2 = b.add_tensor(n["h2"], (1, 8), "int8", quantization=([0.25], [3]))
    shape = b.add_tensor(n["shape"], (2,), "int32", data=np.int32([2, 4]))
    r = b.add_tensor(n["r"], (2, 4), "int8", quantization=([0.25], [3]))
    y = b.add_tensor(n["y"], (2, 4), "int8", quantization=([1 / 256], [-128]))
    b.add_operator("FULLY_CONNECTED", [x, w, bias], [h], litert.FullyConnectedOptionsT())
    b.add_operator("RELU", [h], [h2])
    b.add_operator("RESHAPE", [h2, shape], [r], litert.ReshapeOptionsT())
    b.add_operator("SOFTMAX", [r], [y], litert.SoftmaxOptionsT(beta=1.0))
    b.set_inputs([x])
    b.set_outputs([y])
    return b.save(path)


def convert(model: Path, out: Path, name: str, context=None, **extra):
    config = {
        "model": {"path": str(model)},
        "module": {"path": str(out), "name": name},
        "test": {"enabled": True, "samples": 3, "tolerance": 0.0},
    }
    config.update(extra)
    return AotConverter(ConvertArgs.model_validate(config), context).convert()


def build_and_run(module: Path, build: Path, *flags: str, sanitize: bool = True) -> str:
    exe = build_module(module, build, sanitize=sanitize, extra_cflags=flags)
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0", UBSAN_OPTIONS="halt_on_error=1")
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 0 and "PASS" in proc.stdout, proc.stdout + proc.stderr[-3000:]
    return proc.stdout


def assert_clean_tree(module: Path, *forbidden: str) -> None:
    """Every file lies inside the module, the C is ASCII, no hostile text became a preprocessor
    line (inside comments and string literals it is inert, which the builds prove), and no file
    mentions the temporary folder the model came from."""
    root = module.resolve()
    for path in module.rglob("*"):
        assert path.resolve().is_relative_to(root) and not path.is_symlink(), path
        if path.suffix in (".c", ".h"):
            data = path.read_bytes()
            assert max(data, default=0) < 128, f"{path.name} holds non-ASCII bytes"
            directives = [line for line in data.decode().splitlines() if line.lstrip().startswith("#")]
            for word in forbidden:
                assert not any(word in line for line in directives), f"{word!r} reached {path.name}"
        if path.is_file():
            assert str(Path("/tmp").resolve()) not in path.read_text(errors="replace"), path


def test_hostile_tensor_names_description_and_file_name(tmp_path):
    model = hostile_model(tmp_path / MODEL_FILE)
    result = convert(model, tmp_path / "out", "hostile")
    build_and_run(result.output, tmp_path / "iso", "-trigraphs")
    build_and_run(result.output, tmp_path / "gnu", "-std=gnu99", sanitize=False)
    assert_clean_tree(result.output, "evil.h", "define x", "stdlib.h", "main(void)")
    enumerators = (result.output / "includes-api" / "aot_tensors.h").read_text()
    names = [
        line.split("=")[0].strip() for line in enumerators.splitlines() if "= " in line and "aot_t" in line
    ]
    assert len(names) == len(set(names)) >= len(TENSOR_NAMES)  # operators may add tensors of their own


def test_hostile_module_name(tmp_path):
    """A module name becomes a folder, a CMake target and comments: anything but a plain folder
    name is refused before any work, naming the key, and nothing is written."""
    model = hostile_model(tmp_path / "model.tflite")
    with pytest.raises(ValidationError, match="module.name"):
        convert(model, tmp_path / "out", MODULE_NAME)
    assert not (tmp_path / "out").exists()


def test_module_name_derived_from_a_hostile_file_name_is_sanitized(tmp_path):
    model = hostile_model(tmp_path / 'evil "name" ??= \n*x.tflite')
    config = ConvertArgs.model_validate(
        {"model": {"path": str(model)}, "module": {"path": str(tmp_path / "out")}}
    )
    assert re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", config.module.name)


def test_hostile_custom_code_is_refused_at_load(tmp_path):
    """A customCode that cannot be a canonical key never reaches C: the load stops with its reason.

    (Before issue 12 such a code was kept and escaped into the C; the product refuses it, and a
    module that converts there must convert here, so the key rules now refuse it the same way.)
    """
    b = LiteRTModelBuilder(description=DESCRIPTION)
    x = b.add_tensor(TENSOR_NAMES["x"], (1, 8), "int8", quantization=([0.5], [2]))
    y = b.add_tensor(TENSOR_NAMES["h"], (1, 8), "int8", quantization=([0.5], [2]))
    b.add_custom_operator(HOSTILE_CODE, [x], [y])
    b.set_inputs([x])
    b.set_outputs([y])
    model = b.save(tmp_path / "custom.tflite")
    with pytest.raises(UnsupportedModelError, match="no operator key may contain") as info:
        convert(model, tmp_path / "out", "custom", test={"enabled": False})
    assert info.value.hint and "ASCII letters" in info.value.hint
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("code", ["conv-2d", "fully connected"])
def test_custom_code_cannot_take_a_builtin_key(tmp_path, code):
    """``conv-2d`` canonicalizes to CONV_2D; dispatching it to the builtin would change its meaning."""
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (1, 8), "float32")
    y = b.add_tensor("y", (1, 8), "float32")
    b.add_custom_operator(code, [x], [y])
    b.set_inputs([x])
    b.set_outputs([y])
    with pytest.raises(UnsupportedModelError, match=f"custom operator '{code}'.*belongs to the builtin"):
        convert(b.save(tmp_path / "m.tflite"), tmp_path / "out", "m", test={"enabled": False})
