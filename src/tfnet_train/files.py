"""Files written whole or not at all: a temporary file in the target's folder, flushed and synced, then renamed."""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path

# fsync on a directory that the platform or file system cannot sync: nothing to make durable, not an I/O failure.
_SYNC_NOT_SUPPORTED = frozenset({errno.EINVAL, errno.EBADF, errno.EROFS, errno.ENOTSUP, errno.EOPNOTSUPP})


def fsync_directory(folder: Path) -> None:
    """Make a rename inside ``folder`` durable.

    Windows cannot open a directory to sync it and file systems that do not sync directories answer EINVAL (or
    similar); those are skipped. Any other failure (EIO, ENOSPC, a folder that cannot be opened) is raised: the
    rename may not survive a crash.
    """
    if os.name == "nt":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError as error:
        if error.errno not in _SYNC_NOT_SUPPORTED:
            raise
    finally:
        os.close(fd)


def _create_beside(target: Path, folder: Path, suffix: str) -> Path:
    """A new empty file in ``folder`` with the mode a plain ``open(target, "w")`` would give it: the target's own
    mode when it exists, else 0o666 less the process's umask (``tempfile.mkstemp`` would give 0o600)."""
    try:
        mode: int | None = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    for _ in range(100):
        name = folder / f".{target.name}.{secrets.token_hex(6)}.tmp{suffix}"
        try:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
        except FileExistsError:
            continue
        try:
            if mode is not None:
                os.chmod(fd if os.chmod in os.supports_fd else name, mode)
        finally:
            os.close(fd)
        return name
    raise FileExistsError(errno.EEXIST, f"no free temporary name beside {str(target)!r}")


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str], suffix: str | None = None) -> Iterator[Path]:
    """A temporary path beside ``path`` to write to; on success it is synced and renamed over ``path``.

    ``suffix`` (default: ``path``'s own, e.g. ``.weights.h5``) is kept so writers that check the extension accept
    it. On failure the temporary file is removed and ``path`` is untouched: a crash at any moment leaves the old
    file or the new one, whole. The new file has the mode a plain ``open`` would give (the umask's, or the old
    file's).
    """
    target = Path(path)
    folder = target.parent
    folder.mkdir(parents=True, exist_ok=True)
    if suffix is None:
        suffix = "".join(target.suffixes[-2:]) if target.name.endswith(".weights.h5") else target.suffix
    temporary = _create_beside(target, folder, suffix)
    try:
        yield temporary
        with open(temporary, "rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, target)
        fsync_directory(folder)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()


def write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all."""
    with atomic_path(path) as temporary:
        temporary.write_bytes(data)


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` whole or not at all."""
    write_bytes(path, text.encode("utf-8"))
