"""Any Keras 3 optimizer trains in the engine as in Keras (Adagrad, Nadam, Lion, LossScaleOptimizer, ...);
the traced step reports their state; optimizer variables save and load the Keras way."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import keras
import numpy as np
import pytest
import tensorflow as tf
from parity import assert_history_equal, assert_weights_equal, dense_layers, twin_sequential

from tfnet_train import optimizers
from tfnet_train.tolerances import assert_close

OTHER_OPTIMIZERS: dict[str, Callable[[], Any]] = {
    "adagrad": lambda: keras.optimizers.Adagrad(0.1),
    "nadam": lambda: keras.optimizers.Nadam(0.01),
    "lion": lambda: keras.optimizers.Lion(0.001),
    "adamax_clipnorm": lambda: keras.optimizers.Adamax(0.01, clipnorm=0.1),
    "ftrl": lambda: keras.optimizers.Ftrl(0.05),
    "keras_sgd_loss_scale_factor": lambda: keras.optimizers.SGD(0.05, momentum=0.5, loss_scale_factor=8.0),
    "loss_scale_adam": lambda: keras.optimizers.LossScaleOptimizer(keras.optimizers.Adam(0.01)),
    "loss_scale_ours_clipvalue": lambda: keras.optimizers.LossScaleOptimizer(
        optimizers.SGD(0.05, clipvalue=0.01), initial_scale=2.0**10, dynamic_growth_steps=3),
}


def _data(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.normal(size=(48, 4)).astype("float32"), rng.normal(size=(48, 2)).astype("float32")


@pytest.mark.parametrize("make", OTHER_OPTIMIZERS.values(), ids=OTHER_OPTIMIZERS.keys())
def test_keras_optimizer_trains_as_in_keras(make: Callable[[], Any]) -> None:
    x, y = _data()
    reference, model = twin_sequential(dense_layers(4, 2, "tanh"))
    reference.compile(optimizer=make(), loss="mse")
    model.compile(optimizer=make(), loss="mse")
    fit = dict(batch_size=8, epochs=2, verbose=0, shuffle=False)
    assert_history_equal(model.fit(x, y, **fit).history, reference.fit(x, y, **fit).history)
    assert_weights_equal(model.get_weights(), reference.get_weights())
    assert int(model.optimizer.iterations.numpy()) == int(reference.optimizer.iterations.numpy()) == 12


def test_optimizer_name_string_gives_keras_optimizer() -> None:
    x, y = _data(1)
    reference, model = twin_sequential(dense_layers(4, 2))
    reference.compile(optimizer="adagrad", loss="mse")
    model.compile(optimizer="adagrad", loss="mse")
    assert type(model.optimizer) is keras.optimizers.Adagrad
    fit = dict(batch_size=8, epochs=1, verbose=0, shuffle=False)
    assert_history_equal(model.fit(x, y, **fit).history, reference.fit(x, y, **fit).history)
    assert_weights_equal(model.get_weights(), reference.get_weights())


def test_plain_keras_optimizer_is_refused_under_tfnet() -> None:
    _, model = twin_sequential(dense_layers(4, 2))
    with pytest.raises(ValueError, match="semantics='tfnet'.*Nadam"):
        model.compile(optimizer=keras.optimizers.Nadam(), loss="mse", semantics="tfnet")


def test_loss_scale_optimizer_skips_non_finite_steps_and_halves_the_scale() -> None:
    _, model = twin_sequential(dense_layers(4, 2))
    model.compile(optimizer=keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(0.1)), loss="mse")
    x, y = _data(2)
    before = model.get_weights()
    y[0, 0] = np.inf
    model.fit(x[:8], y[:8], batch_size=8, epochs=1, verbose=0)
    assert_weights_equal(model.get_weights(), before)
    assert float(model.optimizer.dynamic_scale.numpy()) == 2.0**14
    assert int(model.optimizer.iterations.numpy()) == 0


def test_traced_step_reports_unscaled_clipped_gradients_and_inner_state() -> None:
    _, model = twin_sequential(dense_layers(4, 2))
    model.compile(optimizer=keras.optimizers.LossScaleOptimizer(keras.optimizers.Adam(0.01, clipvalue=0.05)),
                  loss="mse")
    x, y = _data(3)
    trace = model.train_step_traced(x[:8], y[:8])
    scale = 2.0**15
    for raw, clipped in zip(trace.gradients, trace.clipped_gradients, strict=True):
        assert_close(clipped, np.clip(raw / scale, -0.05, 0.05), what="unscaled, then clipped by value")
    assert trace.optimizer_state["iterations"] == 1
    assert set(trace.optimizer_state["slots"]) == {"m", "v"}
    assert trace.optimizer_state["learning_rate"] == pytest.approx(0.01)


def test_optimizer_state_of_other_keras_optimizers_uses_keras_slot_suffixes() -> None:
    w = [keras.Variable(np.ones((2, 2), np.float32), name="kernel"), keras.Variable([1.0], name="bias")]
    optimizer = keras.optimizers.Adagrad(0.1)
    optimizers.build(optimizer, w)
    optimizers.apply_gradients(optimizer, [tf.ones((2, 2)), tf.constant([2.0])], w)
    state = tf.function(lambda: optimizers.optimizer_state(optimizer, w))()
    assert int(state["iterations"]) == 1 and state["iterations"].dtype == tf.int64
    assert_close(state["learning_rate"].numpy(), 0.1, what="learning_rate")
    assert sorted(state["slots"]) == ["accumulator"]
    assert_close(state["slots"]["accumulator"][1].numpy(), [0.1 + 4.0], what="initial 0.1 plus g^2")
    sgd = keras.optimizers.SGD(0.1, momentum=0.5)
    optimizers.build(sgd, w)
    assert sorted(optimizers.optimizer_state(sgd, w)["slots"]) == ["momentum"]


@pytest.mark.parametrize("semantics", ["keras", "tfnet"])
def test_keras_model_with_our_adam_round_trips_through_keras_saving(tmp_path: Path, semantics: str) -> None:
    x, y = _data(4)
    keras.utils.set_random_seed(4)
    model = keras.Sequential(dense_layers(4, 2)())
    model.compile(optimizer=optimizers.Adam(0.01, semantics=semantics), loss="mse")
    model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    path = tmp_path / "x.keras"
    model.save(path)
    loaded = keras.saving.load_model(path)
    assert type(loaded.optimizer) is optimizers.Adam and loaded.optimizer.semantics == semantics
    assert len(loaded.optimizer.variables) == len(model.optimizer.variables) == 2 + 2 * 4
    for ours, theirs in zip(loaded.optimizer.variables, model.optimizer.variables, strict=True):
        assert np.array_equal(ours.numpy(), theirs.numpy()), ours.path
    assert int(loaded.optimizer.iterations.numpy()) == 6
    # both continue identically
    model.fit(x, y, batch_size=8, epochs=1, verbose=0, shuffle=False)
    loaded.fit(x, y, batch_size=8, epochs=1, verbose=0, shuffle=False)
    for a, b in zip(loaded.get_weights(), model.get_weights(), strict=True):
        assert np.array_equal(a, b)


@pytest.fixture
def mixed_float16() -> Any:
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        yield
    finally:
        keras.mixed_precision.set_global_policy("float32")


def test_mixed_precision_with_loss_scale_optimizer_trains_as_in_keras(mixed_float16: Any) -> None:
    x, y = _data(5)
    reference, model = twin_sequential(dense_layers(4, 2, "tanh"))
    assert model.layers[0].compute_dtype == "float16" and model.layers[0].kernel.dtype == "float32"

    def make() -> Any:
        return keras.optimizers.LossScaleOptimizer(keras.optimizers.Adam(0.01), dynamic_growth_steps=2)

    reference.compile(optimizer=make(), loss="mse")
    model.compile(optimizer=make(), loss="mse")
    fit = dict(batch_size=8, epochs=2, verbose=0, shuffle=False)
    assert_history_equal(model.fit(x, y, **fit).history, reference.fit(x, y, **fit).history)
    assert_weights_equal(model.get_weights(), reference.get_weights())
    assert float(model.optimizer.dynamic_scale.numpy()) == float(reference.optimizer.dynamic_scale.numpy())
    assert float(model.optimizer.dynamic_scale.numpy()) > 2.0**15  # it grew every 2 finite steps
