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


class BlockBuffers:
    """Memory for the blocks of a stream's passes, handed to TensorFlow without a copy (DLPack). Each block leases a
    buffer; the lease ends when TensorFlow lets go of the block's memory (DLPack's deleter drops the view it was
    given, whose finalizer hands the buffer back), so a buffer is written again only once no tensor holds it, on any
    interpreter. Up to ``KEEP`` free buffers are kept, so the pages stay in use rather than fresh ones being touched
    for every block. The copy into a buffer is the only one between a batch and the compiled call."""

    ALIGNMENT = 64  # bytes: what TensorFlow expects of the memory it borrows
    KEEP = 4  # free buffers kept (the most recently released)

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._free: list[np.ndarray] = []  # raw byte buffers no tensor holds, oldest first
        self.allocated = 0  # buffers made in all

    def gather(self, arrays: Sequence[np.ndarray]) -> tf.Tensor:
        """The rows of ``arrays`` in one tensor (a dtype DLPack does not carry is converted, i.e. copied)."""
        dtype = np.result_type(*arrays)
        if dtype.kind not in "fiu":
            return tf.convert_to_tensor(np.concatenate(arrays))
        shape = (sum(len(a) for a in arrays), *np.shape(arrays[0])[1:])
        nbytes = int(np.prod(shape)) * dtype.itemsize
        raw = self._lease(nbytes)
        start = -raw.ctypes.data % self.ALIGNMENT
        out = raw[start:start + nbytes].view(dtype).reshape(shape)
        weakref.finalize(out, self._release, raw)  # TensorFlow holds ``out`` until it lets go of the memory
        np.concatenate(arrays, out=out)
        return tf.experimental.dlpack.from_dlpack(out.__dlpack__())

    def _lease(self, nbytes: int) -> np.ndarray:
        with self._lock:
            for i, raw in enumerate(self._free):
                if raw.nbytes == nbytes + self.ALIGNMENT:
                    return self._free.pop(i)
            self.allocated += 1
        return np.empty(nbytes + self.ALIGNMENT, np.uint8)

    def _release(self, raw: np.ndarray) -> None:
        with self._lock:
            self._free.append(raw)
            del self._free[:-self.KEEP]


class StreamBatches:
    """One pass: ``take(count)`` reads up to ``count`` batches and keeps them as one block of rows (``data``), with the
    row indices ``ArrayBatches.take`` gives; a batch of fewer rows ends its block as the partial batch. An iterator
    with ``recycle(batch)`` gets each batch back once its rows are copied."""

    def __init__(self, iterator: Iterator[Any], first: Any = None, buffers: BlockBuffers | None = None) -> None:
        self._iterator = iterator
        self._pending = first
        self.data: Any = None
        self._batch_size = 0
        self._buffers = buffers or BlockBuffers()
        self._recycle = getattr(iterator, "recycle", None)

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

    def take(self, count: int) -> tuple[np.ndarray | None, np.ndarray | None]:
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
        self.data = tree.pack_sequence_as(parts[0], [self._buffers.gather(c) for c in columns])
        if self._recycle is not None:
            for part in parts:
                self._recycle(part)
        size = len(full) * self._batch_size
        full_rows = np.arange(size) if full else None
        tail_rows = np.arange(size, size + _rows_of(tail)) if tail is not None else None
        return full_rows, tail_rows


class StreamDataAdapter:
    """The adapter the DataHandler's in-memory path reads, over a BatchStream (its length is learnt by reading it)."""

    num_batches = None
    batch_size = None
    has_partial_batch = None
    partial_batch_size = None

    def __init__(self, stream: BatchStream) -> None:
        self._stream = stream
        self._first_pass: tuple[Iterator[Any], Any] | None = None
        self._buffers = BlockBuffers()  # shared by the passes of one fit

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
            return StreamBatches(iterator, first, self._buffers)
        return StreamBatches(iter(self._stream.passes()), buffers=self._buffers)

    def on_epoch_begin(self) -> None:
        pass

    def on_epoch_end(self) -> None:
        pass


def _rows_of(batch: Any) -> int:
    return int(np.shape(tree.flatten(batch)[0])[0])
