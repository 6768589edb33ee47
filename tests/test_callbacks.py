"""The engine's CallbackList: Keras's, skipping batch hooks nobody listens to."""

from __future__ import annotations

import keras
import numpy as np
import pytest
from parity import assert_history_equal, assert_weights_equal, dense_layers, optimizer_pair, twin_sequential

import tfnet_train
from tfnet_train.callbacks import CallbackList, listens


class EpochsOnly(keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        pass


class Batches(keras.callbacks.Callback):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[str, int]] = []

    def on_train_batch_end(self, batch, logs=None):
        self.seen.append(("train", batch))

    def on_test_batch_end(self, batch, logs=None):
        self.seen.append(("test", batch))


def test_tfnet_train_callbacks_are_keras_callbacks() -> None:
    assert tfnet_train.callbacks.EarlyStopping is keras.callbacks.EarlyStopping
    assert issubclass(tfnet_train.callbacks.BackupAndRestore, keras.callbacks.BackupAndRestore)
    assert issubclass(CallbackList, keras.callbacks.CallbackList)


def test_batch_hooks_are_needed_only_by_callbacks_that_override_them() -> None:
    quiet = CallbackList([EpochsOnly(), keras.callbacks.History(), keras.callbacks.EarlyStopping()])
    assert [quiet.needs_batch_hooks(mode) for mode in ("train", "test", "predict")] == [False, False, False]
    loud = CallbackList([Batches()])
    assert [loud.needs_batch_hooks(mode) for mode in ("train", "test", "predict")] == [True, True, False]
    assert listens(keras.callbacks.TerminateOnNaN(), "train")
    with pytest.raises(ValueError, match=r"mode must be one of \['predict', 'test', 'train'\]; got mode='eval'"):
        quiet.needs_batch_hooks("eval")


def test_batch_hooks_get_keras_batch_numbers_with_steps_per_execution() -> None:
    """10 batches in blocks of 4: Keras numbers each execution's end as begin + 3, the partial block included."""
    reference, model = twin_sequential(dense_layers(4, 2))
    x = np.random.default_rng(0).normal(size=(40, 4)).astype("float32")
    y = np.random.default_rng(1).normal(size=(40, 2)).astype("float32")
    seen = {}
    for name, m, opt in (("keras", reference, optimizer_pair("sgd")[0]), ("engine", model, optimizer_pair("sgd")[1])):
        m.compile(optimizer=opt, loss="mse", steps_per_execution=4)
        recorder = Batches()
        m.fit(x, y, batch_size=4, epochs=1, verbose=0, shuffle=False, callbacks=[recorder],
              validation_data=(x[:20], y[:20]))
        seen[name] = recorder.seen
    assert seen["engine"] == seen["keras"]
    assert ("train", 11) in seen["engine"]
def test_backup_and_restore_resumes_an_interrupted_fit_exactly(tmp_path) -> None:
    """A fit stopped by an error after epoch 2 and run again with the same call ends where an uninterrupted one
    does: weights, optimizer variables and history."""
    x = np.random.default_rng(2).normal(size=(32, 4)).astype("float32")
    y = np.random.default_rng(3).normal(size=(32, 2)).astype("float32")

    class Crash(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            if epoch == 2:
                raise RuntimeError("interrupted")

    def run(callbacks: list, weights: list[np.ndarray]) -> tfnet_train.Sequential:
        model = tfnet_train.Sequential(dense_layers(4, 2)())
        model.set_weights(weights)
        model.compile(optimizer=optimizer_pair("sgd", learning_rate=0.05, momentum=0.9)[1], loss="mse")
        model.fit(x, y, batch_size=8, epochs=5, verbose=0, shuffle=False, callbacks=callbacks)
        return model

    start = tfnet_train.Sequential(dense_layers(4, 2)()).get_weights()
    whole = run([], start)
    backup = tmp_path / "backup"
    with pytest.raises(RuntimeError, match="interrupted"):
        run([keras.callbacks.BackupAndRestore(str(backup)), Crash()], start)
    resumed = run([keras.callbacks.BackupAndRestore(str(backup))], start)
    assert_weights_equal(resumed.get_weights(), whole.get_weights())
    for a, b in zip(resumed.optimizer.variables, whole.optimizer.variables, strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    assert_history_equal({"loss": resumed.history.history["loss"]}, {"loss": whole.history.history["loss"][3:]})
