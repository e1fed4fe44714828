"""Every ``module.path`` the convert() reference lists for InvalidConfigError, raised before the model loads.

The model path given here does not exist, so a conversion that got past the destination check
would fail with ModelLoadError instead: each InvalidConfigError is proof the check came first.

The suite runs as root, whose permission checks always pass, so the two permission cases (a
directory that cannot be searched, one without write permission) run the check in a forked child
that has dropped to an unprivileged user. Where that is impossible they are skipped, saying why.
"""

from __future__ import annotations

import os
import pickle
import shutil
import tempfile
from pathlib import Path

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import InvalidConfigError, ModelLoadError

NOBODY = 65534


def converter(module: dict, force: bool = False) -> AotConverter:
    cfg = ConvertArgs.model_validate(
        {
            "model": {"path": "/nonexistent/model.tflite"},
            "module": {k: str(v) for k, v in module.items()},
            "force": force,
        }
    )
    return AotConverter(cfg)


def rejected(module: dict, match: str, force: bool = False) -> InvalidConfigError:
    with pytest.raises(InvalidConfigError, match=match) as info:
        converter(module, force).convert()
    assert info.value.exit_code == 2 and info.value.hint
    return info.value


def test_a_directory_path_that_names_a_file(tmp_path):
    (tmp_path / "file").write_text("x")
    rejected({"path": tmp_path / "file", "name": "m"}, "is a file, not a directory")


def test_the_module_folder_itself_being_a_file(tmp_path):
    (tmp_path / "m").write_text("x")
    rejected({"path": tmp_path, "name": "m"}, "is a file, not a module directory", force=True)


def test_an_archive_path_that_names_a_directory(tmp_path):
    for suffix in (".zip", ".pack"):
        (tmp_path / f"out{suffix}").mkdir()
        rejected({"path": tmp_path / f"out{suffix}", "name": "m"}, "names an archive but is a directory")


@pytest.mark.parametrize("where", ["module_path", "module_folder", "archive", "ancestor"])
def test_a_symbolic_link_to_nothing(tmp_path, where):
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "missing")
    module = {
        "module_path": {"path": link, "name": "m"},
        "module_folder": {"path": tmp_path, "name": "link"},
        "archive": {"path": tmp_path / "link.zip", "name": "m"},
        "ancestor": {"path": link / "deeper" / "out", "name": "m"},
    }[where]
    if where == "archive":
        (tmp_path / "link.zip").symlink_to(tmp_path / "missing.zip")
    rejected(module, "symbolic link to nothing", force=True)


def test_a_path_under_a_file(tmp_path):
    (tmp_path / "file").write_text("x")
    rejected({"path": tmp_path / "file" / "sub" / "out", "name": "m"}, "lies under the file")
    rejected({"path": tmp_path / "file" / "out.zip", "name": "m"}, "lies under the file")


@pytest.mark.parametrize("name", ["n" * 300, "é" * 200])
def test_a_file_name_the_file_system_cannot_hold(tmp_path, name):
    if name.isascii():  # non-ASCII module names are refused earlier, by the configuration
        rejected({"path": tmp_path, "name": name}, "too long for the file system")
    rejected({"path": tmp_path / f"{name}.zip", "name": "m"}, "too long for the file system")
    rejected({"path": tmp_path / name / "deeper", "name": "m"}, "too long for the file system")


@pytest.mark.parametrize("name", ["..", ".", "a/b", "../../escape", "a\\b", "/abs", "a\0b"])
def test_a_module_name_that_is_not_one_folder(tmp_path, name):
    """The export refuses it even when assigned after validation (which only checks construction)."""
    conversion = converter({"path": tmp_path, "name": "m"})
    conversion.config.module.name = name
    with pytest.raises(InvalidConfigError, match="not a single folder name"):
        conversion.convert()
    assert list(tmp_path.iterdir()) == []


def in_unprivileged_child(fn):
    """Run ``fn()`` as an unprivileged user; return what it raised (None if nothing) or skip.

    Root passes every permission check, so the check must run as someone else to mean anything.
    The child is forked (not exec'd) so it needs no access to the interpreter's files.
    """
    if os.geteuid() != 0:
        return _outcome(fn)
    if not hasattr(os, "fork"):
        pytest.skip("running as root without fork(): cannot drop privileges to test permissions")
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child's coverage is not collected
        try:
            os.close(read)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            result = _outcome(fn)
        except BaseException as exc:  # dropping privileges itself failed
            result = ("setup", f"{type(exc).__name__}: {exc}")
        with os.fdopen(write, "wb") as pipe:
            pickle.dump(result, pipe)
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    result = pickle.loads(data)
    if isinstance(result, tuple) and result[0] == "setup":
        pytest.skip(f"running as root and cannot become an unprivileged user: {result[1]}")
    return result


def _outcome(fn):
    try:
        fn()
    except Exception as exc:  # reported to the parent, which asserts on it
        return (type(exc).__name__, str(exc), getattr(exc, "exit_code", None))
    return None


@pytest.fixture
def shared_dir():
    """A folder the unprivileged child can reach (pytest's tmp_path is private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="helia_perm_"))
    folder.chmod(0o755)
    yield folder
    for path in [folder, *folder.rglob("*")]:
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o755)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("case", ["no_write", "no_write_archive", "unsearchable", "unsearchable_archive"])
def test_permission_cases(shared_dir, case):
    locked = shared_dir / "locked"
    locked.mkdir()
    if case.startswith("no_write"):
        locked.chmod(0o555)
        module = {"path": locked / ("out.zip" if case.endswith("archive") else "out"), "name": "m"}
        expected = "no permission to write under"
    else:
        locked.chmod(0o644)  # readable, not searchable
        module = {"path": locked / "inner" / ("out.zip" if case.endswith("archive") else "out"), "name": "m"}
        expected = "cannot be searched"
    with pytest.raises(ModelLoadError):
        converter({"path": shared_dir / "free", "name": "m"}).convert()  # imports every stage first
    result = in_unprivileged_child(lambda: converter(module).convert())
    assert result is not None and result[0] == "InvalidConfigError", result
    assert expected in result[1] and result[2] == 2
    assert sorted(p.name for p in shared_dir.iterdir()) == ["locked"]
