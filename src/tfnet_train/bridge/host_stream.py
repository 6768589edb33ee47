"""Batches a C# producer thread hands over through Unix sockets, read one pass at a time by fit (``read_ahead``, on a
thread of its own, ahead of the compiled steps) or by a tf.data generator (``generate``, one batch per request).

Protocol, per pass (one socket pair; the C# thread serves one request at a time, in order):

* request (Python to C#): int32 n, then n times (int64 address, int64 capacity in bytes): where the next batch's
  parts go (for ``read_ahead``, each part's row offset in the block being filled), or n = 0 for nowhere.
* answer (C# to Python): int32 part count (0 = end of pass; -1 = error: int32 is-argument-error, int32 length, UTF-8
  message), then per part int32 dtype code, int32 rank, int64 dims, then one byte: ``k`` when every part was copied
  into the request's memory (the part count is n and each part fits its capacity), ``d`` when the raw C-order bytes
  of each part follow instead, ``p`` when some part is held in Python (an np result made before the pass): then per
  part an int64, the address of that part's numpy array (0 for a part in C# storage), then the raw bytes of the C#
  parts. This side copies the Python-held parts (the C# thread cannot: reading them would wait for the Python thread,
  busy in fit waiting for this batch). C# keeps each array alive until this end has closed or shut its writing half,
  and this side takes its own reference to one only while its end is open (``ReadAhead`` under the lock its close
  takes).

The memory of a request stays alive on this side until its answer is read or the C# side has provably stopped (its
end closed), on every path, errors included; memory whose peer cannot be shown to have stopped is never freed. The
sockets always block (``settimeout(None)``): a global ``socket.setdefaulttimeout`` does not reach them. Neither side
calls the other: TensorFlow's threads only use a socket, and the C# thread never takes the GIL.
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import socket
import struct
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import tensorflow as tf

from tfnet_train.engine.data.errors import BatchSourceError
from tfnet_train.engine.data.stream import POOL, STREAM_BLOCK, BufferPool

#: Element types of streamed batches, by the code the C# side writes (TfNetTrain.DType's order).
STREAM_DTYPES = (np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.int32), np.dtype(np.int64))

#: The most batches, and bytes, a read-ahead pass holds for its reader (two blocks of STREAM_BLOCK batches).
READ_AHEAD_BATCHES = 2 * STREAM_BLOCK
READ_AHEAD_BYTES = 256 << 20

#: Requests a read-ahead pass keeps in flight: C# makes the next batches while this side takes one in.
READ_AHEAD_REQUESTS = 8


class HostBatchError(BatchSourceError):
    """The C# side of a batch stream failed: its enumerator threw, or the producer stopped in the middle of a pass."""


class HostStream:
    """The Python end of one C# batch source. Each pass makes a new socket pair and sends one end (a descriptor
    number) on the request channel; the C# thread answers each of the pass's requests with a batch of a fresh
    enumeration, then an end mark, and closes its end. A pass left early closes (or shuts down) its end, so the C#
    side's next read fails and that enumeration stops."""

    def __init__(self, specs: tuple[tf.TensorSpec, ...]) -> None:
        self.specs = specs
        self._requests, self._producer_end = _socketpair()
        self._ahead: weakref.WeakSet = weakref.WeakSet()
        self._sizes: list[int] = []  # per part, the most bytes a batch of the stream has needed (a slot's size)

    def take_request_socket(self) -> int:
        """The producer's end of the request channel, as a descriptor the C# side now owns (once)."""
        end, self._producer_end = self._producer_end, None
        if end is None:
            raise RuntimeError("the request socket was taken already")
        return end.detach()

    def stop_socket(self) -> int:
        """A descriptor (owned by the caller) on which writing -1 stops the producer."""
        return self._requests.dup().detach()

    def _open_pass(self) -> socket.socket:
        """Ask the C# thread for a fresh enumeration; the end this side reads it from."""
        reader_end, writer_end = _socketpair()
        try:
            _send(self._requests, struct.pack("<i", writer_end.fileno()))
            writer_end.detach()  # the C# thread owns and closes it
        except OSError as error:
            reader_end.close()
            writer_end.close()
            raise HostBatchError("the C# batch producer has stopped (its runtime was shut down?)") from error
        return reader_end

    def generate(self) -> Iterator[Any]:
        """One pass, read in the caller's thread: one request per batch, nothing read ahead (tf.data's generator).
        Its socket closes only on this thread, after the last read: Python-held parts are taken here unguarded."""
        with self._open_pass() as reader_end, reader_end.makefile("rb") as reader:
            while True:
                _send(reader_end, _request(()))  # C# makes the next batch only when asked
                parts = _read_batch(reader, ())
                if parts is None:
                    return
                yield as_batch(parts)

    def read_ahead(self) -> ReadAhead:
        """One new pass for fit, read by a thread of its own ahead of its reader (see ReadAhead). `end_passes` ends
        the passes still open."""
        ahead = ReadAhead(self._open_pass(), _Blocks(POOL, self._sizes))
        self._ahead.add(ahead)
        return ahead

    def end_passes(self) -> None:
        """End every read-ahead pass still open (a fit that stopped early): the C# thread can then serve the next
        request."""
        for ahead in list(self._ahead):
            ahead.close()

    def close(self) -> None:
        """Tell the C# thread to stop (it ends after its current pass) and release the request channel."""
        with contextlib.suppress(OSError):
            _send(self._requests, struct.pack("<i", -1))
        self._requests.close()
        if self._producer_end is not None:
            self._producer_end.close()

    def __del__(self) -> None:
        self.close()


def as_batch(parts: Sequence[np.ndarray]) -> Any:
    """The batch as a dataset yields it: one array, or a tuple of the parts when there are several. The C# side has
    checked it against the first batch (the stream's signature): the one check of a batch's structure."""
    return tuple(parts) if len(parts) > 1 else parts[0]


class _Blocks:
    """Where a read-ahead pass's batches go: slots of a batch each, `STREAM_BLOCK` of them (fewer when that would
    pass half of `READ_AHEAD_BYTES`) back to back per part in one lease per block, each part's rows at an aligned
    offset: C# copies each batch to its row offset in the block, and a block of batches reaches TensorFlow as one
    view of that memory. ``sizes`` (shared by a stream's passes) is, per part, the most bytes a batch has needed:
    the size of a slot."""

    def __init__(self, pool: BufferPool, sizes: list[int]) -> None:
        self._pool, self.sizes = pool, sizes
        self._lease: np.ndarray | None = None
        self._parts: list[tuple[int, int]] = []  # per part, its offset in the lease and the size of its slots
        self._slots = self._next = 0  # slots in the block, and the next one (none left: the next opens a block)

    def slot(self, grow: list[int] | None = None) -> tuple[np.ndarray, ...]:
        """The next slot, per part a byte view of its place in the block; () while no batch has fixed the sizes.
        ``grow``: the parts' bytes of a batch that came with them (none was offered, or it did not fit): the sizes
        grow to hold it, and its slot starts a new block."""
        if grow is not None:
            self.sizes[:] = [max(n, self.sizes[i] if i < len(self.sizes) else 0) for i, n in enumerate(grow)]
            self._next = self._slots
        if not self.sizes:
            return ()
        if self._next == self._slots:
            self._slots = max(1, min(STREAM_BLOCK, READ_AHEAD_BYTES // 2 // max(1, sum(self.sizes))))
            self._parts, end, align = [], 0, self._pool.ALIGNMENT
            for size in self.sizes:
                self._parts.append((end, size))
                end += -(-size * self._slots // align) * align
            self._lease, self._next = self._pool.lease(end), 0
        self._next += 1
        return tuple(self._lease[at + (self._next - 1) * size:at + self._next * size] for at, size in self._parts)


class ReadAhead:
    """One pass read by a thread of its own, so that C# makes and hands over the next batches while compiled steps
    run: it keeps `READ_AHEAD_REQUESTS` requests in flight, each offering the next slot of a block (see _Blocks), and
    holds up to `READ_AHEAD_BATCHES` batches or `READ_AHEAD_BYTES` (at least one batch) for its reader. A C# error is
    raised to the reader at the batch where it happened. Each batch's parts view their block's lease, whose memory
    is written again only once nothing holds it (the pool's one lease rule).

    ``close`` (also on garbage collection, or `HostStream.end_passes`) ends the pass. The thread holds the shared
    state only, never this object, so dropping the last reference closes it.
    """

    def __init__(self, reader_end: socket.socket, blocks: _Blocks) -> None:
        self._state = _AheadState(reader_end, blocks)
        self._finalizer = weakref.finalize(self, _AheadState.close, self._state)

    def __iter__(self) -> ReadAhead:
        return self

    def __next__(self) -> Any:
        return self._state.next()

    def close(self) -> None:
        self._finalizer()


_END = object()


class _AheadState:
    """What a ReadAhead's thread and its reader share: the batches read, their bytes, and whether the pass ended,
    guarded by ``_lock``."""

    def __init__(self, reader_end: socket.socket, blocks: _Blocks) -> None:
        self._socket = reader_end
        self._ready: collections.deque = collections.deque()  # (item, nbytes); item is a batch, _END or an error
        self._bytes = 0
        self._closed = False
        self._finished = False  # the thread has put its last item and closed the socket
        self._lock = threading.Condition()
        self._thread: threading.Thread | None = None  # started by the first read: an unread pass costs nothing
        self._blocks = blocks

    def start(self) -> None:
        with self._lock:
            if self._thread is None and not self._closed:
                self._thread = threading.Thread(target=self._run, name="tfnet-train C# batches", daemon=True)
                self._thread.start()

    def next(self) -> Any:
        self.start()
        with self._lock:
            while not self._ready and not self._finished and not self._closed:
                self._lock.wait()
            if not self._ready:
                raise StopIteration
            item, nbytes = self._ready.popleft()
            if item is _END or isinstance(item, BaseException):
                self._ready.appendleft((_END, 0))  # the pass stays ended for later reads
            else:
                self._bytes -= nbytes
                self._lock.notify_all()
        if item is _END:
            raise StopIteration
        if isinstance(item, BaseException):
            raise item
        return item

    def _room(self) -> bool:
        return self._closed or not self._ready or (
            len(self._ready) < READ_AHEAD_BATCHES and self._bytes < READ_AHEAD_BYTES)

    def _put(self, item: Any, nbytes: int = 0) -> None:
        with self._lock:
            self._ready.append((item, nbytes))
            self._bytes += nbytes
            self._lock.notify_all()

    def _run(self) -> None:
        in_flight: collections.deque = collections.deque()  # each request's slot, alive until its answer
        try:
            with self._socket.makefile("rb") as reader:
                while True:
                    while len(in_flight) < (READ_AHEAD_REQUESTS if self._blocks.sizes else 1):  # sizes known
                        buffers = self._blocks.slot()
                        in_flight.append(buffers)
                        with contextlib.suppress(OSError):  # C# ended the pass already: its answers tell
                            _send(self._socket, _request(buffers))
                    with self._lock:
                        while not self._room():
                            self._lock.wait()
                        if self._closed:
                            break
                    parts = _read_batch(reader, in_flight[0], self._blocks.slot, self._take)  # in flight until read
                    in_flight.popleft()
                    if parts is None:
                        self._put(_END)
                        break
                    self._put(as_batch(parts), sum(p.nbytes for p in parts))
        except BaseException as error:  # the reader sees it where the pass stopped (unless it left already)
            if not self._closed:
                self._put(error)
        finally:
            if not self._drain():  # the peer may still write into the slots in flight: their leases never end
                _UNRELEASED.extend(in_flight)
            with self._lock:
                self._finished = True
                self._socket.close()
                self._lock.notify_all()

    def _take(self, addresses: Sequence[int]) -> list[Any]:
        """The Python-held parts of the batch being read (see `_objects_at`), taken only while the pass is open:
        `close` shuts the socket's writing half under the same lock, after which C# may let them go."""
        with self._lock:
            if self._closed:
                raise HostBatchError("the pass was closed while a batch was read")
            return _objects_at(addresses)

    def _drain(self) -> bool:
        """Wait for the C# side to close its end, so no copy into this pass's buffers is still under way; whether it
        provably did (end of stream, or the peer reset the connection)."""
        with contextlib.suppress(OSError):
            self._socket.shutdown(socket.SHUT_WR)  # its next read of a request ends the pass
        try:
            while self._socket.recv(1 << 16):
                pass
        except (ConnectionResetError, BrokenPipeError):
            return True
        except OSError:
            return False
        return True

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._lock.notify_all()
            if self._thread is None:
                self._socket.close()
            elif not self._finished:  # the C# side's next read ends its pass; a copy under way still completes
                with contextlib.suppress(OSError):
                    self._socket.shutdown(socket.SHUT_WR)


#: Offered slots whose peer could not be shown to have stopped writing (an unexpected socket error): kept for good.
_UNRELEASED: list[tuple[np.ndarray, ...]] = []


def _socketpair() -> tuple[socket.socket, socket.socket]:
    """A connected pair that always blocks, whatever ``socket.setdefaulttimeout`` says."""
    pair = socket.socketpair()
    for end in pair:
        end.settimeout(None)
    return pair


def _request(buffers: tuple[np.ndarray, ...]) -> bytes:
    return struct.pack("<i", len(buffers)) + b"".join(struct.pack("<qq", b.ctypes.data, b.nbytes) for b in buffers)


def _send(sock: socket.socket, data: bytes) -> None:
    """All of ``data``, without SIGPIPE when the C# end has closed (an embedded Python may not ignore that signal)."""
    view = memoryview(data)
    while view:
        view = view[sock.send(view, socket.MSG_NOSIGNAL):]


def _read_exact(reader: Any, count: int) -> bytes:
    data = reader.read(count)
    if len(data) != count:
        raise HostBatchError("the C# batch producer stopped in the middle of a pass (its runtime was shut down?)")
    return data


def _objects_at(addresses: Sequence[int]) -> list[Any]:
    """The objects at ``addresses`` (each a new reference): numpy arrays the C# side holds alive for this read."""
    return [ctypes.cast(address, ctypes.py_object).value for address in addresses]


def _read_batch(reader: Any, buffers: tuple[np.ndarray, ...],
                place: Callable[[list[int]], tuple[np.ndarray, ...]] | None = None,
                take: Callable[[Sequence[int]], list[Any]] = _objects_at) -> list[np.ndarray] | None:
    """The answer to a request that offered ``buffers``: the batch's parts, views of those buffers when C# copied
    into them (or, for parts held in Python, this side did: ``take`` gives those arrays), else read into the byte
    buffers ``place`` gives for the parts' sizes (new arrays without it); None at the end of the pass. A C# error is
    raised here."""
    (count,) = struct.unpack("<i", _read_exact(reader, 4))
    if count == 0:
        return None
    if count < 0:
        argument, length = struct.unpack("<ii", _read_exact(reader, 8))
        message = _read_exact(reader, length).decode("utf-8")
        raise (ValueError if argument else HostBatchError)(message)
    layout = []
    for _ in range(count):
        code, rank = struct.unpack("<ii", _read_exact(reader, 8))
        layout.append((struct.unpack(f"<{rank}q", _read_exact(reader, 8 * rank)), STREAM_DTYPES[code]))
    how = _read_exact(reader, 1)
    nbytes = [int(np.prod(shape)) * dtype.itemsize for shape, dtype in layout]
    held = list(struct.unpack(f"<{count}q", _read_exact(reader, 8 * count))) if how == b"p" else [0] * count
    fits = len(buffers) == count and all(n <= b.nbytes for n, b in zip(nbytes, buffers, strict=True))
    if how == b"d" or (how == b"p" and not fits):  # held parts go where offered when all fit, as C# copies them
        buffers = place(nbytes) if place is not None else tuple(np.empty(n, np.uint8) for n in nbytes)
    if how in (b"d", b"p"):
        for buffer, n, address in zip(buffers, nbytes, held, strict=True):
            if address:
                continue
            view, done = memoryview(buffer[:n]), 0
            while done < n:
                read = reader.readinto(view[done:])
                if not read:
                    raise HostBatchError("the C# batch producer stopped in the middle of a batch")
                done += read
    elif how != b"k":
        raise HostBatchError(f"the C# batch producer sent an unknown batch mark {how!r}")
    parts = [buffer[:n].view(dtype).reshape(shape)
             for buffer, n, (shape, dtype) in zip(buffers, nbytes, layout, strict=True)]
    if any(held):
        indices = [i for i, address in enumerate(held) if address]
        for i, array in zip(indices, take([held[i] for i in indices]), strict=True):
            part = parts[i]
            if not isinstance(array, np.ndarray) or array.shape != part.shape or array.dtype.name != part.dtype.name:
                raise HostBatchError(f"batch part {i} held in Python is not the {part.dtype.name} array of shape "
                                     f"{part.shape} the C# side described")
            np.copyto(part, array)
    return parts
