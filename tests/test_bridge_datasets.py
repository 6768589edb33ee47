"""tfnet_train.bridge.datasets from Python: the streamed-batch protocol (with a Python stand-in for the C# producer),
fit's all-or-nothing guarantee on data errors, multi-output predict and the image-folder reader's errors."""

from __future__ import annotations

import socket
import struct
import threading
from pathlib import Path

import keras
import numpy as np
import pytest
import tensorflow as tf

import tfnet_train
from tfnet_train import optimizers
from tfnet_train.bridge import datasets


def _frame(parts: list[np.ndarray]) -> bytes:
    """A batch as the C# producer writes it (HostStream's frame)."""
    out = struct.pack("<i", len(parts))
    for part in parts:
        code = [np.dtype(d) for d in datasets.STREAM_DTYPES].index(part.dtype)
        out += struct.pack("<ii", code, part.ndim) + struct.pack(f"<{part.ndim}q", *part.shape) + part.tobytes()
    return out


def _producer(stream: datasets.HostStream, passes: list[list[np.ndarray] | str], served: list[int]) -> threading.Thread:
    """Answers each pass request like the C# thread: one batch per request byte, then the end (or an error) mark."""
    requests = socket.socket(fileno=stream.take_request_socket())

    def serve() -> None:
        with requests:
            for batches in passes:
                fd = struct.unpack("<i", requests.recv(4))[0]
                with socket.socket(fileno=fd) as out:
                    for batch in batches:
                        if out.recv(1) != b"n":
                            return
                        if isinstance(batch, str):
                            message = batch.encode()
                            out.sendall(struct.pack("<iii", -1, 1, len(message)) + message)
                            break
                        out.sendall(_frame(batch))
                        served.append(1)
                    else:
                        out.recv(1)
                        out.sendall(struct.pack("<i", 0))

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
