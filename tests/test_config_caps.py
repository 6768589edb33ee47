"""keras.config.set_max_epochs / set_max_steps_per_epoch (Keras's caps for debugging runs) under the engine."""

from __future__ import annotations

from collections.abc import Iterator

import keras
import numpy as np
import pytest
from parity import assert_weights_equal, dense_layers, optimizer_pair, twin_sequential

from tfnet_train.tolerances import assert_close


@pytest.fixture
def capped() -> Iterator[None]:
    keras.config.set_max_epochs(2)
    keras.config.set_max_steps_per_epoch(3)
    try:
        yield
    finally:
        keras.config.set_max_epochs(None)
        keras.config.set_max_steps_per_epoch(None)


def data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    return rng.normal(size=(80, 4)).astype("float32"), rng.normal(size=(80, 2)).astype("float32")


class Counter(keras.callbacks.Callback):
    def __init__(self) -> None:
        super().__init__()
        self.epochs = self.batches = 0

    def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None:
        self.epochs += 1

    def on_train_batch_begin(self, batch: int, logs: dict | None = None) -> None:
        self.batches += 1


@pytest.mark.parametrize("semantics", ["keras", "tfnet"])
def test_fit_stops_at_the_caps_as_keras_does(capped: None, semantics: str) -> None:
    reference, model = twin_sequential(dense_layers(4, 2))
    k_opt, o_opt = optimizer_pair("sgd", learning_rate=0.1)
    reference.compile(k_opt, "mse")
    model.compile(o_opt, "mse", semantics=semantics)
    x, y = data()
    counter = Counter()
    with pytest.warns(UserWarning, match="Limiting epochs to 2"):
        history = model.fit(x, y, batch_size=8, epochs=4, shuffle=False, verbose=0, callbacks=[counter])
    assert (counter.epochs, counter.batches) == (2, 6)
    assert len(history.history["loss"]) == 2
    assert int(model.optimizer.iterations.numpy()) == 6 and int(model._train_counter.numpy()) == 6
    model.fit(x, y, batch_size=8, epochs=4, shuffle=False, verbose=0)  # the whole-epoch path stops there too
    assert int(model.optimizer.iterations.numpy()) == 12
    reference.fit(x, y, batch_size=8, epochs=4, shuffle=False, verbose=0)
    reference.fit(x, y, batch_size=8, epochs=4, shuffle=False, verbose=0)
    assert_weights_equal(model.get_weights(), reference.get_weights())


def test_evaluate_reads_only_the_capped_steps(capped: None) -> None:
    reference, model = twin_sequential(dense_layers(4, 2))
    reference.compile("sgd", "mse")
    model.compile(optimizer_pair("sgd")[1], "mse")
    x, y = data()
    got = model.evaluate(x, y, batch_size=8, verbose=0)
    assert_close(got, reference.evaluate(x, y, batch_size=8, verbose=0), what="capped evaluate vs Keras")
    expected = float(np.mean((model.predict(x[:24], batch_size=8, verbose=0) - y[:24]) ** 2))  # 3 batches of 8
    assert_close(got, expected, what="capped evaluate vs the mean over the first 24 rows")


def test_no_caps_no_limit() -> None:
    _, model = twin_sequential(dense_layers(4, 2))
    model.compile(optimizer_pair("sgd")[1], "mse")
    x, y = data()
    model.fit(x, y, batch_size=8, epochs=2, verbose=0)
    assert int(model.optimizer.iterations.numpy()) == 20
