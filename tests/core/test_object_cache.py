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


def _prefixed_kernel(root: Path, prefix: str) -> Path:
    """A kernel as the Emit stage copies it: ``hk_`` / ``HK_`` names renamed to ``prefix``."""
    kernels = root / "src" / "kernels"
    kernels.mkdir(parents=True)
    upper = prefix.upper()
    (kernels / f"{prefix}_hk_k.h").write_text(f"#define {upper}_HK_SCALE 3\nint {prefix}_hk_k(int x);\n")
    source = kernels / f"{prefix}_hk_k.c"
    source.write_text(
        f'#include "{prefix}_hk_k.h"\n'
        f"int {prefix}_hk_table[2] = {{1, 2}};\n"
        f"static int {prefix}_hk_twice(int x)\n"
        f"{{ static int {prefix}_hk_calls; {prefix}_hk_calls++; return 2 * x; }}\n"
        f"int {prefix}_hk_k(int x)\n"
        f"{{ return {prefix}_hk_twice(x) * {upper}_HK_SCALE + {prefix}_hk_table[x & 1]; }}\n"
    )
    return source


def _defined(obj: Path) -> set[str]:
    out = subprocess.run(["nm", "-P", "--defined-only", str(obj)], check=True, capture_output=True, text=True)
    return {line.split(" ", 1)[0] for line in out.stdout.splitlines()}


def test_the_same_kernel_under_another_prefix_is_renamed_not_compiled(tmp_path, monkeypatch):
    """Linked programs carry one kernel under several prefixes: the second prefix's object is the
    first's with its symbols renamed (no compile), and links and runs beside the first."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    calls: list[list[str]] = []
    flags = ["gcc", "-std=c99", "-O1", "-Wall", "-Werror", "-ffunction-sections"]
    objects = []
    for prefix in ("h0", "h1", "h0"):
        source = _prefixed_kernel(tmp_path / f"{prefix}-{len(objects)}", prefix)
        obj = tmp_path / f"{len(objects)}.o"
        compile_object([*flags, "-I", str(source.parent)], source, obj, _runner(calls))
        objects.append(obj)
    assert len(calls) == 1  # h1 renamed from h0's object, the second h0 copied
    assert _defined(objects[1]) == {name.replace("h0_", "h1_") for name in _defined(objects[0])}
    assert "h1_hk_k" in _defined(objects[1]) and not any("h0_" in n for n in _defined(objects[1]))
    sections = subprocess.run(["objdump", "-h", str(objects[1])], check=True, capture_output=True, text=True)
    assert ".text.h1_hk_k" in sections.stdout and "h0_" not in sections.stdout
    main = tmp_path / "main.c"
    main.write_text(
        "int h0_hk_k(int x);\nint h1_hk_k(int x);\nint main(void) { return h0_hk_k(1) + h1_hk_k(2) != 21; }\n"
    )
    exe = tmp_path / "both"
    subprocess.run([*flags, str(main), str(objects[0]), str(objects[1]), "-o", str(exe)], check=True)
    assert subprocess.run([str(exe)]).returncode == 0


def test_a_prefix_in_a_literal_or_a_function_name_keeps_the_exact_key(tmp_path):
    """Where the prefix would reach the object's data (a string, ``__func__``), or the text holds a
    library name the renaming missed, undoing the renaming would not be exact: no prefix."""
    source = tmp_path / "src" / "kernels" / "h0_hk_k.c"
    source.parent.mkdir(parents=True)
    assert object_cache.kernel_prefix(source, b"int h0_hk_k(void) { return 1; }\n") == "h0"
    assert object_cache.kernel_prefix(source, b'const char *h0_hk_n = "h0_hk_k";\n') is None
    assert object_cache.kernel_prefix(source, b'const char c = \'"\'; const char *s = "H0_HK_X";\n') is None
    assert object_cache.kernel_prefix(source, b"void h0_hk_k(void) { puts(__func__); }\n") is None
    assert object_cache.kernel_prefix(source, b"int hk_k(void);\n") is None
    assert object_cache.kernel_prefix(tmp_path / "model.c", b"int x;\n") is None
    assert object_cache.kernel_prefix(tmp_path / "my_model_hk_k.c", b"int x;\n") is None


def test_a_source_seen_before_is_not_preprocessed_again(tmp_path, monkeypatch):
    """The key is remembered by the bytes the text came from (the source and each header its
    ``#include`` lines find), so a second module's copy skips the preprocessor; a changed header
    is other bytes."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    preprocessed: list[Path] = []
    real = object_cache._preprocessed

    def counting(cmd, source):
        preprocessed.append(source)
        return real(cmd, source)

    monkeypatch.setattr(object_cache, "_preprocessed", counting)
    calls: list[list[str]] = []
    for n, value in enumerate((3, 3, 4)):
        source = _tree(tmp_path / str(n), value)
        compile_object(["gcc", "-O1", "-I", str(source.parent)], source, tmp_path / f"{n}.o", _runner(calls))
    assert len(preprocessed) == 2 and len(calls) == 2  # the second tree: neither preprocessed nor compiled
    first, second = _tree(tmp_path / "x", 3), _tree(tmp_path / "y", 4)
    assert object_cache.inputs_digest(["gcc", f"-I{first.parent}"], first) != object_cache.inputs_digest(
        ["gcc", f"-I{second.parent}"], second
    )
    (first.parent / "hk_value.h").write_text("#define HK_VALUE 3\nstatic const char *f = __FILE__;\n")
    assert object_cache.inputs_digest(["gcc", f"-I{first.parent}"], first) is None
