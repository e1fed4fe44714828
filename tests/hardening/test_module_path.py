"""Every ``module.path`` the convert() reference lists for InvalidConfigError, raised before the model loads.

The model path given here does not exist, so a conversion that got past the destination check
would fail with ModelLoadError instead: each InvalidConfigError is proof the check came first.

The suite runs as root, whose permission checks always pass, so the two permission cases (a
directory that cannot be searched, one without write permission) run twice: once with the refusals
the operating system gives an unprivileged user put in place of ``os.access`` and ``Path.lstat``
(this runs as any user, root included), and once for real in a forked child that has dropped to an
unprivileged user. A root that cannot drop its privileges (no ``fork``, no ``setuid``) goes through
the required-tools rule: the real run skips on a developer's machine and fails under CI.
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
from helia_aot.testing import require

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
    """Run ``fn()`` as an unprivileged user; return what it raised (None if nothing).

    Root passes every permission check, so the check must run as someone else to mean anything.
    The child is forked (not exec'd) so it needs no access to the interpreter's files.
    """
    if os.geteuid() != 0:
        return _outcome(fn)
    if not hasattr(os, "fork"):
        require("running as root without fork(): cannot drop privileges to test permissions")
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
        require(f"running as root and cannot become an unprivileged user: {result[1]}")
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


PERMISSION_CASES = ["no_write", "no_write_archive", "unsearchable", "unsearchable_archive"]


def permission_case(shared_dir: Path, case: str) -> tuple[Path, dict, str]:
    """The locked folder, the module settings that reach into it and the refusal expected."""
    locked = shared_dir / "locked"
    locked.mkdir()
    suffix = "out.zip" if case.endswith("archive") else "out"
    if case.startswith("no_write"):
        locked.chmod(0o555)
        return locked, {"path": locked / suffix, "name": "m"}, "no permission to write under"
    locked.chmod(0o644)  # readable, not searchable
    return locked, {"path": locked / "inner" / suffix, "name": "m"}, "cannot be searched"


@pytest.mark.parametrize("case", PERMISSION_CASES)
def test_permission_cases_as_the_os_refuses_an_unprivileged_user(shared_dir, case, monkeypatch):
    """The refusals an unprivileged user gets, given to the check whoever runs it (root too).

    For a user who neither owns the locked folder nor is in its group, the kernel applies the
    mode's "other" bits: ``os.access`` grants only what they allow, and ``lstat`` of anything
    inside the folder fails with PermissionError when they lack search (x) permission.
    """
    locked, module, expected = permission_case(shared_dir, case)
    other_bits = locked.stat().st_mode & 0o007
    real_access, real_lstat = os.access, Path.lstat

    def access(path, mode, *args, **kwargs):
        if Path(path) != locked:
            return real_access(path, mode, *args, **kwargs)
        wanted = (4 if mode & os.R_OK else 0) | (2 if mode & os.W_OK else 0) | (1 if mode & os.X_OK else 0)
        return wanted & other_bits == wanted

    def lstat(self):
        if locked in self.parents and not other_bits & 0o001:
            raise PermissionError(13, "Permission denied", str(self))
        return real_lstat(self)

    monkeypatch.setattr(os, "access", access)
    monkeypatch.setattr(Path, "lstat", lstat)
    with pytest.raises(InvalidConfigError) as info:
        converter(module).convert()
    assert expected in str(info.value) and info.value.exit_code == 2 and info.value.hint
    assert sorted(p.name for p in shared_dir.iterdir()) == ["locked"]


@pytest.mark.parametrize("case", PERMISSION_CASES)
def test_permission_cases_as_an_unprivileged_user(shared_dir, case):
    _, module, expected = permission_case(shared_dir, case)
    with pytest.raises(ModelLoadError):
        converter({"path": shared_dir / "free", "name": "m"}).convert()  # imports every stage first
    result = in_unprivileged_child(lambda: converter(module).convert())
    assert result is not None and result[0] == "InvalidConfigError", result
    assert expected in result[1] and result[2] == 2
    assert sorted(p.name for p in shared_dir.iterdir()) == ["locked"]
