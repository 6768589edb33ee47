"""Callbacks driven by the real engine, against Keras 3 driving its own callbacks on the same training."""

from __future__ import annotations

import keras
import numpy as np
import pytest
from parity import assert_history_equal, assert_weights_equal, dense_layers, optimizer_pair, twin_sequential

import tfnet_train
from tfnet_train import callbacks as cb


def data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(11)
    return rng.normal(size=(48, 4)).astype("float32"), rng.normal(size=(48, 2)).astype("float32")


def test_scheduler_early_stopping_and_checkpoint_match_keras(tmp_path) -> None:
    reference, model = twin_sequential(dense_layers(4, 2))
    k_opt, o_opt = optimizer_pair("sgd", learning_rate=0.2, momentum=0.9)
    reference.compile(optimizer=k_opt, loss="mse")
    model.compile(optimizer=o_opt, loss="mse")
    x, y = data()

    def schedule(epoch: int, lr: float) -> float:
        return lr * 0.5 if epoch >= 2 else lr

    def callbacks(module, folder):
        return [module.LearningRateScheduler(schedule),
                module.EarlyStopping(monitor="val_loss", patience=1, restore_best_weights=True),
                module.ModelCheckpoint(str(folder / "e{epoch:02d}.weights.h5"), save_weights_only=True)]

    (tmp_path / "k").mkdir()
    (tmp_path / "o").mkdir()
    kwargs = dict(batch_size=8, epochs=12, verbose=0, shuffle=False, validation_split=0.25)
    expected = reference.fit(x, y, callbacks=callbacks(keras.callbacks, tmp_path / "k"), **kwargs).history
    got = model.fit(x, y, callbacks=callbacks(cb, tmp_path / "o"), **kwargs).history
    assert_history_equal(got, expected)
    assert_weights_equal(model.get_weights(), reference.get_weights())
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == sorted(p.name for p in (tmp_path / "k").iterdir())


def test_weights_files_move_between_keras_and_engine(tmp_path) -> None:
    reference, model = twin_sequential(dense_layers(4, 2))
    x, y = data()
    model.compile(optimizer_pair("adam", learning_rate=0.01)[1], loss="mse")
    model.fit(x, y, epochs=2, verbose=0)
    model.save_weights(tmp_path / "ours.weights.h5")
    reference.load_weights(tmp_path / "ours.weights.h5")
    assert_weights_equal(reference.get_weights(), model.get_weights())
    fresh = tfnet_train.Sequential(dense_layers(4, 2)())
    reference.save_weights(tmp_path / "keras.weights.h5")
    fresh.load_weights(tmp_path / "keras.weights.h5")
    assert_weights_equal(fresh.get_weights(), reference.get_weights())


@pytest.mark.parametrize("verbose", [0, 1, 2])
def test_progress_output_by_verbosity(verbose: int, capsys: pytest.CaptureFixture[str]) -> None:
    model = tfnet_train.Sequential(dense_layers(4, 2)())
    model.compile(optimizer_pair("sgd", learning_rate=0.01)[1], loss="mse", metrics=["mae"])
    x, y = data()
    model.fit(x, y, batch_size=16, epochs=2, verbose=verbose)
    out = capsys.readouterr().out
    if verbose == 0:
        assert out == ""
    else:
        assert "Epoch 1/2" in out and "Epoch 2/2" in out and "loss:" in out and "mae:" in out
        assert "3/3" in out


def test_terminate_on_nan_stops_training() -> None:
    model = tfnet_train.Sequential(dense_layers(4, 2)())
    model.compile(optimizer_pair("sgd", learning_rate=1e6)[1], loss="mse")
    x, y = data()
    history = model.fit(x * 1e6, y, batch_size=8, epochs=50, verbose=0, callbacks=[cb.TerminateOnNaN()])
    assert len(history.epoch) < 50


def test_fit_evaluate_and_predict_call_the_hooks_keras_calls_in_its_order() -> None:
    """A callback overriding every hook (the on_batch_* aliases aside) sees the same calls as under Keras 3."""
    hooks = [name for name in dir(keras.callbacks.Callback)
             if name.startswith("on_") and name not in ("on_batch_begin", "on_batch_end")]

    def journal() -> tuple[keras.callbacks.Callback, list]:
        calls: list = []

        def recorder(name: str):
            def hook(self, *args, logs=None):
                calls.append((name, *args))
            return hook

        journal_type = type("Journal", (keras.callbacks.Callback,), {name: recorder(name) for name in hooks})
        return journal_type(), calls

    reference, model = twin_sequential(dense_layers(4, 2))
    reference.compile(optimizer=optimizer_pair("sgd")[0], loss="mse")
    model.compile(optimizer=optimizer_pair("sgd")[1], loss="mse")
    x, y = data()
    seen = []
    for net in (reference, model):
        callback, calls = journal()
        net.fit(x[:20], y[:20], batch_size=8, epochs=2, verbose=0, shuffle=False, validation_data=(x[20:30], y[20:30]),
                callbacks=[callback])
        net.evaluate(x[:10], y[:10], batch_size=4, verbose=0, callbacks=[callback])
        net.predict(x[:10], batch_size=4, verbose=0, callbacks=[callback])
        seen.append(calls)
    assert ("on_predict_batch_begin", 2) in seen[0]
    assert seen[1] == seen[0]
