"""fit over in-memory arrays under MirroredStrategy: each replica gathers its share of every batch inside the epoch's
compiled loop. The weights, logs and counters equal the distributed-dataset loop's (bit for bit) and one device's
(within the project's tolerances), shuffled or not, with partial and unevenly split batches."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

import tfnet_train
from tfnet_train.engine import replicas
from tfnet_train.engine.data import handler
from tfnet_train.tolerances import assert_close


@pytest.fixture(scope="module")
def mirrored() -> tf.distribute.MirroredStrategy:
    return tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])


def _data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    return (rng.normal(size=(45, 5)).astype("float32"), rng.normal(size=(45, 1)).astype("float32"),
            rng.uniform(0.5, 1.5, size=45).astype("float32"))


def _fit(strategy: tf.distribute.Strategy, optimizer: str, batch_size: int, shuffle: bool,
         replica_rows: bool = True) -> dict:
    """Three epochs from the same start; ``replica_rows=False`` keeps the loop over the distributed dataset."""
    original = handler.DataHandler.run_whole_epochs

    def whole_epochs(self: handler.DataHandler, training: bool = False) -> None:
        original(self, training)
        self.replica_rows = self.replica_rows and replica_rows

    x, y, sample_weight = _data()
    with strategy.scope():
        keras.utils.set_random_seed(7)
        model = tfnet_train.Sequential([keras.Input((5,)), keras.layers.Dense(7, activation="relu"),
                                        keras.layers.Dense(1)])
        made = (tfnet_train.optimizers.Adam(0.01) if optimizer == "adam"
                else tfnet_train.optimizers.SGD(0.05, momentum=0.9))
        model.compile(made, "mse", metrics=["mae"])
    handler.DataHandler.run_whole_epochs = whole_epochs
    try:
        history = model.fit(x, y, sample_weight=sample_weight, batch_size=batch_size, epochs=3, verbose=0,
                            shuffle=shuffle, validation_data=(x[:10], y[:10]))
    finally:
        handler.DataHandler.run_whole_epochs = original
    return {"weights": model.get_weights(), "history": history.history,
            "counter": int(model._train_counter.numpy()), "iterations": int(model.optimizer.iterations.numpy()),
            "rows_calls": len(model._train_rows_function._concrete)}


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
@pytest.mark.parametrize(("batch_size", "shuffle"), [(8, False), (9, True), (64, False), (6, True)])
def test_replicas_gathering_their_rows_train_as_the_distributed_dataset_and_one_device(
        mirrored: tf.distribute.MirroredStrategy, optimizer: str, batch_size: int, shuffle: bool) -> None:
    gathered = _fit(mirrored, optimizer, batch_size, shuffle)
    dataset = _fit(mirrored, optimizer, batch_size, shuffle, replica_rows=False)
    one = _fit(tf.distribute.get_strategy(), optimizer, batch_size, shuffle)
    assert gathered["rows_calls"] > 0 and dataset["rows_calls"] == 0  # each loop ran where it was meant to
    steps = 3 * -(-45 // batch_size)
    assert gathered["counter"] == dataset["counter"] == steps
    assert gathered["iterations"] == dataset["iterations"] == one["iterations"] == steps
    for mine, theirs in zip(gathered["weights"], dataset["weights"], strict=True):
        np.testing.assert_array_equal(mine, theirs)
    assert gathered["history"] == dataset["history"]
    for mine, theirs in zip(gathered["weights"], one["weights"], strict=True):
        assert_close(mine, theirs, what="weights against one device")
    for key, values in one["history"].items():
        assert_close(gathered["history"][key], values, what=f"history[{key!r}] against one device")


def test_replica_rows_split_a_batch_as_the_distributed_dataset_does(
        mirrored: tf.distribute.MirroredStrategy) -> None:
    for rows, batch_size in [(7, 4), (10, 8), (9, 8), (1, 8), (5, 3)]:
        dataset = tf.data.Dataset.range(rows).batch(batch_size)
        for global_batch in mirrored.experimental_distribute_dataset(dataset):
            given = [t.numpy().tolist() for t in mirrored.experimental_local_results(global_batch)]
            indices = tf.constant(sum(given, []), tf.int64)
            assert [replicas.replica_rows(indices, 2, r).numpy().tolist() for r in range(2)] == given


def test_the_loop_serves_only_replicas_of_this_process(mirrored: tf.distribute.MirroredStrategy) -> None:
    assert replicas.local_replicas(mirrored)
    assert not replicas.local_replicas(tf.distribute.get_strategy())
    assert not replicas.local_replicas(tf.distribute.MirroredStrategy(["/cpu:0"]))
    with pytest.raises(ValueError, match="reset=True"):
        replicas.rows_function(mirrored, lambda data: {})({}, None, None, 4, reset=True)


def test_a_fit_whose_replicas_gather_their_rows_distributes_no_dataset(
        mirrored: tf.distribute.MirroredStrategy, monkeypatch: pytest.MonkeyPatch) -> None:
    distributed: list[tf.data.Dataset] = []
    original = tf.distribute.MirroredStrategy.experimental_distribute_dataset

    def counting(self: tf.distribute.MirroredStrategy, dataset: tf.data.Dataset, *args: object, **kwargs: object):
        distributed.append(dataset)
        return original(self, dataset, *args, **kwargs)

    monkeypatch.setattr(tf.distribute.MirroredStrategy, "experimental_distribute_dataset", counting)
    x, y, _ = _data()
    with mirrored.scope():
        model = tfnet_train.Sequential([keras.Input((5,)), keras.layers.Dense(1)])
        model.compile(tfnet_train.optimizers.SGD(0.05), "mse")
    model.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    assert len(model._train_rows_function._concrete) > 0
    assert distributed == []  # Keras distributes its dataset when its epoch iterator is made; nothing reads it here
    model.fit(tf.data.Dataset.from_tensor_slices((x, y)).batch(8), epochs=2, verbose=0)
    assert len(distributed) == 1  # a dataset is distributed once per fit, on its first pass
