"""Batches a Python iterable yields, read as they come and fed to the compiled calls a block at a time: the calls
in-memory arrays get (several steps per call), for input that is never held whole (the C# host's batches)."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import tensorflow as tf
from keras import tree

STREAM_BLOCK = 16  # batches per compiled call when nothing listens to batch hooks


class BatchStream:
    """Input for ``fit`` and ``evaluate``: ``passes()`` returns a fresh iterator for each pass over the data, yielding
    ``(x, y)`` or ``(x, y, sample_weight)`` batches of arrays, every batch with the same structure, dtypes and
    feature shapes. Batches are used in the order they come (``shuffle`` does not apply, as for a dataset)."""

    def __init__(self, passes: Callable[[], Iterator[Any]]) -> None:
        if not callable(passes):
            raise TypeError(f"passes must be a callable returning an iterator of batches, got {type(passes).__name__}")
        self.passes = passes


class BufferPool:
    """Memory for the blocks of streams, handed to TensorFlow without a copy (DLPack), under one lease rule: a lease
    is a byte array, 64-byte aligned, whose memory returns to the pool once nothing holds it or a view of it (a
    batch, a block, TensorFlow's tensor, a C# request in flight): a finalizer on the lease. Up to ``KEEP`` free
    buffers are kept (the most recently released), so pages stay in use rather than fresh ones being touched."""

    ALIGNMENT = 64  # bytes: what TensorFlow expects of the memory it borrows
    KEEP = 4  # free buffers kept

    def __init__(self) -> None:
        self._lock = threading.RLock()  # a finalizer may run on the thread that holds it
        self._free: list[np.ndarray] = []  # raw byte buffers no lease holds, oldest first
        self.allocated = 0  # buffers made in all

    def lease(self, nbytes: int) -> np.ndarray:
        """``nbytes`` of memory: a free buffer of that size when there is one, else a new one."""
        with self._lock:
            kept = [i for i, r in enumerate(self._free) if r.nbytes == nbytes + self.ALIGNMENT]
            raw = self._free.pop(kept[-1]) if kept else None
            self.allocated += raw is None
        if raw is None:
            raw = np.empty(nbytes + self.ALIGNMENT, np.uint8)
        start = -raw.ctypes.data % self.ALIGNMENT
        lease = np.frombuffer(memoryview(raw)[start:start + nbytes], np.uint8)  # views of it point at it, not raw
        weakref.finalize(lease, self._release, raw).atexit = False
        _LEASES[id(lease)] = lease
        return lease

    def block(self, arrays: Sequence[np.ndarray]) -> tf.Tensor:
        """The rows of ``arrays`` in one tensor: a view of their lease when they lie back to back in one (C# wrote
        each batch at its row offset), else copied into a new lease (a dtype DLPack does not carry: converted)."""
        dtype = np.result_type(*arrays)
        if dtype.kind not in "fiu":
            return tf.convert_to_tensor(np.concatenate(arrays))
        out = _span(arrays, self.ALIGNMENT)
        if out is None:
            shape = (sum(len(a) for a in arrays), *np.shape(arrays[0])[1:])
            out = self.lease(int(np.prod(shape)) * dtype.itemsize).view(dtype).reshape(shape)
            np.concatenate(arrays, out=out)
        return tf.experimental.dlpack.from_dlpack(out.__dlpack__())

    def _release(self, raw: np.ndarray) -> None:
        with self._lock:
            self._free.append(raw)
            del self._free[:-self.KEEP]


_LEASES: weakref.WeakValueDictionary = weakref.WeakValueDictionary()  # every live lease, by id


def _span(arrays: Sequence[np.ndarray], alignment: int) -> np.ndarray | None:
    """One array over ``arrays`` when they are C-contiguous views of one lease, of one dtype and feature shape, each
    starting where the one before ends, the first aligned; else None."""
    first = arrays[0]
    lease = getattr(first, "base", None)
    if lease is None or _LEASES.get(id(lease)) is not lease or first.ctypes.data % alignment:
        return None
    end = first.ctypes.data
    for a in arrays:
        if (getattr(a, "base", None) is not lease or a.dtype != first.dtype or a.shape[1:] != first.shape[1:]
                or not a.flags.c_contiguous or a.ctypes.data != end):
            return None
        end += a.nbytes
    rows = lease[first.ctypes.data - lease.ctypes.data:end - lease.ctypes.data].view(first.dtype)
    return rows.reshape(sum(len(a) for a in arrays), *first.shape[1:])


#: The pool of every stream's blocks (C# batches are written into its leases; other batches are copied into them).
POOL = BufferPool()


class StreamBatches:
    """One pass: ``take(count)`` reads up to ``count`` batches and keeps them as one block of rows (``data``): the
    batches' own memory when they lie back to back in a lease (as C# batches do), else a copy. It returns the rows
    of the full batches and of a partial last batch, each a ``range`` (the block's rows in order, so the compiled
    call slices rather than gathers); a batch of fewer rows ends its block, one of more rows starts the next."""

    def __init__(self, iterator: Iterator[Any], first: Any = None, pool: BufferPool | None = None) -> None:
        self._iterator = iterator
        self._pending = first
        self.data: Any = None
        self._batch_size = 0
        self._pool = pool or POOL

    def __iter__(self) -> StreamBatches:
        return self

    def __next__(self) -> Any:  # one batch (a resumed fit skipping batches; callers of take read blocks)
        batch = self._next()
        if batch is None:
            raise StopIteration
        return batch

    @property
    def batch_size(self) -> int:
        return self._batch_size

    def _next(self) -> Any:
        if self._pending is not None:
            batch, self._pending = self._pending, None
            return batch
        return next(self._iterator, None)

    def take(self, count: int) -> tuple[range | None, range | None]:
        full: list[Any] = []
        tail = None
        while len(full) < count:
            batch = self._next()
            if batch is None:
                break
            rows = _rows_of(batch)
            if rows == 0:
                raise ValueError("x: a BatchStream batch has 0 rows; every batch needs at least one")
            if not full:
                self._batch_size = rows
            if rows == self._batch_size:
                full.append(batch)
            elif rows < self._batch_size:
                tail = batch
                break
            else:  # a larger batch starts the next block
                self._pending = batch
                break
        if not full and tail is None:
            return None, None
        parts = full + ([tail] if tail is not None else [])
        columns = zip(*(tree.flatten(part) for part in parts), strict=True)
        self.data = tree.pack_sequence_as(parts[0], [self._pool.block(c) for c in columns])
        size = len(full) * self._batch_size
        return (range(size) if full else None), (range(size, size + _rows_of(tail)) if tail is not None else None)


class StreamDataAdapter:
    """The adapter the DataHandler's in-memory path reads, over a BatchStream (its length is learnt by reading it)."""

    num_batches = None
    batch_size = None
    has_partial_batch = None
    partial_batch_size = None

    def __init__(self, stream: BatchStream) -> None:
        self._stream = stream
        self._first_pass: tuple[Iterator[Any], Any] | None = None

    def first_batch(self) -> Any:
        """The first batch of the first pass (which then starts with it), to build the model before tracing."""
        iterator = iter(self._stream.passes())
        first = next(iterator, None)
        if first is None:
            raise ValueError("x: the BatchStream's first pass yielded no batch")
        self._first_pass = (iterator, first)
        return tree.map_structure(tf.convert_to_tensor, first)

    def epoch_batches(self, epoch: int = 0) -> StreamBatches:
        if self._first_pass is not None:
            iterator, first = self._first_pass
            self._first_pass = None
            return StreamBatches(iterator, first)
        return StreamBatches(iter(self._stream.passes()))

    def on_epoch_begin(self) -> None:
        pass

    def on_epoch_end(self) -> None:
        pass


def _rows_of(batch: Any) -> int:
    return int(np.shape(tree.flatten(batch)[0])[0])
