"""tfnet_train.bridge.datasets from Python: the streamed-batch protocol (with a Python stand-in for the C# producer),
fit's all-or-nothing guarantee on data errors, multi-output predict and the image-folder reader's errors."""

from __future__ import annotations

import contextlib
import ctypes
import socket
import struct
import sys
import threading
import time
from pathlib import Path
from typing import Any

import keras
import numpy as np
import pytest
import tensorflow as tf

import tfnet_train
from tfnet_train import optimizers
from tfnet_train.bridge import datasets, host_stream


class _Held:
    """A batch part the stand-in producer gives as the C# side gives an array held in Python: by its address."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array


def _answer(parts: list[np.ndarray | _Held], offered: list[tuple[int, int]]) -> bytes:
    """A batch as the C# producer answers a request (host_stream's protocol): copied into the offered memory when
    every part fits there, else its bytes after the header; with a part held in Python, the parts' addresses (0 for
    the others, whose bytes follow)."""
    arrays = [p.array if isinstance(p, _Held) else p for p in parts]
    out = struct.pack("<i", len(parts))
    for part in arrays:
        code = list(host_stream.STREAM_DTYPES).index(part.dtype)
        out += struct.pack("<ii", code, part.ndim) + struct.pack(f"<{part.ndim}q", *part.shape)
    if any(isinstance(p, _Held) for p in parts):
        out += b"p" + b"".join(struct.pack("<q", id(p.array) if isinstance(p, _Held) else 0) for p in parts)
        return out + b"".join(p.tobytes() for p in parts if not isinstance(p, _Held))
    if len(offered) == len(parts) and all(p.nbytes <= size for p, (_, size) in zip(parts, offered)):
        for part, (address, _) in zip(parts, offered):
            ctypes.memmove(address, part.ctypes.data, part.nbytes)
        return out + b"k"
    return out + b"d" + b"".join(part.tobytes() for part in parts)


def _read_request(out: socket.socket) -> list[tuple[int, int]] | None:
    head = out.recv(4, socket.MSG_WAITALL)
    if len(head) < 4:
        return None
    (n,) = struct.unpack("<i", head)
    body = out.recv(16 * n, socket.MSG_WAITALL) if n else b""
    return [struct.unpack_from("<qq", body, 16 * i) for i in range(n)]


def _producer(stream: host_stream.HostStream, passes: list[list[np.ndarray] | str], served: list[int],
              offers: list[list[tuple[int, int]]] | None = None, delay: float = 0.0) -> threading.Thread:
    """Answers each pass's requests like the C# thread: one batch per request (each made in ``delay`` seconds), then
    the end (or an error) mark. ``offers`` gets the memory each answered request offered."""
    requests = socket.socket(fileno=stream.take_request_socket())
    requests.settimeout(None)

    def serve() -> None:
        with requests:
            for batches in passes:
                fd = struct.unpack("<i", requests.recv(4))[0]
                with socket.socket(fileno=fd) as out:
                    out.settimeout(None)
                    for batch in batches:
                        offered = _read_request(out)
                        if offered is None:  # the reader left the pass early
                            break
                        time.sleep(delay)
                        if offers is not None:
                            offers.append(offered)
                        if isinstance(batch, str):
                            message = batch.encode()
                            out.sendall(struct.pack("<iii", -1, 1, len(message)) + message)
                            break
                        out.sendall(_answer(batch, offered))
                        served.append(1)
                    else:
                        if _read_request(out) is not None:
                            out.sendall(struct.pack("<i", 0))
                        continue
                    with contextlib.suppress(OSError):  # like the C# side: read requests until the reader's end
                        while _read_request(out) is not None:
                            pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return thread


def test_stream_yields_each_pass_and_raises_producer_errors() -> None:
    x = np.arange(24, dtype=np.float32).reshape(6, 4)
    y = np.arange(6, dtype=np.int64)
    batches = [[x[:4], y[:4]], [x[4:], y[4:]]]
    stream = datasets.host_stream([([-1, 4], "float32"), ([-1], "int64")])
    served: list[int] = []
    producer = _producer(stream, [batches, batches, [batches[0], "batch 1 part 0 is float32 (2, 5)"]], served)
    dataset = datasets.from_host_stream(stream)
    for _ in range(2):
        got = list(dataset.as_numpy_iterator())
        assert len(got) == 2
        np.testing.assert_array_equal(np.concatenate([b[0] for b in got]), x)
        np.testing.assert_array_equal(np.concatenate([b[1] for b in got]), y)
    with pytest.raises(tf.errors.InvalidArgumentError, match="batch 1 part 0 is float32"):
        list(dataset.as_numpy_iterator())
    producer.join(5)
    assert not producer.is_alive() and len(served) == 5
    stream.close()


def _model() -> tfnet_train.Model:
    model = tfnet_train.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    model.compile(optimizers.Adam(0.01), keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def _streamed_as_arrays(dataset: tf.data.Dataset, x: np.ndarray, y: np.ndarray, batch_size: int,
                        epochs: int) -> tuple[tfnet_train.Model, tfnet_train.Model, dict, keras.callbacks.History]:
    """A model fit on the stream and its twin on the same rows as arrays: equal weights, bit for bit."""
    streamed, arrays = _model(), _model()
    arrays.set_weights(streamed.get_weights())
    history = datasets.fit_dataset(streamed, dataset, epochs=epochs)
    expected = arrays.fit(x, y, batch_size=batch_size, epochs=epochs, shuffle=False, verbose=0)
    for a, b in zip(streamed.get_weights(), arrays.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)
    return streamed, arrays, history, expected


def test_fit_dataset_restores_the_model_after_a_data_error() -> None:
    model = _model()
    x = np.random.rand(12, 4).astype(np.float32)
    y = np.random.randint(0, 3, 12)
    datasets.fit_dataset(model, tf.data.Dataset.from_tensor_slices((x, y)).batch(4))
    before = [v.numpy().copy() for v in model.weights + model.optimizer.variables]
    counter = int(model._train_counter.numpy())

    def check_rows(bx: tf.Tensor, by: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
        tf.debugging.assert_less(tf.reduce_max(bx), 2.0, message="a bad row")  # fails on the third batch
        return bx, by

    bad_x = x.copy()
    bad_x[9] = 5.0
    with pytest.raises(tf.errors.InvalidArgumentError, match="a bad row"):
        datasets.fit_dataset(model, tf.data.Dataset.from_tensor_slices((bad_x, y)).batch(4).map(check_rows))
    after = [v.numpy() for v in model.weights + model.optimizer.variables]
    assert all(np.array_equal(a, b) for a, b in zip(before, after))
    assert int(model._train_counter.numpy()) == counter
    with pytest.raises(TypeError, match="dataset must yield elements of 2 or 3 part"):
        datasets.fit_dataset(model, tf.data.Dataset.from_tensor_slices(x).batch(4))


def test_predict_dataset_gives_every_output() -> None:
    inputs = keras.Input((4,))
    model = tfnet_train.Model(inputs=inputs, outputs=[keras.layers.Dense(3)(inputs), keras.layers.Dense(1)(inputs)])
    x = np.random.rand(7, 4).astype(np.float32)
    outputs = datasets.predict_dataset(model, tf.data.Dataset.from_tensor_slices(x).batch(3))
    expected = model.predict(x, batch_size=3, verbose=0)
    assert len(outputs) == 2
    for got, want in zip(outputs, expected):
        np.testing.assert_array_equal(got.numpy(), want)


def test_image_folder_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="directory must be an existing folder"):
        datasets.image_dataset_from_directory(str(tmp_path / "missing"))
    with pytest.raises(ValueError, match='subset must be "training", "validation" or None'):
        datasets.image_dataset_from_directory(str(tmp_path), subset="both", validation_split=0.2, seed=1)


def _stream_of(batches: list[list[np.ndarray]], passes: int, served: list[int], offers: list | None = None,
               plan: list | None = None, delay: float = 0.0) -> tuple[tf.data.Dataset, threading.Thread]:
    stream = datasets.host_stream([([-1, 4], "float32"), ([-1], "int64")])
    producer = _producer(stream, plan or [batches] * passes, served, offers, delay)
    return datasets.from_host_stream(stream), producer


def test_fit_reads_streamed_batches_ahead_into_memory_it_offers() -> None:
    x = np.random.default_rng(1).random((70, 4), dtype=np.float32)
    y = np.random.default_rng(2).integers(0, 3, 70)
    batches = [[x[i:i + 8], y[i:i + 8]] for i in range(0, 70, 8)]  # 8 batches of 8 rows, then one of 6
    served: list[int] = []
    offers: list[list[tuple[int, int]]] = []
    dataset, producer = _stream_of(batches, 3, served, offers)
    streamed, arrays, history, expected = _streamed_as_arrays(dataset, x, y, 8, 3)
    np.testing.assert_array_equal(history["history"]["loss"], expected.history["loss"])
    assert len(served) == 3 * len(batches)
    assert offers[0] == [] and {len(o) for o in offers[1:]} == {2}  # after the first batch every request offers memory
    producer.join(5)
    assert not producer.is_alive()
    with pytest.raises(host_stream.HostBatchError, match="producer has stopped"):  # it served its three passes
        datasets.fit_dataset(streamed, dataset)
    for a, b in zip(streamed.get_weights(), arrays.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_each_batch_is_written_once_at_its_row_offset_and_the_block_is_that_memory(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tfnet_train.engine.data import stream

    x = np.random.default_rng(13).random((70, 4), dtype=np.float32)
    y = np.random.default_rng(14).integers(0, 3, 70)
    batches = [[x[i:i + 8], y[i:i + 8]] for i in range(0, 70, 8)]  # 8 batches of 8 rows, then one of 6: one block
    blocks: list[int] = []
    block = stream.BufferPool.block

    def recorded(self: stream.BufferPool, arrays: list[np.ndarray]) -> tf.Tensor:
        tensor = block(self, arrays)
        blocks.append(np.from_dlpack(tensor).ctypes.data)  # the memory the compiled call reads
        return tensor

    monkeypatch.setattr(stream.BufferPool, "block", recorded)
    served: list[int] = []
    offers: list[list[tuple[int, int]]] = []
    dataset, producer = _stream_of(batches, 2, served, offers)
    _streamed_as_arrays(dataset, x, y, 8, 2)
    sizes = (x[:8].nbytes, y[:8].nbytes)  # a slot per part: one batch's bytes
    starts = []
    for first, offset in ((1, 1), (9, 0)):  # the first pass's first batch came with its bytes, into slot 0
        start = [offers[first][p][0] - offset * sizes[p] for p in range(2)]
        assert start[0] % stream.BufferPool.ALIGNMENT == 0 and start[1] % stream.BufferPool.ALIGNMENT == 0
        for k in range(offset, 9):  # batch k of the pass goes to row 8 k of the block, in every part
            assert offers[first - offset + k] == [(start[p] + k * sizes[p], sizes[p]) for p in range(2)]
        starts += start
    assert blocks == starts  # x's and y's block of each pass: the memory the producer wrote, not a copy
    producer.join(5)
    assert not producer.is_alive()


def test_later_passes_write_into_block_memory_earlier_ones_released(monkeypatch: pytest.MonkeyPatch) -> None:
    from tfnet_train.engine.data import stream

    pool = stream.BufferPool()
    monkeypatch.setattr(host_stream, "POOL", pool)
    x = np.random.default_rng(15).random((64, 4), dtype=np.float32)
    y = np.random.default_rng(16).integers(0, 3, 64)
    batches = [[x[i:i + 8], y[i:i + 8]] for i in range(0, 64, 8)]  # one block per pass
    served: list[int] = []
    dataset, producer = _stream_of(batches, 8, served)
    datasets.fit_dataset(_model(), dataset, epochs=8)
    assert len(served) == 8 * len(batches)
    assert pool.allocated <= 3  # eight passes, a block each: the leases ended and their memory was written again
    producer.join(5)
    assert not producer.is_alive()


def test_parts_held_in_python_are_read_by_this_side() -> None:
    """Parts the C# side holds in Python come as their arrays' addresses (mark 'p'), C# parts' bytes after them: fit
    (read ahead) copies them into the memory it offered, tf.data's generator into new arrays, in C order whatever
    the array's, and each array is left as it was, its references included."""
    x = np.random.default_rng(17).random((40, 4), dtype=np.float32)
    y = np.random.default_rng(18).integers(0, 3, 40)
    arrays = [[x[i:i + 8].copy() if i % 16 else np.asfortranarray(x[i:i + 8]), y[i:i + 8].copy()]
              for i in range(0, 40, 8)]
    batches = [[_Held(bx), by if i == 1 else _Held(by)] for i, (bx, by) in enumerate(arrays)]  # one mixed batch
    references = [sys.getrefcount(a) for batch in arrays for a in batch]
    served: list[int] = []
    offers: list[list[tuple[int, int]]] = []
    dataset, producer = _stream_of(batches, 3, served, offers)
    _, _, history, expected = _streamed_as_arrays(dataset, x, y, 8, 2)
    np.testing.assert_array_equal(history["history"]["loss"], expected.history["loss"])
    assert {len(o) for o in offers[1:5]} == {2}  # read ahead: memory offered, and the held parts copied into it
    got = list(dataset.as_numpy_iterator())  # the third pass, through tf.data's generator
    np.testing.assert_array_equal(np.concatenate([b[0] for b in got]), x)
    np.testing.assert_array_equal(np.concatenate([b[1] for b in got]), y)
    producer.join(5)
    assert not producer.is_alive() and len(served) == 3 * len(batches)
    assert [sys.getrefcount(a) for batch in arrays for a in batch] == references


def test_a_closed_pass_takes_no_python_held_part() -> None:
    """Once a read-ahead pass is closed (its socket's writing half shut, so the C# side may let go of the arrays it
    lent), taking a Python-held part is a HostBatchError, not a read of an array that may be gone."""
    reader_end, writer_end = socket.socketpair()
    ahead = host_stream.ReadAhead(reader_end, host_stream._Blocks(host_stream.POOL, []))
    array = np.zeros(3, np.float32)
    assert ahead._state._take([id(array)])[0] is array
    ahead.close()
    with pytest.raises(host_stream.HostBatchError, match="pass was closed"):
        ahead._state._take([id(array)])
    writer_end.close()


def test_a_global_socket_timeout_does_not_reach_the_stream_and_a_slow_producer_is_waited_for() -> None:
    x = np.random.default_rng(11).random((32, 4), dtype=np.float32)
    y = np.random.default_rng(12).integers(0, 3, 32)
    batches = [[x[i:i + 8], y[i:i + 8]] for i in range(0, 32, 8)]
    served: list[int] = []
    previous = socket.getdefaulttimeout()
    socket.setdefaulttimeout(0.05)  # as any library may: the producer takes longer per batch
    try:
        dataset, producer = _stream_of(batches, 1, served, delay=0.2)
        streamed, arrays = _model(), _model()
        arrays.set_weights(streamed.get_weights())
        history = datasets.fit_dataset(streamed, dataset)
    finally:
        socket.setdefaulttimeout(previous)
    expected = arrays.fit(x, y, batch_size=8, shuffle=False, verbose=0)
    np.testing.assert_array_equal(history["history"]["loss"], expected.history["loss"])
    producer.join(5)
    assert not producer.is_alive() and len(served) == len(batches)


class _StopAfter(keras.callbacks.Callback):
    def __init__(self, batches: int) -> None:
        super().__init__()
        self.batches = batches

    def on_train_batch_end(self, batch: int, logs: dict | None = None) -> None:
        if batch + 1 >= self.batches:
            self.model.stop_training = True


def test_a_fit_that_stops_early_ends_its_pass_and_the_next_fit_reads_a_fresh_one() -> None:
    x = np.random.default_rng(3).random((64, 4), dtype=np.float32)
    y = np.random.default_rng(4).integers(0, 3, 64)
    batches = [[x[i:i + 8], y[i:i + 8]] for i in range(0, 64, 8)]
    served: list[int] = []
    dataset, producer = _stream_of(batches, 2, served)
    model = _model()
    history = datasets.fit_dataset(model, dataset, epochs=3, callbacks=[_StopAfter(2)])
    assert history["epoch"] == [0]
    history = datasets.fit_dataset(model, dataset)  # would hang if the first pass still held the producer
    assert history["epoch"] == [0]
    producer.join(5)
    assert not producer.is_alive() and len(served) >= 2 + len(batches)


def test_a_producer_error_mid_pass_leaves_the_model_as_it_was() -> None:
    x = np.random.default_rng(5).random((48, 4), dtype=np.float32)
    y = np.random.default_rng(6).integers(0, 3, 48)
    batches = [[x[i:i + 8], y[i:i + 8]] for i in range(0, 48, 8)]
    served: list[int] = []
    plan = [batches, batches[:3] + ["batch 3 part 0 is float32 (8, 5)"]]
    dataset, producer = _stream_of(batches, 2, served, plan=plan)
    model = _model()
    datasets.fit_dataset(model, dataset)
    before = [v.numpy().copy() for v in model.weights + model.optimizer.variables]
    counter = int(model._train_counter.numpy())
    with pytest.raises(ValueError, match="batch 3 part 0 is float32"):
        datasets.fit_dataset(model, dataset)
    assert all(np.array_equal(a, v.numpy()) for a, v in zip(before, model.weights + model.optimizer.variables))
    assert int(model._train_counter.numpy()) == counter
    producer.join(5)
    assert not producer.is_alive()


def test_each_epoch_reads_one_pass_and_an_error_in_a_later_epoch_still_restores() -> None:
    x = np.random.default_rng(7).random((128, 4), dtype=np.float32)
    y = np.random.default_rng(8).integers(0, 3, 128)
    batches = [[x[i:i + 2], y[i:i + 2]] for i in range(0, 128, 2)]
    served: list[int] = []
    plan = [batches] * 3 + [batches, batches[:3] + ["batch 3 part 0 is float32 (2, 5)"], batches]
    dataset, producer = _stream_of(batches, 0, served, plan=plan)
    streamed, _, _, _ = _streamed_as_arrays(dataset, x, y, 2, 3)
    assert len(served) == 3 * len(batches)
    before = [v.numpy().copy() for v in streamed.weights + streamed.optimizer.variables]
    with pytest.raises(ValueError, match="batch 3 part 0 is float32"):  # in the second epoch's pass
        datasets.fit_dataset(streamed, dataset, epochs=2)
    assert all(np.array_equal(a, v.numpy()) for a, v in zip(before, streamed.weights + streamed.optimizer.variables))
    assert datasets.fit_dataset(streamed, dataset)["epoch"] == [0]  # the sixth pass: the producer was left free
    producer.join(5)
    assert not producer.is_alive()


def test_group_inputs_nests_the_leading_components() -> None:
    a = np.arange(6, dtype=np.float32).reshape(3, 2)
    b = a + 10
    y = np.array([0.0, 1.0, 2.0], np.float32)
    zipped = tf.data.Dataset.zip(*(tf.data.Dataset.from_tensor_slices(v) for v in (a, b, y)))
    (x1, x2), label = next(iter(datasets.group_inputs(zipped, 2)))
    np.testing.assert_array_equal(x1.numpy(), a[0])
    np.testing.assert_array_equal(x2.numpy(), b[0])
    assert float(label) == 0.0
    inputs_only = tf.data.Dataset.zip(tf.data.Dataset.from_tensor_slices(a), tf.data.Dataset.from_tensor_slices(b))
    element = next(iter(datasets.group_inputs(inputs_only, 2)))
    assert len(element) == 1 and len(element[0]) == 2  # (x,): what Keras's predict reads as x alone
    for count in (1, 4):
        with pytest.raises(ValueError, match=f"FirstInputTensorCount must be between 2 and the 3 .*got {count}"):
            datasets.group_inputs(zipped, count)
    with pytest.raises(TypeError, match="dataset must be a tf.data.Dataset"):
        datasets.group_inputs([a, b], 2)


def test_keras_datasets_are_loaded_by_keras_and_a_failed_download_names_the_dataset(monkeypatch: Any) -> None:
    from tfnet_train.bridge.datasets import keras_dataset

    images = np.arange(2 * 28 * 28, dtype=np.uint8).reshape(2, 28, 28)
    labels = np.array([3, 7], np.uint8)
    monkeypatch.setattr(keras.datasets.mnist, "load_data", lambda: ((images, labels), (images[:1], labels[:1])))
    x_train, y_train, x_test, y_test = keras_dataset("mnist")
    assert x_train is images and y_train is labels and x_test.shape == (1, 28, 28) and y_test.tolist() == [3]

    def offline() -> None:
        raise Exception("URL fetch failure on https://storage.googleapis.com/...: None -- [Errno -3]")

    monkeypatch.setattr(keras.datasets.cifar10, "load_data", offline)
    with pytest.raises(OSError, match=r"keras.datasets.cifar10.load_data\(\): URL fetch failure.*digits"):
        keras_dataset("cifar10")
    with pytest.raises(ValueError, match="imdb"):
        keras_dataset("imdb")
