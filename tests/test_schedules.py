"""Learning-rate schedules are Keras 3's (re-exported by tfnet_train.optimizers); what the engine does with them:
the rate each step uses, in a graph and eagerly, under the keras profile, and their refusal under tfnet."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf
from parity import assert_history_equal, assert_weights_equal, dense_layers, twin_sequential

from tfnet_train import optimizers
from tfnet_train.tolerances import assert_close

CASES = {
    "exponential": ("ExponentialDecay", (0.1, 5, 0.5), {}),
    "piecewise": ("PiecewiseConstantDecay", ([3, 7, 12], [1.0, 0.5, 0.1, 0.01]), {}),
    "inverse_time_staircase": ("InverseTimeDecay", (0.1, 4, 0.5), {"staircase": True}),
    "polynomial_cycle": ("PolynomialDecay", (0.1, 6), {"end_learning_rate": 0.01, "power": 2.0, "cycle": True}),
    "cosine_warmup": ("CosineDecay", (0.0, 10), {"warmup_target": 0.2, "warmup_steps": 5}),
}
STEPS = 15


def test_schedules_are_keras_classes():
    for name in ("LearningRateSchedule", "ExponentialDecay", "PiecewiseConstantDecay", "InverseTimeDecay",
                 "PolynomialDecay", "CosineDecay", "CosineDecayRestarts"):
        assert getattr(optimizers.schedules, name) is getattr(keras.optimizers.schedules, name)
    assert optimizers.ExponentialDecay is keras.optimizers.schedules.ExponentialDecay


@pytest.mark.parametrize("in_graph", [False, True], ids=["eager", "tf_function"])
@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_each_step_uses_the_schedule_at_iterations(case, in_graph):
    """SGD with gradient 1: the weight moves by exactly the schedule's value at steps 0, 1, 2, ..."""
    class_name, args, kwargs = case
    schedule = getattr(optimizers.schedules, class_name)(*args, **kwargs)
    optimizer = optimizers.SGD(learning_rate=schedule)
    w = tf.Variable([0.0])

    def step():
        optimizer.apply_gradients([(tf.constant([1.0]), w)], False)

    run = tf.function(step) if in_graph else step
    expected = 0.0
    for t in range(STEPS):
        rate = float(schedule(tf.constant(t, tf.int64)))
        assert_close(optimizer.get_state([w])["learning_rate"].numpy(), rate, what=f"next rate at {t}")
        run()
        expected = np.float32(expected) - np.float32(rate)
        assert_close(w.numpy(), [expected], what=f"step {t}")


def test_engine_model_trains_with_a_schedule_as_keras():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(40, 4)).astype("float32"), rng.normal(size=(40, 2)).astype("float32")
    reference, model = twin_sequential(dense_layers(4, 2))
    schedule = dict(initial_learning_rate=0.1, decay_steps=3, decay_rate=0.5)
    reference.compile(keras.optimizers.Adam(keras.optimizers.schedules.ExponentialDecay(**schedule)), "mse")
    model.compile(optimizers.Adam(optimizers.ExponentialDecay(**schedule)), "mse")
    fit = dict(batch_size=8, epochs=2, verbose=0, shuffle=False)
    assert_history_equal(model.fit(x, y, **fit).history, reference.fit(x, y, **fit).history)
    assert_weights_equal(model.get_weights(), reference.get_weights())


def test_tfnet_refuses_schedules_and_callables():
    schedule = optimizers.ExponentialDecay(0.1, 10, 0.9)
    with pytest.raises(ValueError, match="learning_rate.*float.*tfnet.*ExponentialDecay"):
        optimizers.SGD(learning_rate=schedule, semantics="tfnet")
    optimizer = optimizers.SGD(semantics="tfnet")
    with pytest.raises(ValueError, match="learning_rate.*tfnet"):
        optimizer.learning_rate = lambda: 0.1
    assert float(optimizer.learning_rate) == pytest.approx(0.01)
