"""Cancellation by the host (tfnet_train.bridge.cancellation): a flag checked at each batch end."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tensorflow as tf

from tfnet_train import bridge
from tfnet_train.bridge.cancellation import CancelCallback, OperationCancelled, with_cancel
from tfnet_train.callbacks import Callback

SPECS = [("Input", {"shape": (4,)}), ("Dense", {"units": 6, "activation": "relu"}), ("Dense", {"units": 3})]
OPTIMIZER = ("SGD", {"learning_rate": 0.1, "momentum": 0.9})
LOSS = ("SparseCategoricalCrossentropy", {"from_logits": True})


class Flag:
    """What the C# side passes: an object with a boolean Requested."""

    def __init__(self) -> None:
        self.Requested = False  # noqa: N815 - the C# property's name


class CancelAt(Callback):
    """Sets the flag at the end of train batch ``at`` (as a C# callback cancelling its token would)."""

    def __init__(self, flag: Flag, at: int) -> None:
        super().__init__()
        self.flag, self.at, self.ends = flag, at, 0

    def on_train_batch_end(self, batch: int, logs: dict | None = None) -> None:
        self.ends += 1
        if batch == self.at:
            self.flag.Requested = True


def _model(seed: int = 3) -> Any:
    tf.keras.utils.set_random_seed(seed)
    model = bridge.sequential(SPECS)
    bridge.compile_model(model, OPTIMIZER, LOSS, ["accuracy"])
    return model


def _data(n: int = 40) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.standard_normal((n, 4)).astype(np.float32), rng.integers(0, 3, n)


def test_with_cancel_appends_the_callback_last() -> None:
    other = Callback()
    assert with_cancel(None, None) is None
    assert with_cancel([other], None) == [other]
    callbacks = with_cancel([other], Flag())
    assert callbacks[0] is other and isinstance(callbacks[1], CancelCallback)
    assert isinstance(with_cancel(None, Flag())[0], CancelCallback)


def test_flag_without_requested_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="flag must have a boolean 'Requested' attribute; got object"):
        CancelCallback(object())


def test_callback_raises_only_once_requested() -> None:
    flag = Flag()
    callback = CancelCallback(flag)
    callback.on_train_batch_end(0)
    flag.Requested = True
    for hook, mode in (("on_train_batch_end", "fit"), ("on_test_batch_end", "evaluate"),
                       ("on_predict_batch_end", "predict")):
        with pytest.raises(OperationCancelled, match=f"^{mode} cancelled by the host after batch 2$") as info:
            getattr(callback, hook)(2)
        assert info.value.mode == mode and info.value.batch == 2


def _same_weights(a: Any, b: Any) -> None:
    for left, right in zip(bridge.get_weights(a), bridge.get_weights(b), strict=True):
        np.testing.assert_array_equal(left, right)
    for left, right in zip(a.optimizer.variables, b.optimizer.variables, strict=True):
        np.testing.assert_array_equal(left.numpy(), right.numpy())


def test_cancelled_fit_keeps_exactly_the_steps_done() -> None:
    x, y = _data()
    flag = Flag()
    marker = CancelAt(flag, -1)

    class SecondEpoch(Callback):  # cancel at batch 2 of the second epoch: 5 + 3 steps
        def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None:
            marker.at = 2 if epoch == 1 else -1

    model = _model()
    with pytest.raises(OperationCancelled, match="^fit cancelled by the host after batch 2$"):
        bridge.fit(model, x, y, batch_size=8, epochs=3, shuffle=False, callbacks=[SecondEpoch(), marker], cancel=flag)
    assert marker.ends == 8
    assert int(model.optimizer.iterations.numpy()) == 8 and bridge.train_counter(model) == 8

    reference = _model()  # the same 8 steps, independently: one whole epoch, then the first 3 batches
    bridge.fit(reference, x, y, batch_size=8, epochs=1, shuffle=False)
    bridge.fit(reference, x[:24], y[:24], batch_size=8, epochs=1, shuffle=False)
    assert int(reference.optimizer.iterations.numpy()) == 8
    _same_weights(model, reference)


def test_an_unset_flag_changes_nothing() -> None:
    x, y = _data()
    model, reference = _model(), _model()
    ours = bridge.fit(model, x, y, batch_size=8, epochs=2, shuffle=False, cancel=Flag())
    theirs = bridge.fit(reference, x, y, batch_size=8, epochs=2, shuffle=False)
    assert ours == theirs
    _same_weights(model, reference)


def test_cancelled_fit_over_a_dataset() -> None:
    x, y = _data()
    flag = Flag()
    model = _model()
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)
    with pytest.raises(OperationCancelled, match="after batch 1"):
        bridge.datasets.fit_dataset(model, dataset, epochs=2, callbacks=[CancelAt(flag, 1)], cancel=flag)
    assert int(model.optimizer.iterations.numpy()) == 2 and bridge.train_counter(model) == 2


def test_cancelled_evaluate_and_predict_stop_after_the_first_batch() -> None:
    x, y = _data()
    flag = Flag()
    flag.Requested = True
    model = _model()
    before = bridge.get_weights(model)
    with pytest.raises(OperationCancelled, match="^evaluate cancelled by the host after batch 0$"):
        bridge.evaluate(model, x, y, batch_size=8, cancel=flag)
    for predict in (bridge.predict, bridge.predict_tensors):
        with pytest.raises(OperationCancelled, match="^predict cancelled by the host after batch 0$"):
            predict(model, x, batch_size=8, cancel=flag)
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)
    with pytest.raises(OperationCancelled, match="^evaluate"):
        bridge.datasets.evaluate_dataset(model, dataset, cancel=flag)
    with pytest.raises(OperationCancelled, match="^predict"):
        bridge.datasets.predict_dataset(model, dataset, cancel=flag)
    for left, right in zip(before, bridge.get_weights(model), strict=True):
        np.testing.assert_array_equal(left, right)
    flag.Requested = False
    assert bridge.evaluate(model, x, y, batch_size=8, cancel=flag) == bridge.evaluate(model, x, y, batch_size=8)
