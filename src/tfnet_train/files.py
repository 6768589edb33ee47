"""Files written whole or not at all: a temporary file in the target's folder, flushed and synced, then renamed."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path


def fsync_directory(folder: Path) -> None:
    """Make a rename inside ``folder`` durable (where the platform allows syncing a directory)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str], suffix: str | None = None) -> Iterator[Path]:
    """A temporary path beside ``path`` to write to; on success it is synced and renamed over ``path``.

    ``suffix`` (default: ``path``'s own, e.g. ``.weights.h5``) is kept so writers that check the extension accept
    it. On failure the temporary file is removed and ``path`` is untouched: a crash at any moment leaves the old
    file or the new one, whole.
    """
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    folder.mkdir(parents=True, exist_ok=True)
    if suffix is None:
        suffix = "".join(target.suffixes[-2:]) if target.name.endswith(".weights.h5") else target.suffix
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=f".tmp{suffix}", dir=folder)
    os.close(fd)
    temporary = Path(name)
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
