"""The kernel object cache: a hit only where the compiler would produce the same object."""

from __future__ import annotations

import subprocess
from pathlib import Path

from helia_aot.testing import object_cache
from helia_aot.testing.object_cache import CACHE_ENV, compile_object, is_kernel_source


def _tree(root: Path, header_value: int) -> Path:
    kernels = root / "src" / "kernels"
    kernels.mkdir(parents=True)
    (kernels / "hk_value.h").write_text(f"#define HK_VALUE {header_value}\n")
    source = kernels / "hk_k.c"
    source.write_text('#include "hk_value.h"\nint hk_k(void) { return HK_VALUE; }\n')
    return source


def _runner(calls: list[list[str]]):
    def run(cmd: list[str]) -> None:
        calls.append(cmd)
        subprocess.run(cmd, check=True, capture_output=True)

    return run


def test_same_preprocessed_source_is_compiled_once_whatever_its_folder(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    calls: list[list[str]] = []
    first, second = _tree(tmp_path / "a", 3), _tree(tmp_path / "b", 3)
    for n, source in enumerate((first, second)):
        cmd = ["gcc", "-std=c99", "-O1", "-I", str(source.parent)]
        compile_object(cmd, source, tmp_path / f"{n}.o", _runner(calls))
    assert len(calls) == 1  # the second module's copy was a hit despite its other -I folder
    assert (tmp_path / "0.o").read_bytes() == (tmp_path / "1.o").read_bytes()


def test_a_changed_header_or_flag_misses(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    calls: list[list[str]] = []
    base, other_header = _tree(tmp_path / "a", 3), _tree(tmp_path / "b", 4)
    compile_object(["gcc", "-O1", f"-I{base.parent}"], base, tmp_path / "0.o", _runner(calls))
    compile_object(["gcc", "-O1", f"-I{other_header.parent}"], other_header, tmp_path / "1.o", _runner(calls))
    compile_object(["gcc", "-O2", f"-I{base.parent}"], base, tmp_path / "2.o", _runner(calls))
    assert len(calls) == 3


def test_without_the_variable_nothing_is_cached(tmp_path, monkeypatch):
    monkeypatch.delenv(CACHE_ENV, raising=False)
    assert object_cache.cache_dir() is None
    calls: list[list[str]] = []
    source = _tree(tmp_path / "a", 3)
    for n in range(2):
        compile_object(["gcc", f"-I{source.parent}"], source, tmp_path / f"{n}.o", _runner(calls))
    assert len(calls) == 2


def test_only_kernel_library_sources_are_cached():
    assert is_kernel_source(Path("out/src/kernels/aot_hk_conv.c"))
    assert not is_kernel_source(Path("out/src/aot_model.c"))
