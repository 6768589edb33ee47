"""Zip archives from someone else (.npz arrays, .keras models): every member's size is checked against a cap
from the archive's declared sizes before anything is decompressed, and members are read as streams bounded by
those sizes (``zipfile`` stops at the declared size and checks the CRC), so a deflate bomb or a huge member is
refused with an error naming the file and the limit instead of exhausting memory or disk."""

from __future__ import annotations

import lzma
import os
import struct
import tokenize
import zipfile
import zlib
from pathlib import Path
from typing import IO

import numpy as np

#: Caps on an .npz (case arrays, trace files): the sum of its members' uncompressed sizes and their number.
MAX_NPZ_BYTES = 2 << 30
MAX_NPZ_MEMBERS = 65536
#: Caps on a .keras archive: the sum of its members' uncompressed sizes, and config.json's.
MAX_KERAS_BYTES = 16 << 30
MAX_KERAS_CONFIG_BYTES = 64 << 20


#: What reading a damaged member raises (bad CRC, truncated or invalid deflate, bzip2 or lzma data, encryption).
READ_ERRORS = (zipfile.BadZipFile, NotImplementedError, EOFError, RuntimeError, OSError, zlib.error, lzma.LZMAError)


def _mib(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB" if n < (1 << 30) else f"{n / (1 << 30):.1f} GiB"


def check_members(archive: zipfile.ZipFile, source: str, max_bytes: int, max_members: int) -> list[zipfile.ZipInfo]:
    """The archive's members after checking their declared uncompressed sizes (sum at most ``max_bytes``) and
    number (at most ``max_members``); ValueError naming ``source`` and the limit otherwise."""
    members = archive.infolist()
    if len(members) > max_members:
        raise ValueError(f"archive {source!r}: {len(members)} members exceed the limit of {max_members}")
    total = 0
    for info in members:
        total += info.file_size
        if total > max_bytes:
            raise ValueError(
                f"archive {source!r}: member {info.filename!r} takes the uncompressed size past the limit of "
                f"{_mib(max_bytes)} ({max_bytes} bytes)")
    return members


class _Counted:
    """A stream that counts the bytes read from it (zip member streams cannot always tell)."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream, self.count = stream, 0

    def read(self, n: int = -1) -> bytes:
        data = self.stream.read(n)
        self.count += len(data)
        return data


def _read_npy(member: IO[bytes], size: int, source: str) -> np.ndarray:
    """One .npy member of declared size ``size``: its header must describe at most the bytes that follow it, so
    the array NumPy allocates is never larger than the member."""
    stream = _Counted(member)
    try:
        version = np.lib.format.read_magic(stream)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
        elif version in ((2, 0), (3, 0)):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(stream)
        else:
            raise ValueError(f"unsupported .npy version {version}")
    except (ValueError, SyntaxError, tokenize.TokenError, TypeError, OverflowError, MemoryError,
            RecursionError) as error:  # NumPy's header parser tokenizes the header as Python
        raise ValueError(f"{source}: not a .npy array ({error})") from None
    if dtype.hasobject:
        raise ValueError(f"{source}: object arrays (pickled Python objects) are refused, got dtype {dtype}")
    header = stream.count
    count = 1
    for d in shape:
        count *= int(d)
    needed = count * dtype.itemsize
    if needed > size - header:
        raise ValueError(f"{source}: its header declares shape {tuple(shape)} of {dtype} ({needed} bytes), more "
                         f"than the member's {size} bytes hold")
    data = stream.read(needed)
    if len(data) != needed:
        raise ValueError(f"{source}: expected {needed} bytes of array data, got {len(data)}")
    array = np.frombuffer(data, dtype=dtype).copy()
    order = "F" if fortran else "C"
    return array.reshape(shape, order=order)


def load_npy(path: str | os.PathLike[str], max_bytes: int | None = None) -> np.ndarray:
    """One .npy file, pickles refused, at most ``max_bytes`` (default ``MAX_NPZ_BYTES``); ValueError naming the
    file (and the limit) otherwise."""
    source = str(path)
    max_bytes = MAX_NPZ_BYTES if max_bytes is None else max_bytes
    size = os.path.getsize(path)  # FileNotFoundError for a missing file, as open gives
    if size > max_bytes:
        raise ValueError(f"file {source!r} of {size} bytes exceeds the limit of {_mib(max_bytes)} ({max_bytes} bytes)")
    with open(path, "rb") as stream:
        return _read_npy(stream, size, f"file {source!r}")


def load_npz(path: str | os.PathLike[str], max_bytes: int | None = None,
             max_members: int | None = None) -> dict[str, np.ndarray]:
    """Every array of an .npz (keys without ``.npy``), pickles refused, within the caps (default
    ``MAX_NPZ_BYTES`` and ``MAX_NPZ_MEMBERS``); ValueError naming the file (and the limit or the member) otherwise."""
    source = str(path)
    max_bytes = MAX_NPZ_BYTES if max_bytes is None else max_bytes
    max_members = MAX_NPZ_MEMBERS if max_members is None else max_members
    archive = open_zip(path)
    arrays: dict[str, np.ndarray] = {}
    with archive:
        for info in check_members(archive, source, max_bytes, max_members):
            if not info.filename.endswith(".npy"):
                raise ValueError(f"archive {source!r}: member {info.filename!r} is not a .npy array")
            key = info.filename[:-4]
            if key in arrays:
                raise ValueError(f"archive {source!r}: member {info.filename!r} appears twice")
            try:
                with archive.open(info) as stream:
                    arrays[key] = _read_npy(stream, info.file_size, f"archive {source!r}: member {info.filename!r}")
            except READ_ERRORS as error:
                raise ValueError(f"archive {source!r}: member {info.filename!r} cannot be read ({error})") from None
    return arrays


def open_zip(path: str | os.PathLike[str]) -> zipfile.ZipFile:
    """``path`` opened as a zip archive; ValueError naming it when its directory cannot be read."""
    try:
        return zipfile.ZipFile(path)
    except FileNotFoundError:
        raise
    except (*READ_ERRORS, ValueError, struct.error, OverflowError) as error:
        raise ValueError(f"archive {str(path)!r}: not a readable zip archive ({error})") from None


def read_member(archive: zipfile.ZipFile, name: str, source: str, limit: int) -> bytes:
    """Member ``name`` whole, refused when its declared size exceeds ``limit``."""
    try:
        info = archive.getinfo(name)
    except KeyError:
        raise ValueError(f"archive {source!r}: no member {name!r}") from None
    if info.file_size > limit:
        raise ValueError(f"archive {source!r}: member {name!r} of {info.file_size} bytes exceeds the limit of "
                         f"{_mib(limit)} ({limit} bytes)")
    try:
        return archive.read(info)
    except READ_ERRORS as error:
        raise ValueError(f"archive {source!r}: member {name!r} cannot be read ({error})") from None


def free_bytes(folder: str | os.PathLike[str]) -> int:
    """Bytes free for this user in ``folder``'s file system."""
    import shutil

    return shutil.disk_usage(Path(folder)).free
