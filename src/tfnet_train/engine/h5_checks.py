"""Size checks on HDF5 files before Keras reads them: libhdf5 lets a file declare any shape, and h5py allocates
the declared size before it reads a byte, so a dataset is read only if the file stores what it declares and the
model it is loaded into could hold it."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

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


def _datasets(group: h5py.Group) -> list[tuple[str, h5py.Dataset]]:
    """Every dataset reachable from ``group`` by hard links (each object once, as libhdf5's visit gives them)."""
    found: list[tuple[str, h5py.Dataset]] = []

    def visit(name: str, item: Any) -> None:
        if isinstance(item, h5py.Dataset):
            found.append((f"{group.name.rstrip('/')}/{name}", item))

    group.visititems(visit)
    return found


def _declared_bytes(dataset: h5py.Dataset) -> int:
    return int(np.prod(dataset.shape, dtype=np.int64)) * dataset.dtype.itemsize


def check_stored_sizes(group: h5py.Group, source: str) -> int:
    """ValueError when a dataset under ``group`` declares more than its file stores for it (unwritten chunks, a
    layout that points past the file's end, more than ``MAX_FILTER_RATIO`` times its compressed bytes) or keeps its
    data outside the file (external storage, virtual datasets); returns the bytes all of them declare."""
    file_size = group.file.id.get_filesize()
    total = 0
    for name, dataset in _datasets(group):
        declared = _declared_bytes(dataset)
        total += declared
        plist = dataset.id.get_create_plist()
        if dataset.is_virtual or plist.get_external_count():
            raise ValueError(f"{source}: dataset {name!r} keeps its data outside the file (an external or virtual "
                             "dataset); weights files must hold their own data")
        if declared == 0:
            continue
        stored = dataset.id.get_storage_size()
        if stored > file_size:
            raise ValueError(f"{source}: dataset {name!r} claims {stored} stored bytes, more than the file's "
                             f"{file_size}")
        allowed = stored * MAX_FILTER_RATIO if plist.get_nfilters() else stored
        if declared > allowed:
            raise ValueError(f"{source}: dataset {name!r} declares {declared} bytes (shape {dataset.shape}, "
                             f"{dataset.dtype}) but the file stores {stored} bytes for it; refusing to read it")
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
    for name, dataset in _datasets(group):
        declared = _declared_bytes(dataset)
        total += declared
        if declared > largest:
            raise ValueError(f"{source}: dataset {name!r} declares {declared} bytes (shape {dataset.shape}), more "
                             f"than the model's largest variable takes ({largest} bytes)")
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


def check_h5_file(path: str | Path, variables: Iterable[Any] | None = None) -> None:
    """Both checks on the HDF5 file at ``path`` (the variables check only when ``variables`` are given)."""
    source = f"filepath {str(path)!r}"
    try:
        f = h5py.File(path, "r")
    except OSError as error:
        raise OSError(f"{source} is an HDF5 file that h5py could not open: {error}") from error
    with f:
        check_stored_sizes(f, source)
        if variables is not None:
            check_fits_variables(f, variables, source)


def check_keras_archive(path: str | Path, variables: Iterable[Any] | None = None) -> None:
    """Both checks on the weights (``*.h5`` members) inside the ``.keras`` archive at ``path``."""
    with archives.open_zip(path) as archive:
        for item in archive.infolist():
            if not item.filename.endswith(".h5"):
                continue
            source = f"archive {str(path)!r}, member {item.filename!r}"
            with archive.open(item) as member, h5py.File(member, "r") as f:
                check_stored_sizes(f, source)
                if variables is not None:
                    check_fits_variables(f, variables, source)
