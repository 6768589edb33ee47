"""How the engine runs steps: whole epochs in one compiled call when nothing listens to batch hooks, with the
numbers of one call per step; no retracing between epochs; shuffles fixed by keras.utils.set_random_seed."""

from __future__ import annotations

from typing import Any

import keras
import numpy as np
import pytest
from parity import dense_layers

import tfnet_train
from tfnet_train import optimizers

RNG = np.random.default_rng(8)
X = RNG.normal(size=(50, 4)).astype("float32")  # 50 rows in batches of 8: six full batches and one of 2
Y = RNG.integers(0, 2, 50)


class EveryBatch(keras.callbacks.Callback):
    """Listens to every batch, so fit and evaluate run one step per call."""

    def __init__(self) -> None:
        super().__init__()
        self.batches = 0

    def on_train_batch_end(self, batch: int, logs: Any = None) -> None:
        self.batches += 1

    def on_test_batch_end(self, batch: int, logs: Any = None) -> None:
        self.batches += 1


def model(semantics: str = "keras") -> tfnet_train.Sequential:
    keras.utils.set_random_seed(0)
    m = tfnet_train.Sequential(dense_layers(4, 2, hidden=6)())
    m.compile(optimizers.Adam(0.01), keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"], semantics=semantics)
    return m


@pytest.mark.parametrize("semantics", ["keras", "tfnet"])
@pytest.mark.parametrize("shuffle", [False, True])
def test_whole_epoch_calls_equal_one_call_per_step_exactly(semantics: str, shuffle: bool) -> None:
    runs = []
    for callbacks in ([EveryBatch()], []):
        m = model(semantics)
        keras.utils.set_random_seed(5)
        history = m.fit(X, Y, batch_size=8, epochs=3, shuffle=shuffle, verbose=0, callbacks=callbacks,
                        validation_data=(X[:20], Y[:20])).history
        runs.append((m, history, callbacks))
    (stepwise, h1, listening), (whole, h2, _) = runs
    validation_batches = 3 if semantics == "keras" else 1  # tfnet validates arrays in batches of 32
    assert listening[0].batches == 3 * 7 + 3 * validation_batches  # the one-step run ran one call per step
    assert h1 == h2
    for a, b in zip(whole.get_weights(), stepwise.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(whole.optimizer.variables, stepwise.optimizer.variables, strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    assert int(whole._train_counter.numpy()) == int(stepwise._train_counter.numpy()) == 21
    assert whole.evaluate(X, Y, batch_size=8, verbose=0) == stepwise.evaluate(
        X, Y, batch_size=8, verbose=0, callbacks=[EveryBatch()])


def test_nothing_is_traced_again_after_the_first_epoch() -> None:
    traces = {"train": 0, "test": 0}

    class Counting(tfnet_train.Sequential):
        def train_step(self, data: Any) -> Any:
            traces["train"] += 1
            return super().train_step(data)

        def test_step(self, data: Any) -> Any:
            traces["test"] += 1
            return super().test_step(data)

    for callbacks in ([], [EveryBatch()]):
        keras.utils.set_random_seed(0)
        m = Counting(dense_layers(4, 2)())
        m.compile(optimizers.SGD(0.1), keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        m.fit(X, Y, batch_size=8, epochs=1, verbose=0, callbacks=callbacks, validation_data=(X[:20], Y[:20]))
        after_one = dict(traces)
        m.fit(X, Y, batch_size=8, epochs=4, verbose=0, callbacks=callbacks, validation_data=(X[:20], Y[:20]))
        assert traces == after_one, callbacks
        traces.update(train=0, test=0)


def test_shuffled_order_is_fixed_by_the_keras_seed() -> None:
    histories = []
    for seed in (3, 3, 4):
        m = model()
        keras.utils.set_random_seed(seed)
        histories.append(m.fit(X, Y, batch_size=8, epochs=2, verbose=0).history["loss"])
    assert histories[0] == histories[1]
    assert histories[0] != histories[2]
