"""Callbacks driven by hand through CallbackList, with stub models, and cross-checked against Keras 3's own."""

from __future__ import annotations

import io
import itertools
import re
import sys
import warnings

import keras
import numpy as np
import pytest
from keras.src.utils.python_utils import pythonify_logs as keras_pythonify_logs

from tfnet_train.callbacks import (
    Callback,
    CallbackList,
    EarlyStopping,
    History,
    LambdaCallback,
    LearningRateScheduler,
    ModelCheckpoint,
    ProgbarLogger,
    TerminateOnNaN,
    python_logs,
)
from tfnet_train.callbacks.callback import HOOK_NAMES
from tfnet_train.callbacks.progress_bar import format_value

# ---------------------------------------------------------------------------------------------- stubs


class StubOptimizer:
    """Has a `learning_rate` property and remembers every value assigned to it."""

    def __init__(self, learning_rate: float = 0.01) -> None:
        self._learning_rate = learning_rate
        self.assigned: list = []

    @property
    def learning_rate(self) -> float:
        return self._learning_rate

    @learning_rate.setter
    def learning_rate(self, value) -> None:
        self.assigned.append(value)
        self._learning_rate = value


class StubModel:
    """What callbacks touch on a model: stop_training, weights, saving, optimizer, metrics."""

    def __init__(self, metrics: list | None = None) -> None:
        self.stop_training = False
        self.weights = [np.zeros((2, 2)), np.zeros(2)]
        self.optimizer = StubOptimizer()
        self.saved: list[tuple[str, str, dict]] = []
        if metrics is not None:
            self.metrics = metrics

    def get_weights(self) -> list[np.ndarray]:
        return [w.copy() for w in self.weights]

    def set_weights(self, weights) -> None:
        self.weights = [np.array(w, copy=True) for w in weights]

    def save_weights(self, filepath, overwrite=False) -> None:
        self.saved.append(("save_weights", str(filepath), {"overwrite": overwrite}))
        with open(filepath, "w") as handle:
            handle.write("weights")

    def save(self, filepath, **kwargs) -> None:
        self.saved.append(("save", str(filepath), kwargs))
        with open(filepath, "w") as handle:
            handle.write("model")


class Recorder(Callback):
    """Records every hook call as (tag, hook name, positional args, logs)."""

    def __init__(self, tag: str, journal: list) -> None:
        super().__init__()
        self.tag = tag
        self.journal = journal


def _recording_hook(name: str):
    if name.endswith(("_batch_begin", "_batch_end", "epoch_begin", "epoch_end")):

        def hook(self, index, logs=None):
            self.journal.append((self.tag, name, (index,), logs))

    else:

        def hook(self, logs=None):
            self.journal.append((self.tag, name, (), logs))

    hook.__name__ = name
    return hook


for _name in HOOK_NAMES:
    setattr(Recorder, _name, _recording_hook(_name))


class FakeTerminal(io.StringIO):
    """A stdout that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def run_epochs(callbacks: CallbackList, model: StubModel, epoch_logs: list[dict], steps: int = 0) -> int:
    """Drive train begin / epochs / train end like fit does; return the index of the last epoch run."""
    model.stop_training = False
    callbacks.on_train_begin()
    last = -1
    for epoch, logs in enumerate(epoch_logs):
        model.weights = [np.full((2, 2), float(epoch)), np.full(2, float(epoch))]
        callbacks.on_epoch_begin(epoch)
        for step in range(steps):
            callbacks.on_train_batch_begin(step)
            callbacks.on_train_batch_end(step, dict(logs))
        callbacks.on_epoch_end(epoch, dict(logs))
        last = epoch
        if model.stop_training:
            break
    callbacks.on_train_end(dict(epoch_logs[last]) if last >= 0 else None)
    return last


# ------------------------------------------------------------------------------------- CallbackList


def test_every_hook_reaches_every_callback_in_order_with_python_float_logs():
    journal: list = []
    model = StubModel()
    first, second = Recorder("a", journal), Recorder("b", journal)
    callbacks = CallbackList([first, [second]], model=model, verbose=2, epochs=3, steps=5)
    assert first.model is model and second.model is model
    assert first.params == second.params == {"verbose": 2, "epochs": 3, "steps": 5}

    logs = {"loss": np.float32(0.5), "acc": np.array(0.25), "n": np.int64(3), "out": {"mae": np.float64(2)}}
    for name in HOOK_NAMES:
        hook = getattr(callbacks, name)
        if name.endswith(("_batch_begin", "_batch_end")) or name in ("on_epoch_begin", "on_epoch_end"):
            hook(7, logs)
        else:
            hook(logs)
    expected_logs = {"acc": 0.25, "loss": 0.5, "mae": 2.0, "n": 3.0}
    assert [(tag, name) for tag, name, _, _ in journal] == [(t, n) for n in HOOK_NAMES for t in ("a", "b")]
    for _, name, args, received in journal:
        assert received == expected_logs
        assert list(received) == list(keras_pythonify_logs(logs))  # same key order as Keras 3
        assert all(type(value) is float for value in received.values())
        assert args == ((7,) if name.endswith(("_batch_begin", "_batch_end", "epoch_begin", "epoch_end")) else ())


def test_missing_logs_become_an_empty_dict_and_one_dict_is_shared_by_all_callbacks():
    seen: list[dict] = []
    writer = LambdaCallback(on_epoch_end=lambda epoch, logs: logs.update(extra=1.0))
    reader = LambdaCallback(on_epoch_end=lambda epoch, logs: seen.append(dict(logs)))
    callbacks = CallbackList([writer, reader])
    callbacks.on_epoch_end(0)
    callbacks.on_epoch_end(1, {"loss": 2})
    assert seen == [{"extra": 1.0}, {"extra": 1.0, "loss": 2.0}]


def test_python_logs_keeps_non_scalar_values_and_converts_tensors():
    import tensorflow as tf

    outputs = np.ones((2, 3))
    logs = python_logs({"outputs": outputs, "loss": tf.constant(1.5), "name": "x"})
    assert logs["outputs"] is outputs
    assert logs["loss"] == 1.5 and type(logs["loss"]) is float
    assert logs["name"] == "x"


def test_default_history_is_appended_last_and_set_on_the_model():
    model = StubModel()
    user = Recorder("u", [])
    callbacks = CallbackList([user], add_history=True, model=model)
    assert callbacks.callbacks[0] is user
    assert isinstance(callbacks.callbacks[-1], History)
    assert model.history is callbacks.history is callbacks.callbacks[-1]


def test_a_history_passed_by_the_user_is_used_instead_of_a_new_one():
    model = StubModel()
    mine = History()
    callbacks = CallbackList([mine], add_history=True, add_progbar=True, model=model)
    assert callbacks.history is mine
    assert sum(isinstance(cb, History) for cb in callbacks) == 1
    assert model.history is mine


def test_default_callbacks_come_in_the_same_order_as_in_keras():
    user_ours, user_keras = Recorder("u", []), keras.callbacks.Callback()
    ours = CallbackList([user_ours], add_history=True, add_progbar=True, verbose=1, epochs=2, steps=3)
    theirs = keras.callbacks.CallbackList(
        [user_keras], add_history=True, add_progbar=True, verbose=1, epochs=2, steps=3
    )
    assert [type(cb).__name__ for cb in ours] == ["Recorder", "History", "ProgbarLogger"]
    assert [type(cb).__name__ for cb in theirs.callbacks] == ["Callback", "History", "ProgbarLogger"]


def test_a_progbar_passed_by_the_user_is_not_duplicated():
    mine = ProgbarLogger(verbose=2)
    callbacks = CallbackList([mine], add_progbar=True, verbose=1, epochs=1, steps=2)
    assert callbacks.progbar is mine and len(callbacks) == 1
    assert mine.verbose == 2  # an explicit verbose wins over params


def test_append_gives_the_new_callback_model_and_params():
    model = StubModel()
    callbacks = CallbackList(model=model, epochs=4, steps=2)
    late = Recorder("late", [])
    callbacks.append(late)
    assert late.model is model and late.params["epochs"] == 4


def test_non_callbacks_are_rejected_with_their_type():
    with pytest.raises(TypeError, match=r"callbacks must be Callback.*type int"):
        CallbackList([History(), 3])
    with pytest.raises(TypeError, match=r"type str"):
        CallbackList().append("history")


def test_batch_hook_flags_are_false_when_nobody_listens():
    callbacks = CallbackList([History(), EarlyStopping(), LearningRateScheduler(lambda e: 0.1)], add_history=True)
    assert not callbacks.needs_train_batch_hooks
    assert not callbacks.needs_test_batch_hooks
    assert not callbacks.needs_predict_batch_hooks
    assert not CallbackList().needs_train_batch_hooks


def test_batch_hook_flags_follow_overridden_hooks_per_mode():
    class TestBatchWatcher(Callback):
        def on_test_batch_end(self, batch, logs=None):
            pass

    class PredictBatchWatcher(Callback):
        def on_predict_batch_begin(self, batch, logs=None):
            pass

    def flags(*cbs):
        callbacks = CallbackList(list(cbs))
        return (
            callbacks.needs_train_batch_hooks,
            callbacks.needs_test_batch_hooks,
            callbacks.needs_predict_batch_hooks,
        )

    assert flags(TerminateOnNaN()) == (True, False, False)  # overrides the on_batch_end alias
    assert flags(TestBatchWatcher()) == (False, True, False)
    assert flags(PredictBatchWatcher()) == (False, False, True)
    assert flags(ModelCheckpoint("m.keras")) == (True, False, False)
    assert flags(LambdaCallback(on_epoch_end=print)) == (False, False, False)
    assert flags(LambdaCallback(on_batch_end=print)) == (True, False, False)
    assert flags(LambdaCallback(on_train_batch_begin=print)) == (True, False, False)
    assert flags(LambdaCallback(on_predict_batch_end=print)) == (False, False, True)
    assert flags(History(), TestBatchWatcher(), PredictBatchWatcher()) == (False, True, True)
    # Keras's own callbacks are read through Keras's default markers.
    assert flags(keras.callbacks.History()) == (False, False, False)
    assert flags(keras.callbacks.TerminateOnNaN()) == (True, False, False)


def test_progbar_needs_batch_hooks_only_to_redraw_on_a_terminal_or_to_count_unknown_steps(monkeypatch):
    def train_flag(verbose, steps):
        return CallbackList(add_progbar=True, verbose=verbose, epochs=2, steps=steps).needs_train_batch_hooks

    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert (train_flag(0, 10), train_flag(1, 10), train_flag(2, 10)) == (False, False, False)
    assert (train_flag(0, None), train_flag(1, None), train_flag(2, None)) == (False, True, True)
    monkeypatch.setattr(sys, "stdout", FakeTerminal())
    assert (train_flag(0, 10), train_flag(1, 10), train_flag(2, 10)) == (False, True, False)

    callbacks = CallbackList(add_progbar=True, verbose=1, epochs=2, steps=10)
    assert callbacks.needs_test_batch_hooks and callbacks.needs_predict_batch_hooks
    callbacks.on_train_begin()
    assert not callbacks.needs_test_batch_hooks  # validation inside fit is silent


def test_needs_batch_hooks_rejects_an_unknown_mode():
    with pytest.raises(ValueError, match=r"mode must be one of .*got mode='eval'"):
        CallbackList().needs_batch_hooks("eval")


# -------------------------------------------------------------------------------------------- History


def test_history_records_each_epoch_and_resets_only_the_epoch_list_like_keras():
    first_fit = [{"loss": 1.0, "val_loss": 2.0}, {"loss": 0.5, "val_loss": 1.5}]
    second_fit = [{"loss": 0.25, "val_loss": 1.0}]

    ours, model = History(), StubModel()
    callbacks = CallbackList([ours], model=model, verbose=0, epochs=2, steps=1)
    run_epochs(callbacks, model, first_fit)
    assert ours.history == {"loss": [1.0, 0.5], "val_loss": [2.0, 1.5]}
    assert ours.epoch == [0, 1]
    assert ours.params == {"verbose": 0, "epochs": 2, "steps": 1}
    assert model.history is ours
    run_epochs(callbacks, model, second_fit)

    theirs, keras_model = keras.callbacks.History(), StubModel()
    theirs.set_model(keras_model)
    for fit in (first_fit, second_fit):
        theirs.on_train_begin()
        for epoch, logs in enumerate(fit):
            theirs.on_epoch_end(epoch, dict(logs))
    assert ours.history == theirs.history == {"loss": [1.0, 0.5, 0.25], "val_loss": [2.0, 1.5, 1.0]}
    assert ours.epoch == theirs.epoch == [0]


# ------------------------------------------------------------------------------------- ProgbarLogger

FINAL_LINE = r"{n}/{n} \[={{30}}\] - \d+s \d+(s|ms|us)/step"


def drive_progbar(verbose, *, epochs=2, steps=4, batches=4, interval=0.05, logs=None):
    logs = logs if logs is not None else {"loss": 0.6931, "accuracy": 0.5}
    callbacks = CallbackList(
        [ProgbarLogger(interval=interval)] if interval != 0.05 else None,
        add_progbar=True,
        verbose=verbose,
        epochs=epochs,
        steps=steps,
    )
    callbacks.on_train_begin()
    for epoch in range(epochs):
        callbacks.on_epoch_begin(epoch)
        for step in range(batches):
            callbacks.on_train_batch_begin(step)
            callbacks.on_train_batch_end(step, logs)
        callbacks.on_test_begin()
        callbacks.on_test_batch_end(0, {"loss": 9.0})
        callbacks.on_test_end({"loss": 9.0})
        callbacks.on_epoch_end(epoch, {**logs, "val_loss": 0.75})
    callbacks.on_train_end()


def test_progbar_verbose_0_prints_nothing(capsys):
    drive_progbar(0)
    assert capsys.readouterr().out == ""


def test_progbar_verbose_1_off_a_terminal_prints_the_header_and_the_final_line_of_each_epoch(capsys):
    drive_progbar(1)
    out = capsys.readouterr().out
    assert "\r" not in out
    lines = out.splitlines()
    assert len(lines) == 4
    assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2"
    for line in (lines[1], lines[3]):
        assert re.fullmatch(FINAL_LINE.format(n=4) + r" - accuracy: 0\.5000 - loss: 0\.6931 - val_loss: 0\.7500", line)


def test_progbar_verbose_1_on_a_terminal_redraws_in_place_with_eta_throttled(monkeypatch):
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    drive_progbar(1, epochs=1, steps=4, interval=3600.0)
    out = terminal.getvalue()
    # One epoch: the first step is drawn, steps 2-4 fall inside the interval, the final line always comes.
    assert "Epoch" not in out  # a single epoch has no header, as in Keras
    draws = out.split("\r")[1:]
    assert len(draws) == 2
    assert re.fullmatch(r"1/4 \[={6}>\.{23}\] - ETA: \d+s - accuracy: 0\.5000 - loss: 0\.6931", draws[0])
    assert re.fullmatch(
        FINAL_LINE.format(n=4) + r" - accuracy: 0\.5000 - loss: 0\.6931 - val_loss: 0\.7500 *\n", draws[1]
    )

    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    drive_progbar(1, epochs=1, steps=4, interval=0.0)
    draws = terminal.getvalue().split("\r")[1:]
    assert [d.split(" ")[0] for d in draws] == ["1/4", "2/4", "3/4", "4/4", "4/4"]
    assert re.match(r"3/4 \[={21}>\.{8}\] - ETA: \d+s - accuracy", draws[2])


def test_progbar_verbose_2_prints_one_line_per_epoch_without_a_bar(capsys):
    drive_progbar(2, epochs=3)
    lines = capsys.readouterr().out.splitlines()
    assert lines[::2] == ["Epoch 1/3", "Epoch 2/3", "Epoch 3/3"]
    for line in lines[1::2]:
        assert re.fullmatch(
            r"4/4 - \d+s - \d+(s|ms|us)/step - accuracy: 0\.5000 - loss: 0\.6931 - val_loss: 0\.7500", line
        )


def test_progbar_with_unknown_steps_counts_them(capsys, monkeypatch):
    drive_progbar(1, epochs=1, steps=None, batches=3)
    line = capsys.readouterr().out.strip()
    assert re.fullmatch(FINAL_LINE.format(n=3) + r" - accuracy: 0\.5000 - loss: 0\.6931 - val_loss: 0\.7500", line)

    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    drive_progbar(1, epochs=1, steps=None, batches=3, interval=0.0)
    draws = terminal.getvalue().split("\r")[1:]
    assert draws[0].startswith("      1/Unknown - ") and "ETA" not in draws[0]
    assert draws[-1].startswith("3/3 [")


def test_progbar_formats_values_like_keras():
    assert [format_value(v) for v in (0.69314718, 12.0, 1e-4, 0.0, -2.5, float("nan"))] == [
        "0.6931",
        "12.0000",
        "1.0000e-04",
        "0.0000e+00",
        "-2.5000",
        "nan",
    ]


def test_progbar_shows_standalone_evaluate_and_predict(capsys):
    evaluation = CallbackList(add_progbar=True, verbose=1, steps=2)
    evaluation.on_test_begin()
    evaluation.on_test_batch_end(0, {"loss": 1.0})
    evaluation.on_test_batch_end(1, {"loss": 0.5})
    evaluation.on_test_end({"loss": 0.5})
    prediction = CallbackList(add_progbar=True, verbose=1, steps=3)
    prediction.on_predict_begin()
    for step in range(3):
        prediction.on_predict_batch_end(step, {"outputs": np.zeros((2, 1))})
    prediction.on_predict_end()
    lines = capsys.readouterr().out.splitlines()
    assert re.fullmatch(FINAL_LINE.format(n=2) + r" - loss: 0\.5000", lines[0])
    assert re.fullmatch(FINAL_LINE.format(n=3), lines[1])


def test_progbar_rejects_a_bad_verbose():
    with pytest.raises(ValueError, match=r"verbose must be one of 0, 1, 2 or 'auto'; got verbose=3"):
        ProgbarLogger(verbose=3)
    with pytest.raises(ValueError, match=r"params\['verbose'\]=.loud."):
        CallbackList(add_progbar=True, verbose="loud")
    with pytest.raises(ValueError, match=r"params\['steps'\] must be a non-negative int or None; got .*-1"):
        CallbackList(add_progbar=True, steps=-1)


# ------------------------------------------------------------------------------------- EarlyStopping


def stop_epoch(callback, values, monitor="val_loss", model=None) -> tuple[int, StubModel]:
    model = model or StubModel()
    callbacks = CallbackList([callback], model=model, verbose=0, epochs=len(values))
    return run_epochs(callbacks, model, [{monitor: v} for v in values]), model


@pytest.mark.parametrize(
    ("kwargs", "values", "monitor", "expected_last_epoch"),
    [
        ({}, [1.0, 0.9, 0.95, 0.8], "val_loss", 2),
        ({"patience": 2}, [1.0, 0.9, 0.95, 0.96, 0.97, 0.5], "val_loss", 3),
        ({"patience": 2}, [1.0, 0.9, 0.95, 0.8, 0.85, 0.86], "val_loss", 5),
        ({"patience": 1, "min_delta": 0.05}, [1.0, 0.97, 0.9], "val_loss", 1),
        ({"patience": 1, "min_delta": -0.05}, [1.0, 0.97, 0.9], "val_loss", 1),  # sign of min_delta ignored
        ({"patience": 1, "min_delta": 0.02}, [1.0, 0.97, 0.96, 0.95], "val_loss", 2),
        ({"patience": 2, "min_delta": 0.02}, [1.0, 0.97, 0.96, 0.94, 0.93, 0.92], "val_loss", 5),
        ({}, [0.5, 0.6, 0.55], "val_accuracy", 2),  # auto -> max for accuracy
        ({}, [0.5, 0.6, 0.55], "auc", 2),
        ({"mode": "max"}, [1.0, 2.0, 1.5], "val_loss", 2),
        ({"mode": "min"}, [0.5, 0.6], "val_accuracy", 1),
        ({"patience": 2}, [1.0, 0.9, 0.95, 0.8], "val_loss", 3),  # no stop without a baseline...
        ({"patience": 2, "baseline": 0.5}, [1.0, 0.9, 0.95, 0.8], "val_loss", 2),  # ...stop with one
        ({"patience": 1, "baseline": 0.95}, [1.0, 0.9, 0.92, 0.93], "val_loss", 2),
        ({}, [1.0, 2.0, 3.0, 4.0, 5.0], "loss", 1),
        ({"start_from_epoch": 2}, [1.0, 2.0, 3.0, 4.0, 5.0], "loss", 3),
        ({"patience": 3}, [1.0, 1.0, 1.0, 1.0, 1.0], "loss", 3),  # no change is no improvement
        ({}, [1.0, 1.0 - 1e-9, 1.0 - 2e-9], "loss", 1),  # below float32 resolution, as in Keras
        ({}, [3.0], "loss", 0),  # never stops at epoch 0
    ],
)
def test_early_stopping_stops_at_the_keras_epoch(kwargs, values, monitor, expected_last_epoch):
    callback = EarlyStopping(monitor=monitor, **kwargs)
    last, model = stop_epoch(callback, values, monitor)
    assert last == expected_last_epoch
    if last < len(values) - 1:
        assert model.stop_training and callback.stopped_epoch == last
    keras_mode = kwargs.get("mode", callback.direction)
    keras_kwargs = {**kwargs, "mode": keras_mode}
    assert (
        _drive_keras_early_stopping(keras.callbacks.EarlyStopping(monitor=monitor, **keras_kwargs), values, monitor)[0]
        == last
    )


def test_early_stopping_restores_the_best_weights_at_train_end():
    callback = EarlyStopping(monitor="loss", patience=1, restore_best_weights=True)
    last, model = stop_epoch(callback, [1.0, 0.5, 0.7, 0.8], "loss")
    assert last == 2 and callback.best_epoch == 1 and callback.stopped_epoch == 2
    np.testing.assert_array_equal(model.weights[0], np.full((2, 2), 1.0))

    # Restored also when training runs to the end without stopping.
    callback = EarlyStopping(monitor="loss", patience=5, restore_best_weights=True)
    last, model = stop_epoch(callback, [1.0, 0.5, 0.7], "loss")
    assert last == 2 and not model.stop_training
    np.testing.assert_array_equal(model.weights[1], np.full(2, 1.0))

    # Without restore_best_weights the last weights stay.
    last, model = stop_epoch(EarlyStopping(monitor="loss", patience=1), [1.0, 0.5, 0.7, 0.8], "loss")
    np.testing.assert_array_equal(model.weights[0], np.full((2, 2), 2.0))


def test_early_stopping_prints_its_actions_when_verbose(capsys):
    stop_epoch(EarlyStopping(monitor="loss", verbose=1, restore_best_weights=True), [1.0, 0.5, 0.7], "loss")
    assert capsys.readouterr().out.splitlines() == [
        "Epoch 3: early stopping",
        "Restoring model weights from the end of the best epoch: 2.",
    ]


def test_early_stopping_can_be_reused_across_fits():
    callback = EarlyStopping(monitor="loss")
    assert stop_epoch(callback, [1.0, 2.0, 3.0], "loss")[0] == 1
    assert stop_epoch(callback, [5.0, 4.0, 4.5], "loss")[0] == 2
    assert callback.best == 4.0


def test_early_stopping_warns_about_a_missing_monitor_and_keeps_training():
    model = StubModel()
    callbacks = CallbackList([EarlyStopping(monitor="val_loss")], model=model)
    with pytest.warns(UserWarning, match=r"`val_loss` which is not available. Available metrics are: accuracy,loss"):
        last = run_epochs(callbacks, model, [{"loss": 1.0, "accuracy": 0.5}] * 3)
    assert last == 2


def test_early_stopping_auto_mode_uses_the_models_metric_directions():
    class Metric:
        def __init__(self, name, direction):
            self.name, self._direction = name, direction

    class Container:
        metrics = [Metric("closeness", "up")]

    model = StubModel(metrics=[Container()])
    callback = EarlyStopping(monitor="val_closeness")
    last, _ = stop_epoch(callback, [0.5, 0.6, 0.55], "val_closeness", model=model)
    assert last == 2 and callback.direction == "max"
    for monitor, direction in [("dense_1_accuracy", "max"), ("val_out_loss", "min"), ("val_mae", "min")]:
        callback = EarlyStopping(monitor=monitor)
        stop_epoch(callback, [1.0], monitor)
        assert callback.direction == direction


def test_early_stopping_auto_mode_refuses_to_guess():
    with pytest.raises(ValueError, match=r"monitor='val_wiggle'.*mode='max'.*mode='min'"):
        stop_epoch(EarlyStopping(monitor="val_wiggle"), [1.0], "val_wiggle")


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"mode": "up"}, ValueError, r"EarlyStopping mode must be one of 'auto', 'min', 'max'; got mode='up'"),
        ({"patience": -1}, ValueError, r"patience must be a non-negative int; got patience=-1"),
        ({"patience": 1.5}, ValueError, r"patience=1.5"),
        ({"start_from_epoch": -2}, ValueError, r"start_from_epoch must be a non-negative int; got start_from_epoch=-2"),
        ({"min_delta": "0.1"}, TypeError, r"min_delta must be a number; got min_delta='0.1' of type str"),
        ({"baseline": [1.0]}, TypeError, r"baseline must be a number; got baseline=\[1.0\] of type list"),
        ({"monitor": ""}, TypeError, r"monitor must be a non-empty str; got monitor=''"),
    ],
)
def test_early_stopping_rejects_bad_arguments(kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        EarlyStopping(**kwargs)


def _random_sequences() -> list[list[float]]:
    rng = np.random.default_rng(7)
    sequences = [list(1.0 + np.cumsum(rng.normal(0.0, 0.05, size=12))) for _ in range(6)]
    sequences.append([1.0, 0.95, 0.95, 0.951, 0.9, 0.9, 0.91, 0.92, 0.85, 0.86, 0.87, 0.88])
    sequences.append([1.0, 1.0 - 1e-9, 1.0 - 2e-8, 0.99999, 0.99998, 0.99999, 1.00001, 0.99997])
    return [[float(v) for v in seq] for seq in sequences]


def _drive_keras_early_stopping(callback, values, monitor):
    model = StubModel()
    callback.set_model(model)
    callback.on_train_begin()
    last = -1
    for epoch, value in enumerate(values):
        model.weights = [np.full((2, 2), float(epoch)), np.full(2, float(epoch))]
        callback.on_epoch_begin(epoch)
        callback.on_epoch_end(epoch, {monitor: value})
        last = epoch
        if model.stop_training:
            break
    callback.on_train_end()
    return last, model


@pytest.mark.parametrize("direction", ["min", "max"])
def test_early_stopping_matches_keras_on_the_same_sequences(direction):
    monitor = "val_loss" if direction == "min" else "val_accuracy"
    options = itertools.product([0, 1, 3], [0.0, 0.01], [None, "median"], [0, 2], [False, True])
    compared = 0
    for patience, min_delta, baseline_kind, start, restore in options:
        for values in _random_sequences():
            if direction == "max":
                values = [2.0 - v for v in values]
            baseline = None if baseline_kind is None else float(np.median(values))
            common = dict(
                monitor=monitor,
                patience=patience,
                min_delta=min_delta,
                baseline=baseline,
                start_from_epoch=start,
                restore_best_weights=restore,
            )
            ours = EarlyStopping(**common)  # mode="auto" infers the direction from the name
            theirs = keras.callbacks.EarlyStopping(mode=direction, **common)
            our_last, our_model = stop_epoch(ours, values, monitor)
            their_last, their_model = _drive_keras_early_stopping(theirs, values, monitor)
            case = f"{common} on {values}"
            assert our_last == their_last, case
            assert (ours.stopped_epoch, ours.best_epoch, ours.wait) == (
                theirs.stopped_epoch,
                theirs.best_epoch,
                theirs.wait,
            ), case
            assert ours.best == theirs.best, case
            for mine, keras_weight in zip(our_model.weights, their_model.weights, strict=True):
                np.testing.assert_array_equal(mine, keras_weight, err_msg=case)
            compared += 1
    assert compared == 3 * 2 * 2 * 2 * 2 * len(_random_sequences())


# ------------------------------------------------------------------------------------ TerminateOnNaN


@pytest.mark.parametrize("bad_loss", [float("nan"), float("inf"), np.float32("-inf")])
def test_terminate_on_nan_stops_training_and_says_so(bad_loss, capsys):
    model = StubModel()
    callbacks = CallbackList([TerminateOnNaN()], model=model)
    callbacks.on_train_batch_end(2, {"loss": 0.5})
    assert not model.stop_training
    callbacks.on_train_batch_end(3, {"loss": bad_loss})
    assert model.stop_training
    assert capsys.readouterr().out == "Batch 3: Invalid loss, terminating training\n"


def test_terminate_on_nan_ignores_logs_without_loss_and_can_raise():
    model = StubModel()
    CallbackList([TerminateOnNaN()], model=model).on_train_batch_end(0, {"accuracy": float("nan")})
    assert not model.stop_training
    with pytest.raises(RuntimeError, match=r"NaN or Inf loss encountered at batch 4. Loss value: nan"):
        CallbackList([TerminateOnNaN(raise_error=True)], model=model).on_train_batch_end(4, {"loss": np.nan})


# ------------------------------------------------------------------------------------ ModelCheckpoint


def test_model_checkpoint_names_files_from_epoch_and_logs(tmp_path):
    model = StubModel()
    pattern = tmp_path / "sub" / "w-{epoch:02d}-{loss:.2f}.weights.h5"
    callbacks = CallbackList([ModelCheckpoint(pattern, save_weights_only=True)], model=model)
    run_epochs(callbacks, model, [{"loss": 0.5}, {"loss": 0.25}])
    names = [tmp_path / "sub" / "w-01-0.50.weights.h5", tmp_path / "sub" / "w-02-0.25.weights.h5"]
    assert model.saved == [("save_weights", str(n), {"overwrite": True}) for n in names]
    assert all(n.exists() for n in names)


def test_model_checkpoint_saves_the_whole_model_to_keras_files(tmp_path):
    model = StubModel()
    callbacks = CallbackList([ModelCheckpoint(str(tmp_path / "m{epoch}.keras"))], model=model)
    run_epochs(callbacks, model, [{"loss": 1.0}] * 2)
    assert [(kind, path) for kind, path, _ in model.saved] == [
        ("save", str(tmp_path / "m1.keras")),
        ("save", str(tmp_path / "m2.keras")),
    ]


def test_model_checkpoint_best_only_saves_improvements(tmp_path, capsys):
    model = StubModel()
    checkpoint = ModelCheckpoint(tmp_path / "best.keras", save_best_only=True, verbose=1)
    callbacks = CallbackList([checkpoint], model=model)
    run_epochs(callbacks, model, [{"val_loss": v} for v in (1.0, 0.8, 0.9, 0.7)])
    assert len(model.saved) == 3 and checkpoint.best == 0.7
    out = capsys.readouterr().out
    assert "Epoch 1: val_loss improved from None to 1.00000, saving model to" in out
    assert "Epoch 2: val_loss improved from 1.00000 to 0.80000" in out
    assert "Epoch 3: val_loss did not improve from 0.80000" in out


def test_model_checkpoint_threshold_and_max_mode(tmp_path):
    model = StubModel()
    checkpoint = ModelCheckpoint(tmp_path / "e{epoch}.keras", save_best_only=True, initial_value_threshold=0.85)
    run_epochs(CallbackList([checkpoint], model=model), model, [{"val_loss": v} for v in (1.0, 0.8, 0.9)])
    assert [path for _, path, _ in model.saved] == [str(tmp_path / "e2.keras")]

    model = StubModel()
    checkpoint = ModelCheckpoint(tmp_path / "a{epoch}.keras", monitor="val_accuracy", save_best_only=True)
    run_epochs(CallbackList([checkpoint], model=model), model, [{"val_accuracy": v} for v in (0.5, 0.4, 0.6)])
    assert [path for _, path, _ in model.saved] == [str(tmp_path / "a1.keras"), str(tmp_path / "a3.keras")]


def test_model_checkpoint_without_the_monitored_value_warns_and_saves(tmp_path):
    model = StubModel()
    checkpoint = ModelCheckpoint(tmp_path / "m.keras", save_best_only=True)
    with pytest.warns(UserWarning, match="Can save best model only with val_loss available"):
        run_epochs(CallbackList([checkpoint], model=model), model, [{"loss": 1.0}])
    assert len(model.saved) == 1


def test_model_checkpoint_every_n_batches_counts_across_epochs(tmp_path):
    model = StubModel()
    checkpoint = ModelCheckpoint(tmp_path / "e{epoch}-b{batch}.weights.h5", save_weights_only=True, save_freq=3)
    run_epochs(CallbackList([checkpoint], model=model), model, [{"loss": 1.0}] * 2, steps=4)
    assert [path for _, path, _ in model.saved] == [
        str(tmp_path / "e1-b3.weights.h5"),
        str(tmp_path / "e2-b2.weights.h5"),
    ]


def _drive_keras_checkpoint(checkpoint, epoch_logs, steps):
    model = StubModel()
    checkpoint.set_model(model)
    checkpoint.on_train_begin()
    for epoch, logs in enumerate(epoch_logs):
        checkpoint.on_epoch_begin(epoch)
        for step in range(steps):
            checkpoint.on_train_batch_end(step, dict(logs))
        checkpoint.on_epoch_end(epoch, dict(logs))
    return [path for _, path, _ in model.saved]


@pytest.mark.parametrize(
    ("kwargs", "steps"),
    [
        ({"save_best_only": True}, 0),
        ({"save_best_only": True, "initial_value_threshold": 0.9}, 0),
        ({"save_freq": 3}, 4),
        ({"save_freq": 5, "save_best_only": True}, 3),
    ],
)
def test_model_checkpoint_saves_where_keras_saves(tmp_path, kwargs, steps):
    losses = [1.0, 0.8, 0.85, 0.7, 0.7, 0.95, 0.6]
    epoch_logs = [{"val_loss": v, "loss": v + 0.1} for v in losses]
    pattern = "{epoch}-{val_loss:.2f}.weights.h5" if steps == 0 else "{epoch}-{batch}.weights.h5"
    ours_dir, theirs_dir = tmp_path / "ours", tmp_path / "theirs"
    model = StubModel()
    ours = ModelCheckpoint(ours_dir / pattern, save_weights_only=True, mode="min", **kwargs)
    run_epochs(CallbackList([ours], model=model), model, epoch_logs, steps=steps)
    theirs = keras.callbacks.ModelCheckpoint(str(theirs_dir / pattern), save_weights_only=True, mode="min", **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        keras_paths = _drive_keras_checkpoint(theirs, epoch_logs, steps)
    our_names = [path.rsplit("/", 1)[1] for _, path, _ in model.saved]
    assert our_names == [path.rsplit("/", 1)[1] for path in keras_paths]
    assert our_names  # the case saves something


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"filepath": "w.h5", "save_weights_only": True}, ValueError, r"'\.weights\.h5'; got filepath='w\.h5'"),
        ({"filepath": "m.keras", "save_weights_only": True}, ValueError, r"filepath='m\.keras'"),
        ({"filepath": "m.weights.h5"}, ValueError, r"ending in '\.keras'; got filepath='m\.weights\.h5'"),
        ({"filepath": 42}, TypeError, r"filepath must be a str or os.PathLike; got filepath=42 of type int"),
        (
            {"filepath": "m.keras", "save_freq": "batch"},
            ValueError,
            r"save_freq must be 'epoch' or a positive int; got save_freq='batch'",
        ),
        ({"filepath": "m.keras", "save_freq": 0}, ValueError, r"got save_freq=0"),
        ({"filepath": "m.keras", "save_freq": 2.5}, ValueError, r"got save_freq=2.5"),
        ({"filepath": "m.keras", "mode": "best"}, ValueError, r"ModelCheckpoint mode must be one of .*got mode='best'"),
        (
            {"filepath": "m.keras", "initial_value_threshold": "low"},
            TypeError,
            r"initial_value_threshold must be a number",
        ),
    ],
)
def test_model_checkpoint_rejects_bad_arguments(kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        ModelCheckpoint(**kwargs)


def test_model_checkpoint_names_an_unknown_filepath_field(tmp_path):
    model = StubModel()
    callbacks = CallbackList([ModelCheckpoint(tmp_path / "{val_acc:.2f}.keras")], model=model)
    with pytest.raises(ValueError, match=r"filepath=.*\{val_acc:\.2f\}\.keras.*'val_acc'.*\['loss'\]"):
        run_epochs(callbacks, model, [{"loss": 1.0}])


def test_model_checkpoint_refuses_a_directory_as_target(tmp_path):
    (tmp_path / "dir.keras").mkdir()
    model = StubModel()
    with pytest.raises(IsADirectoryError, match=r"dir\.keras.*is an existing directory"):
        run_epochs(CallbackList([ModelCheckpoint(tmp_path / "dir.keras")], model=model), model, [{"loss": 1.0}])


# ------------------------------------------------------------------------------ LearningRateScheduler


def test_scheduler_sets_a_float_rate_each_epoch_and_logs_it():
    model = StubModel()
    history = History()
    scheduler = LearningRateScheduler(lambda epoch, lr: lr * 0.5 if epoch else lr)
    callbacks = CallbackList([scheduler, history], model=model, epochs=3)
    run_epochs(callbacks, model, [{"loss": 1.0}] * 3)
    assert model.optimizer.assigned == [0.01, 0.005, 0.0025]
    assert all(type(rate) is float for rate in model.optimizer.assigned)
    assert history.history["learning_rate"] == [0.01, 0.005, 0.0025]


def test_scheduler_accepts_one_argument_schedules_and_numpy_results():
    model = StubModel()
    callbacks = CallbackList([LearningRateScheduler(lambda epoch: np.float32(0.5) ** epoch)], model=model)
    run_epochs(callbacks, model, [{"loss": 1.0}] * 3)
    assert model.optimizer.assigned == [1.0, 0.5, 0.25]
    assert all(type(rate) is float for rate in model.optimizer.assigned)


def test_scheduler_matches_keras_on_the_same_schedule():
    def schedule(epoch, lr):
        return lr if epoch < 2 else lr * float(np.exp(-0.1))

    ours_model = StubModel()
    run_epochs(CallbackList([LearningRateScheduler(schedule)], model=ours_model), ours_model, [{"loss": 1.0}] * 5)
    theirs_model = StubModel()
    theirs = keras.callbacks.LearningRateScheduler(schedule)
    theirs.set_model(theirs_model)
    for epoch in range(5):
        theirs.on_epoch_begin(epoch)
    assert ours_model.optimizer.assigned == theirs_model.optimizer.assigned
    assert len(ours_model.optimizer.assigned) == 5


def test_scheduler_does_not_hide_a_type_error_raised_inside_the_schedule():
    def broken(epoch, lr):
        raise TypeError("inside the schedule")

    model = StubModel()
    with pytest.raises(TypeError, match="inside the schedule"):
        run_epochs(CallbackList([LearningRateScheduler(broken)], model=model), model, [{"loss": 1.0}])


def test_scheduler_prints_changes_when_verbose(capsys):
    model = StubModel()
    run_epochs(CallbackList([LearningRateScheduler(lambda e: 0.1, verbose=1)], model=model), model, [{"loss": 1.0}])
    assert "Epoch 1: LearningRateScheduler setting learning rate to 0.1." in capsys.readouterr().out


@pytest.mark.parametrize(
    ("result", "error", "pattern"),
    [
        ("0.1", TypeError, r"schedule bad must return a real number .*got '0\.1' of type str"),
        (None, TypeError, r"got None of type NoneType"),
        ([0.1], TypeError, r"got \[0\.1\] of type list"),
        (True, TypeError, r"got True of type bool"),
        (float("nan"), ValueError, r"finite, non-negative learning rate; got nan"),
        (-0.1, ValueError, r"got -0\.1"),
    ],
)
def test_scheduler_rejects_non_numeric_or_invalid_rates(result, error, pattern):
    def bad(epoch, lr):
        return result

    model = StubModel()
    with pytest.raises(error, match=pattern):
        run_epochs(CallbackList([LearningRateScheduler(bad)], model=model), model, [{"loss": 1.0}])


def test_scheduler_rejects_a_non_callable_and_a_model_without_optimizer():
    with pytest.raises(TypeError, match=r"schedule must be callable; got schedule=0\.1 of type float"):
        LearningRateScheduler(0.1)
    model = StubModel()
    model.optimizer = None
    with pytest.raises(ValueError, match=r"needs model.optimizer with a learning_rate attribute; got optimizer=None"):
        run_epochs(CallbackList([LearningRateScheduler(lambda e: 0.1)], model=model), model, [{"loss": 1.0}])


# ------------------------------------------------------------------------------------ LambdaCallback


def test_lambda_callback_calls_each_function_from_its_hook():
    calls: list = []
    callback = LambdaCallback(
        on_train_begin=lambda logs: calls.append(("train_begin", logs)),
        on_epoch_begin=lambda epoch, logs: calls.append(("epoch_begin", epoch)),
        on_train_batch_begin=lambda batch, logs: calls.append(("batch_begin", batch)),
        on_batch_end=lambda batch, logs: calls.append(("batch_end", batch, logs["loss"])),
        on_epoch_end=lambda epoch, logs: calls.append(("epoch_end", epoch, logs["loss"])),
        on_train_end=lambda logs: calls.append(("train_end", logs["loss"])),
        on_test_begin=lambda logs: calls.append(("test_begin",)),
    )
    callbacks = CallbackList([callback], model=StubModel())
    run_epochs(callbacks, callbacks.model, [{"loss": np.float32(0.5)}], steps=2)
    callbacks.on_test_begin()
    assert calls == [
        ("train_begin", {}),
        ("epoch_begin", 0),
        ("batch_begin", 0),
        ("batch_end", 0, 0.5),
        ("batch_begin", 1),
        ("batch_end", 1, 0.5),
        ("epoch_end", 0, 0.5),
        ("train_end", 0.5),
        ("test_begin",),
    ]


def test_lambda_callback_rejects_unknown_hooks_and_non_callables():
    with pytest.raises(TypeError, match=r"unknown hook name\(s\) on_step_end; expected names among on_train_begin"):
        LambdaCallback(on_step_end=print)
    with pytest.raises(TypeError, match=r"on_epoch_end must be callable or None; got on_epoch_end=1 of type int"):
        LambdaCallback(on_epoch_end=1)


def test_model_checkpoint_best_only_needs_a_direction_it_can_infer(tmp_path):
    model = StubModel()
    checkpoint = ModelCheckpoint(tmp_path / "m.keras", monitor="val_wiggle", save_best_only=True)
    with pytest.raises(ValueError, match=r"ModelCheckpoint received monitor='val_wiggle'.*mode='max'"):
        run_epochs(CallbackList([checkpoint], model=model), model, [{"val_wiggle": 1.0}])
    # Without save_best_only the direction is never needed.
    plain = ModelCheckpoint(tmp_path / "p.keras", monitor="val_wiggle")
    run_epochs(CallbackList([plain], model=model), model, [{"val_wiggle": 1.0}])
    assert model.saved[-1][1] == str(tmp_path / "p.keras")


def test_progbar_takes_verbose_from_params_unless_given():
    from_params = ProgbarLogger()
    CallbackList([from_params], verbose="auto", epochs=2, steps=3)
    assert from_params.verbose == 1
    CallbackList([from_params], verbose=2, epochs=2, steps=3)
    assert from_params.verbose == 2
    explicit = ProgbarLogger(verbose=0)
    CallbackList([explicit], verbose=1, epochs=2, steps=3)
    assert explicit.verbose == 0
