"""What Keras 3 defines works on the engine as in Keras: inputs of every kind, steps_per_epoch, compile's loss and
metric structures, the train_step / compute_loss override contract, model metrics, functional-style subclasses.
Each test trains the same network with keras.Model and with the engine and compares."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import keras
import numpy as np
import pytest
import tensorflow as tf
from parity import assert_history_equal, assert_weights_equal, dense_layers, optimizer_pair, twin_sequential

import tfnet_train
from tfnet_train.tolerances import assert_close

RNG = np.random.default_rng(5)
X = RNG.normal(size=(40, 4)).astype("float32")
Y = RNG.normal(size=(40, 2)).astype("float32")


def both(fit: Callable[[keras.Model], Any], **compile_kwargs: Any) -> tuple[keras.Model, keras.Model, Any, Any]:
    """The same fit on keras.Sequential and on the engine's Sequential (4-8-2), from the same weights."""
    reference, model = twin_sequential(dense_layers(4, 2))
    k_opt, o_opt = optimizer_pair("sgd", learning_rate=0.05, momentum=0.9)
    compile_kwargs.setdefault("loss", "mse")
    reference.compile(optimizer=k_opt, **compile_kwargs)
    model.compile(optimizer=o_opt, **compile_kwargs)
    return reference, model, fit(reference), fit(model)


class StepCounter(keras.callbacks.Callback):
    def __init__(self) -> None:
        super().__init__()
        self.per_epoch: list[int] = []

    def on_epoch_begin(self, epoch, logs=None):
        self.per_epoch.append(0)

    def on_train_batch_end(self, batch, logs=None):
        self.per_epoch[-1] += 1


@pytest.mark.parametrize("kind", ["generator", "py_dataset", "dataset", "ragged_free_tensor"])
def test_every_keras_input_kind_trains_as_in_keras(kind: str) -> None:
    def data() -> Any:
        if kind == "generator":
            return (lambda: ((X[i:i + 8], Y[i:i + 8]) for i in range(0, 40, 8)))()
        if kind == "py_dataset":
            class Batches(keras.utils.PyDataset):
                def __len__(self) -> int:
                    return 5

                def __getitem__(self, i: int) -> tuple[np.ndarray, np.ndarray]:
                    return X[i * 8:(i + 1) * 8], Y[i * 8:(i + 1) * 8]

            return Batches()
        if kind == "dataset":
            return tf.data.Dataset.from_tensor_slices((X, Y)).batch(8)
        return tf.constant(X)

    def fit(m: keras.Model) -> Any:
        if kind == "ragged_free_tensor":
            return m.fit(data(), tf.constant(Y), batch_size=8, shuffle=False, verbose=0).history
        return m.fit(data(), epochs=1, shuffle=False, verbose=0).history

    reference, model, expected, got = both(fit)
    assert_history_equal(got, expected)
    assert_weights_equal(model.get_weights(), reference.get_weights())


def test_validation_steps_and_validation_batch_size_as_in_keras() -> None:
    dataset = tf.data.Dataset.from_tensor_slices((X, Y)).batch(4)

    def fit(m: keras.Model) -> Any:
        return m.fit(X, Y, batch_size=8, epochs=2, shuffle=False, verbose=0, validation_data=dataset,
                     validation_steps=3).history

    _, _, expected, got = both(fit)
    assert_history_equal(got, expected)


@pytest.mark.parametrize(("steps_per_epoch", "epochs"), [(11, 1), (9, 4), (3, 5)])
def test_steps_per_epoch_over_finite_data_ends_epochs_as_keras_does(steps_per_epoch: int, epochs: int) -> None:
    """10 batches: steps_per_epoch=11 runs 10 steps; 9 over four epochs runs [9, 1, 9, 1]."""
    counters: dict[int, StepCounter] = {}

    def fit(m: keras.Model) -> Any:
        counters[id(m)] = StepCounter()
        return m.fit(X, Y, batch_size=4, epochs=epochs, steps_per_epoch=steps_per_epoch, shuffle=False,
                     verbose=0, callbacks=[counters[id(m)]]).history

    reference, model, expected, got = both(fit)
    assert counters[id(model)].per_epoch == counters[id(reference)].per_epoch
    assert_history_equal(got, expected)
    assert_weights_equal(model.get_weights(), reference.get_weights())
    if (steps_per_epoch, epochs) == (9, 4):
        assert counters[id(model)].per_epoch == [9, 1, 9, 1]


def two_outputs() -> Callable[[type], keras.Model]:
    def build(cls: type) -> keras.Model:
        inputs = {"a": keras.Input((2,), name="a"), "b": keras.Input((2,), name="b")}
        hidden = keras.layers.Dense(4, activation="tanh")(keras.layers.Concatenate()([inputs["a"], inputs["b"]]))
        first = keras.layers.Dense(1, name="first")(hidden)
        second = keras.layers.Dense(3, activation="softmax", name="second")(hidden)
        return cls(inputs=inputs, outputs=[first, second])
    return build


def twin_two_outputs() -> tuple[keras.Model, keras.Model]:
    keras.utils.set_random_seed(0)
    reference = two_outputs()(keras.Model)
    model = two_outputs()(tfnet_train.Model)
    model.set_weights(reference.get_weights())
    return reference, model


def test_dict_inputs_in_any_key_order_loss_weights_dict_losses_and_per_output_logs() -> None:
    labels = RNG.integers(0, 3, 40)
    y = {"second": labels, "first": Y[:, :1]}  # dict targets matched to outputs by name, not by sorted key
    x = {"b": X[:, 2:], "a": X[:, :2]}  # another key order than the model's inputs
    histories = []
    models = twin_two_outputs()
    for m in models:
        m.compile(optimizer=tfnet_train.optimizers.SGD(0.05) if isinstance(m, tfnet_train.Model)
                  else keras.optimizers.SGD(0.05),
                  loss={"second": "sparse_categorical_crossentropy", "first": "mse"},
                  loss_weights={"first": 0.5, "second": 2.0},
                  metrics={"second": ["accuracy"], "first": [keras.metrics.MeanAbsoluteError(name="mae")]},
                  weighted_metrics={"first": ["mse"]})
        histories.append(m.fit(x, y,
                               batch_size=8, epochs=2, shuffle=False, verbose=0).history)
    assert "second_accuracy" in histories[1] and "first_loss" in histories[1]
    assert_history_equal(histories[1], histories[0])
    assert_weights_equal(models[1].get_weights(), models[0].get_weights())


def test_dict_targets_on_a_list_output_model_pair_by_output_name() -> None:
    """Keras pairs {'second': ..., 'first': ...} with the outputs named so: the loss is 0 when each target equals
    its own output's prediction."""
    reference, model = twin_two_outputs()
    x = {"a": X[:, :2], "b": X[:, 2:]}
    for m in (reference, model):
        m.compile(optimizer="sgd", loss={"first": "mse", "second": "mse"})
    first, second = model.predict(x, verbose=0)
    y = {"second": second, "first": first}
    assert model.evaluate(x, y, verbose=0)[0] == pytest.approx(0.0, abs=1e-12)
    assert_close(model.evaluate(x, y, verbose=0), reference.evaluate(x, y, verbose=0), what="evaluate")


def test_none_entries_in_a_loss_list_train_only_the_other_output() -> None:
    reference, model = twin_two_outputs()
    x = {"a": X[:, :2], "b": X[:, 2:]}
    y = [Y[:, :1], RNG.integers(0, 3, 40)]
    histories = []
    for m in (reference, model):
        m.compile(optimizer="sgd", loss=[None, "sparse_categorical_crossentropy"])
        histories.append(m.fit(x, y, batch_size=8, shuffle=False, verbose=0).history)
    assert_history_equal(histories[1], histories[0])


class KerasGuideModel:
    """The 'customizing what happens in fit' pattern: train_step(self, data), own metrics as attributes."""

    @staticmethod
    def make(base: type) -> type:
        class Custom(base):
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                self.loss_tracker = keras.metrics.Mean(name="my_loss")
                self.mae = keras.metrics.MeanAbsoluteError(name="my_mae")

            def train_step(self, data: Any) -> dict[str, Any]:
                x, y = data
                with tf.GradientTape() as tape:
                    y_pred = self(x, training=True)
                    loss = keras.ops.mean(keras.ops.square(y - y_pred))
                gradients = tape.gradient(loss, self.trainable_variables)
                self.optimizer.apply_gradients(zip(gradients, self.trainable_variables))
                self.loss_tracker.update_state(loss)
                self.mae.update_state(y, y_pred)
                return {"my_loss": self.loss_tracker.result(), "my_mae": self.mae.result()}

            @property
            def metrics(self) -> list:
                return [self.loss_tracker, self.mae]

        return Custom


def test_a_train_step_override_trains_as_in_keras_and_counts_steps() -> None:
    histories, weights = [], []
    for base in (keras.Sequential, tfnet_train.Sequential):
        keras.utils.set_random_seed(0)
        model = KerasGuideModel.make(base)(dense_layers(4, 2)())
        model.compile(optimizer=keras.optimizers.SGD(0.05) if base is keras.Sequential
                      else tfnet_train.optimizers.SGD(0.05))
        histories.append(model.fit(X, Y, batch_size=8, epochs=2, shuffle=False, verbose=0).history)
        weights.append(model.get_weights())
    assert_history_equal(histories[1], histories[0])
    assert_weights_equal(weights[1], weights[0])
    assert int(model._train_counter.numpy()) == 10


def test_a_compute_loss_override_is_called() -> None:
    class Doubled(tfnet_train.Sequential):
        def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
            return 2.0 * super().compute_loss(x, y, y_pred, sample_weight, training=training)

    keras.utils.set_random_seed(0)
    plain = tfnet_train.Sequential(dense_layers(4, 2)())
    doubled = Doubled(dense_layers(4, 2)())
    doubled.set_weights(plain.get_weights())
    for m in (plain, doubled):
        m.compile(optimizer=tfnet_train.optimizers.SGD(0.05), loss="mse")
    assert_close(doubled.evaluate(X, Y, verbose=0), 2.0 * plain.evaluate(X, Y, verbose=0), what="loss")


def test_functional_style_subclasses_leave_the_library_intact() -> None:
    class Wrapped(tfnet_train.Model):
        def __init__(self) -> None:
            inputs = keras.Input((4,))
            super().__init__(inputs=inputs, outputs=keras.layers.Dense(2)(inputs))

    wrapped = Wrapped()
    assert isinstance(wrapped, tfnet_train.Functional)
    assert tfnet_train.Model.__bases__[-1] is keras.Model

    class Plain(tfnet_train.Model):
        def __init__(self) -> None:
            super().__init__()
            self.dense = keras.layers.Dense(2)

        def call(self, x):
            return self.dense(x)

    for model in (tfnet_train.Sequential(dense_layers(4, 2)()), Plain(), Wrapped()):
        model.compile(optimizer=tfnet_train.optimizers.SGD(0.01), loss="mse")
        assert np.isfinite(model.fit(X, Y, verbose=0).history["loss"][0])
def test_train_on_batch_reset_metrics_false_accumulates_as_tf_keras_did() -> None:
    reference, model = twin_sequential(dense_layers(4, 2))
    reference.compile(optimizer=keras.optimizers.SGD(0.0), loss="mse", metrics=["mae"])
    model.compile(optimizer=tfnet_train.optimizers.SGD(0.0), loss="mse", metrics=["mae"])
    model.train_on_batch(X[:20], Y[:20])
    accumulated = model.train_on_batch(X[20:], Y[20:], reset_metrics=False, return_dict=True)
    whole = reference.evaluate(X, Y, batch_size=20, return_dict=True, verbose=0)
    assert_close([accumulated["loss"], accumulated["mae"]], [whole["loss"], whole["mae"]], what="accumulated")
    alone = model.train_on_batch(X[20:], Y[20:], return_dict=True)
    assert alone["loss"] == pytest.approx(reference.evaluate(X[20:], Y[20:], return_dict=True, verbose=0)["loss"])


def test_any_keras_optimizer_trains_the_engine_as_it_trains_keras() -> None:
    histories, weights = [], []
    for base in (keras.Sequential, tfnet_train.Sequential):
        keras.utils.set_random_seed(0)
        model = base(dense_layers(4, 2)())
        model.compile(optimizer=keras.optimizers.Adagrad(0.1, clipnorm=0.5), loss="mse")
        histories.append(model.fit(X, Y, batch_size=8, epochs=2, shuffle=False, verbose=0).history)
        weights.append(model.get_weights())
    assert_history_equal(histories[1], histories[0])
    assert_weights_equal(weights[1], weights[0])
