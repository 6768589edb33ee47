"""Size checks on HDF5 files before Keras reads them: libhdf5 lets a file declare any shape, and h5py allocates
the declared size before it reads a byte, so a dataset is read only if the file stores what it declares and the
model it is loaded into could hold it."""

from __future__ import annotations

import contextlib
import heapq
import math
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any, NamedTuple

import h5py
import numpy as np

from tfnet_train import archives

# deflate's largest expansion (1032:1); any other HDF5 filter is held to the same ratio.
MAX_FILTER_RATIO = 1032
# the most a weights file may declare beyond what its model's variables (and their optimizer slots) take.
SLACK_BYTES = 1 << 20
# each dataset may declare at least this much whatever the model (an optimizer's int64 counter beside 1x1 kernels).
SMALL_DATASET_BYTES = 64 << 10
# a model's variables, an optimizer's slots (Adam: two per variable) and its own counters.
VARIABLE_COPIES = 4
# what h5py raises for a file libhdf5 cannot parse (it maps libhdf5's error classes onto built-in types; OSError,
# the type it gives a file it cannot open, is left as it is).
H5PY_ERRORS = (RuntimeError, KeyError, TypeError, NotImplementedError, ValueError)


def _innermost(error: BaseException) -> Any:
    """The code object of the frame that raised ``error`` (None without a traceback)."""
    tb = error.__traceback__
    if tb is None:
        return None
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_code


def raised_by_h5py(error: BaseException) -> bool:
    """True when ``error`` was raised inside h5py (its report of a libhdf5 failure), not by the code calling it."""
    code = _innermost(error)
    return code is not None and "h5py" in Path(code.co_filename).parts


def _missing_entry(error: BaseException) -> bool:
    """True for the KeyError Keras's HDF5 readers raise for a group or dataset the file lacks."""
    code = _innermost(error)
    return (isinstance(error, KeyError) and code is not None and "keras" in Path(code.co_filename).parts
            and code.co_name in ("safe_get_h5_group", "safe_get_h5_dataset"))


@contextlib.contextmanager
def h5_errors_named(source: str) -> Iterator[None]:
    """Inside the block, an error h5py raises for a damaged file (``H5PY_ERRORS``) and the KeyError Keras's readers
    raise for a group or dataset the file lacks, as a ValueError naming ``source``; every other error as it is."""
    try:
        yield
    except H5PY_ERRORS as error:
        if raised_by_h5py(error):
            raise ValueError(f"{source}: libhdf5 cannot read this HDF5 file (truncated or damaged: "
                             f"{type(error).__name__}: {error})") from error
        if _missing_entry(error):
            raise ValueError(f"{source}: the file has no {error} entry where the model's weights need one") from error
        raise


class _Dataset(NamedTuple):
    name: str
    shape: tuple[int, ...] | None  # None for an empty (null) dataspace
    declared: int  # bytes its shape and type take in memory
    stored: int  # bytes the file stores for it
    filtered: bool
    outside: bool  # external storage or a virtual dataset


def _datasets(group: h5py.Group, source: str) -> list[_Dataset]:
    """Every dataset reachable from ``group`` by hard links (each object once, as libhdf5's visit gives them), read
    while the file is open; ValueError naming ``source`` when libhdf5 cannot parse the structure."""
    found: list[_Dataset] = []

    def visit(name: str, item: Any) -> None:
        if not isinstance(item, h5py.Dataset):
            return
        plist = item.id.get_create_plist()
        shape = None if item.shape is None else tuple(int(n) for n in item.shape)
        declared = 0 if shape is None else math.prod(shape) * item.dtype.itemsize  # exact: no int64 overflow
        found.append(_Dataset(f"{group.name.rstrip('/')}/{name}", shape, declared, item.id.get_storage_size(),
                              plist.get_nfilters() > 0,
                              item.is_virtual or plist.get_external_count() > 0))

    with h5_errors_named(source):
        group.visititems(visit)
    return found


class _Forward:
    """Reads a stream at offsets that never go back, holding only the bytes from the last offset asked for."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream, self.base, self.buffer = stream, 0, b""

    def read(self, offset: int, size: int) -> bytes:
        """Up to ``size`` bytes at ``offset`` (fewer at the end of the stream); ``offset`` at or after the last."""
        while offset > self.base + len(self.buffer):  # skip ahead
            self.base += len(self.buffer)
            self.buffer = self.stream.read(min(offset - self.base, _WINDOW))
            if not self.buffer:
                return b""
        self.buffer, self.base = self.buffer[offset - self.base:], offset
        while len(self.buffer) < size:
            more = self.stream.read(max(size - len(self.buffer), _WINDOW))
            if not more:
                break
            self.buffer += more
        return self.buffer[:size]


_WINDOW = 1 << 20
_GLOBAL_HEAP = b"GCOL"


def check_global_heaps(stream: IO[bytes], size_of_lengths: int, source: str) -> None:
    """ValueError when a global heap collection in the HDF5 bytes of ``stream`` (where libhdf5 keeps
    variable-length strings, such as Keras's ``model_config``) holds an object libhdf5 1.14's parser never gets
    past: a free-space object (index 0) of size 0, on which ``H5HG__cache_heap_deserialize`` loops forever.

    libhdf5 finds a collection by address and requires it to start with ``b"GCOL"`` and version 1, so every such
    place in the stream is walked as that parser walks it (one pass, each position once: linear in the size).
    ``size_of_lengths`` is the file's (``get_create_plist().get_sizes()[1]``)."""
    header = 8 + size_of_lengths  # "GCOL", version, 3 reserved bytes, the collection's size; an object's the same
    reader = _Forward(stream)
    walks: dict[int, int] = {}  # an object's position -> the end of its collection (the furthest, where walks meet)
    queue: list[int] = []

    def walk(position: int, end: int) -> None:
        if position < end:
            if position not in walks:
                heapq.heappush(queue, position)
            walks[position] = max(walks.get(position, 0), end)

    window = 0
    while True:
        data = reader.read(window, _WINDOW + header)
        at = data.find(_GLOBAL_HEAP)
        while 0 <= at < _WINDOW:
            if len(data) >= at + header and data[at + 4] == 1:
                walk(window + at + header, window + at + int.from_bytes(data[at + 8:at + header], "little"))
            at = data.find(_GLOBAL_HEAP, at + 1)
        last = len(data) < _WINDOW + header
        while queue and (last or queue[0] < window + _WINDOW):
            position = heapq.heappop(queue)
            end = walks.pop(position)
            if position + header > end:
                continue  # the rest of the collection is free space
            head = reader.read(position, header)
            if len(head) < header:
                continue  # past the end of the file: libhdf5 cannot read it
            index, size = int.from_bytes(head[:2], "little"), int.from_bytes(head[8:], "little")
            need = header + (size + 7) // 8 * 8 if index else size
            if need == 0:
                raise ValueError(f"{source}: the global heap object at byte {position} is empty free space, on which "
                                 "libhdf5's parser would never return; refusing to read the file")
            walk(position + need, end)  # at or past the end: the walk is over (libhdf5 stops there too)
        if last:
            return
        window += _WINDOW


def _size_of_lengths(f: h5py.File, source: str) -> int:
    with h5_errors_named(source):
        return int(f.id.get_create_plist().get_sizes()[1])


def check_stored_sizes(group: h5py.Group, source: str) -> int:
    """ValueError when a dataset under ``group`` declares more than its file stores for it (unwritten chunks, a
    layout that points past the file's end, more than ``MAX_FILTER_RATIO`` times its compressed bytes) or keeps its
    data outside the file (external storage, virtual datasets); returns the bytes all of them declare."""
    with h5_errors_named(source):
        file_size = group.file.id.get_filesize()
    total = 0
    for dataset in _datasets(group, source):
        name, declared, stored = dataset.name, dataset.declared, dataset.stored
        total += declared
        if dataset.outside:
            raise ValueError(f"{source}: dataset {name!r} keeps its data outside the file (an external or virtual "
                             "dataset); weights files must hold their own data")
        if declared == 0:
            continue
        if stored > file_size:
            raise ValueError(f"{source}: dataset {name!r} claims {stored} stored bytes, more than the file's "
                             f"{file_size}")
        allowed = stored * MAX_FILTER_RATIO if dataset.filtered else stored
        if declared > allowed:
            raise ValueError(f"{source}: dataset {name!r} declares {declared} bytes (shape {dataset.shape}) but "
                             f"the file stores {stored} bytes for it; refusing to read it")
    if total > archives.MAX_KERAS_BYTES:
        raise ValueError(f"{source}: its datasets declare {total} bytes in all, more than the "
                         f"{archives.MAX_KERAS_BYTES}-byte cap")
    return total


def check_fits_variables(group: h5py.Group, variables: Iterable[Any], source: str) -> None:
    """ValueError when a dataset under ``group`` is larger than any of ``variables`` could take (with a floor of
    ``SMALL_DATASET_BYTES``), or all of them together declare more than ``VARIABLE_COPIES`` times the variables'
    bytes plus ``SLACK_BYTES``: such a file cannot load into this model, so it is refused before it is read."""
    sizes = [int(np.prod(v.shape, dtype=np.int64)) * np.dtype(_numpy_dtype(v)).itemsize for v in variables]
    largest = max([SMALL_DATASET_BYTES, *sizes])
    budget = VARIABLE_COPIES * sum(sizes) + SLACK_BYTES
    total = 0
    for dataset in _datasets(group, source):
        total += dataset.declared
        if dataset.declared > largest:
            raise ValueError(f"{source}: dataset {dataset.name!r} declares {dataset.declared} bytes (shape "
                             f"{dataset.shape}), more than the model's largest variable takes ({largest} bytes)")
    if total > budget:
        raise ValueError(f"{source}: its datasets declare {total} bytes in all, more than this model's variables "
                         f"and optimizer slots could take ({budget} bytes)")


def _numpy_dtype(variable: Any) -> Any:
    dtype = getattr(variable, "dtype", "float32")
    dtype = getattr(dtype, "as_numpy_dtype", dtype)  # tf.DType
    try:
        return np.dtype(dtype)
    except TypeError:
        return np.dtype("float32")


def check_open_file(f: h5py.File, stream: IO[bytes], source: str, variables: Iterable[Any] | None = None) -> None:
    """Every check on the open HDF5 file ``f`` whose bytes ``stream`` reads: the global heaps, the stored sizes, and
    the sizes against ``variables`` when they are given."""
    check_global_heaps(stream, _size_of_lengths(f, source), source)
    check_stored_sizes(f, source)
    if variables is not None:
        check_fits_variables(f, variables, source)


def check_h5_file(path: str | Path, variables: Iterable[Any] | None = None) -> None:
    """Both checks on the HDF5 file at ``path`` (the variables check only when ``variables`` are given)."""
    source = f"filepath {str(path)!r}"
    try:
        f = h5py.File(path, "r")
    except OSError as error:
        raise OSError(f"{source} is an HDF5 file that h5py could not open: {error}") from error
    with f, open(path, "rb") as stream:
        check_open_file(f, stream, source, variables)


def check_keras_archive(path: str | Path, variables: Iterable[Any] | None = None) -> None:
    """Both checks on the weights (``*.h5`` members) inside the ``.keras`` archive at ``path``."""
    with archives.open_zip(path) as archive:
        for item in archive.infolist():
            if not item.filename.endswith(".h5"):
                continue
            source = f"archive {str(path)!r}, member {item.filename!r}"
            with archive.open(item) as member, h5_errors_named(source), h5py.File(member, "r") as f:
                with archive.open(item) as stream:
                    check_open_file(f, stream, source, variables)
