"""A fit that fails changes nothing (weights, optimizer variables, _train_counter as before the call); unclear
inputs get errors that name them; labels may change rank between fits."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

import tfnet_train
from tfnet_train import optimizers

X = np.random.default_rng(0).normal(size=(12, 3)).astype("float32")
LABELS = np.random.default_rng(1).integers(0, 3, 12)


def classifier(**kwargs: object) -> tfnet_train.Sequential:
    m = tfnet_train.Sequential([keras.Input((3,)), keras.layers.Dense(3)])
    m.compile(optimizers.Adam(0.01), keras.losses.SparseCategoricalCrossentropy(from_logits=True), **kwargs)
    return m


class Raises(keras.callbacks.Callback):
    def __init__(self, hook: str, at: int = 0) -> None:
        super().__init__()
        self.hook, self.at = hook, at

    def on_epoch_begin(self, epoch: int, logs: object = None) -> None:
        if self.hook == "on_epoch_begin" and epoch == self.at:
            raise RuntimeError("callback failed")

    def on_train_batch_begin(self, batch: int, logs: object = None) -> None:
        if self.hook == "on_train_batch_begin" and batch == self.at:
            raise RuntimeError("callback failed")


def state(m: keras.Model) -> tuple[list[np.ndarray], list[np.ndarray], int]:
    return ([np.array(w) for w in m.get_weights()], [np.array(v) for v in m.optimizer.variables],
            int(m._train_counter.numpy()))


def assert_unchanged(m: keras.Model, before: tuple[list[np.ndarray], list[np.ndarray], int]) -> None:
    weights, slots, counter = state(m)
    assert counter == before[2]
    for a, b in zip(weights, before[0], strict=True):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(slots, before[1], strict=True):
        np.testing.assert_array_equal(a, b)


FAILING = {
    "labels out of range": (lambda m: m.fit(X, np.full(12, 7), batch_size=4, verbose=0), Exception),
    "negative labels": (lambda m: m.fit(X, np.full(12, -1), batch_size=4, verbose=0), Exception),
    "y=None": (lambda m: m.fit(X, None, verbose=0), ValueError),
    "callback raises in on_epoch_begin": (
        lambda m: m.fit(X, LABELS, epochs=3, verbose=0, callbacks=[Raises("on_epoch_begin", 0)]), RuntimeError),
    "callback raises in on_train_batch_begin": (
        lambda m: m.fit(X, LABELS, batch_size=4, verbose=0, callbacks=[Raises("on_train_batch_begin", 0)]),
        RuntimeError),
}


@pytest.mark.parametrize("case", sorted(FAILING))
def test_a_failed_fit_leaves_weights_optimizer_and_train_counter_as_before(case: str) -> None:
    m = classifier()
    m.fit(X, LABELS, batch_size=4, verbose=0)
    m.fit(X, LABELS, batch_size=6, verbose=0)
    before = state(m)
    assert before[2] == 2
    call, error = FAILING[case]
    with pytest.raises(error):
        call(m)
    assert_unchanged(m, before)


def test_nan_float_class_labels_fail_and_change_nothing() -> None:
    m = classifier()
    m.fit(X, LABELS, batch_size=4, verbose=0)
    before = state(m)
    y = LABELS.astype("float32")
    y[1] = np.nan  # in the first batch: the fit fails before its first step
    with pytest.raises(Exception):  # noqa: B017 (TensorFlow's error for a label it cannot index)
        m.fit(X, y, batch_size=4, verbose=0, shuffle=False)
    assert_unchanged(m, before)


class ZeroesThenRaises(keras.callbacks.Callback):
    """Changes the weights when the fit begins (as BackupAndRestore's restore does), then fails before any step."""

    def on_train_begin(self, logs: object = None) -> None:
        self.model.set_weights([np.zeros_like(w) for w in self.model.get_weights()])

    def on_train_batch_begin(self, batch: int, logs: object = None) -> None:
        raise RuntimeError("callback failed")


def test_a_later_fit_that_fails_before_its_first_step_puts_back_what_its_callbacks_changed() -> None:
    m = classifier()
    m.fit(X, LABELS, batch_size=4, verbose=0)
    before = state(m)
    assert before[2] > 0
    with pytest.raises(RuntimeError, match="callback failed"):
        m.fit(X, LABELS, batch_size=4, verbose=0, callbacks=[ZeroesThenRaises()])
    assert_unchanged(m, before)


class ZeroesAndRaisesAtBegin(keras.callbacks.Callback):
    """Changes the weights and fails in on_train_begin, before the fit counts its steps."""

    def on_train_begin(self, logs: object = None) -> None:
        self.model.set_weights([np.zeros_like(w) for w in self.model.get_weights()])
        raise RuntimeError("callback failed at the beginning")


def test_a_later_fit_whose_on_train_begin_fails_puts_back_what_it_changed() -> None:
    m = classifier()
    m.fit(X, LABELS, batch_size=4, epochs=2, verbose=0)
    before = state(m)
    assert before[2] == 6  # 3 steps an epoch; counted over the whole fit, as in TF.NET
    with pytest.raises(RuntimeError, match="at the beginning"):
        m.fit(X, LABELS, batch_size=4, verbose=0, callbacks=[ZeroesAndRaisesAtBegin()])
    assert_unchanged(m, before)


def _failing_dataset(bad_batch: int, error: type[Exception]) -> tf.data.Dataset:
    def batches():
        for i in range(4):
            if i == bad_batch:
                raise error(f"batch {i} is unreadable")
            yield X[3 * i:3 * i + 3], LABELS[3 * i:3 * i + 3]

    spec = (tf.TensorSpec((None, 3), tf.float32), tf.TensorSpec((None,), tf.int64))
    return tf.data.Dataset.from_generator(batches, output_signature=spec)


def test_a_data_error_in_a_dataset_after_steps_changes_nothing() -> None:
    m = classifier()
    m.fit(X, LABELS, batch_size=4, verbose=0)
    before = state(m)
    with pytest.raises(Exception, match="batch 2 is unreadable"):
        m.fit(_failing_dataset(2, ValueError), verbose=0)
    assert_unchanged(m, before)


def test_a_callback_error_after_steps_over_a_dataset_keeps_the_steps() -> None:
    m = classifier()
    m.fit(X, LABELS, batch_size=4, verbose=0)
    before = state(m)
    with pytest.raises(RuntimeError, match="callback failed"):
        m.fit(_failing_dataset(9, ValueError), verbose=0, callbacks=[Raises("on_train_batch_begin", 2)])
    assert state(m)[2] == 2  # two steps of this fit ran and stay, as in Keras's fit
    assert not np.array_equal(state(m)[0][0], before[0][0])


# ----- clear errors -------------------------------------------------------------------------------------------

def test_a_ragged_list_as_x_is_named() -> None:
    with pytest.raises(ValueError, match=r"x is a ragged list: its rows have lengths \[2, 3\]"):
        classifier().fit([[1.0, 2.0, 3.0], [1.0, 2.0]], LABELS[:2], verbose=0)


def test_y_none_with_a_supervised_loss_is_named() -> None:
    with pytest.raises(ValueError, match=r"y must be given with array x.*got y=None"):
        classifier().fit(X, None, verbose=0)
    with pytest.raises(ValueError, match=r"y must be given with array x"):
        classifier().evaluate(X, None, verbose=0)


def test_a_loss_without_targets_may_leave_y_out() -> None:
    class Unsupervised(tfnet_train.Sequential):
        def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):  # noqa: ANN001
            return tf.reduce_mean(tf.square(y_pred))

    m = Unsupervised([keras.Input((3,)), keras.layers.Dense(2)])
    m.compile(optimizers.SGD(0.1), "mse")
    m.fit(X, None, verbose=0)
    assert int(m._train_counter.numpy()) == 1


@pytest.mark.parametrize("callbacks, match", [([42], r"callbacks\[0\] must be a keras.callbacks.Callback, got int 42"),
                                              ("x", r"callbacks must be a list of keras.callbacks.Callback, got str")])
def test_callbacks_that_are_not_callbacks_are_named(callbacks: object, match: str) -> None:
    m = classifier()
    with pytest.raises(TypeError, match=match):
        m.fit(X, LABELS, callbacks=callbacks, verbose=0)
    assert int(m._train_counter.numpy()) == 0


def test_train_step_traced_with_none() -> None:
    with pytest.raises(ValueError, match=r"x must be given: got None"):
        classifier().train_step_traced(None, LABELS)
    with pytest.raises(ValueError, match=r"y must be given with array x"):
        classifier().train_step_traced(X, None)


@pytest.mark.parametrize("loss", [42, [keras.losses.MeanSquaredError(), 3.5], {"out": object()}])
def test_compile_refuses_a_loss_that_is_no_loss(loss: object) -> None:
    m = tfnet_train.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    with pytest.raises(TypeError, match=r"loss must be a loss name, a keras.losses.Loss or a function"):
        m.compile(optimizers.SGD(0.1), loss)
    assert not m.compiled


def test_the_uncompiled_message_suggests_keyword_arguments() -> None:
    m = tfnet_train.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    with pytest.raises(ValueError, match=r"needs a compiled model: call model.compile\(optimizer=\.\.\., loss=\.\.\.,"):
        m.fit(X, LABELS, verbose=0)


# ----- labels that change rank between fits ---------------------------------------------------------------------

@pytest.mark.parametrize("path", ["arrays", "dataset", "train_on_batch", "train_step_traced"])
@pytest.mark.parametrize("first_rank", [1, 2])
def test_labels_may_change_rank_between_fits(path: str, first_rank: int) -> None:
    m = tfnet_train.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    m.compile(optimizers.SGD(0.1), "mse", metrics=["mae"])
    column = np.linspace(0.0, 1.0, 12, dtype="float32")[:, None]
    shapes = [column if first_rank == 2 else column[:, 0], column[:, 0] if first_rank == 2 else column]
    losses = []
    for y in shapes + shapes[:1]:
        if path == "arrays":
            losses.append(m.fit(X, y, batch_size=4, verbose=0).history["loss"][-1])
        elif path == "dataset":
            data = tf.data.Dataset.from_tensor_slices((X, y)).batch(4)
            losses.append(m.fit(data, verbose=0).history["loss"][-1])
        elif path == "train_on_batch":
            losses.append(float(m.train_on_batch(X, y, return_dict=True)["loss"]))
        else:
            losses.append(m.train_step_traced(X, y).loss)
    assert all(np.isfinite(losses))
