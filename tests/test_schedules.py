"""Learning-rate schedules: Keras 3 parity at every step (eagerly and in a graph), configs, argument errors."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

from tfnet_train import optimizers
from tfnet_train.tolerances import assert_close

K = keras.optimizers.schedules

CASES = {
    "exponential": ("ExponentialDecay", (0.1, 5, 0.5), {}),
    "exponential_staircase": ("ExponentialDecay", (0.1, 5, 0.5), {"staircase": True}),
    "piecewise": ("PiecewiseConstantDecay", ([3, 7, 12], [1.0, 0.5, 0.1, 0.01]), {}),
    "piecewise_one_boundary": ("PiecewiseConstantDecay", ([4], [0.2, 0.02]), {}),
    "inverse_time": ("InverseTimeDecay", (0.1, 4, 0.5), {}),
    "inverse_time_staircase": ("InverseTimeDecay", (0.1, 4, 0.5), {"staircase": True}),
    "polynomial": ("PolynomialDecay", (0.1, 10), {"end_learning_rate": 0.01, "power": 0.5}),
    "polynomial_cycle": ("PolynomialDecay", (0.1, 6), {"end_learning_rate": 0.01, "power": 2.0, "cycle": True}),
    "cosine": ("CosineDecay", (0.1, 10), {"alpha": 0.1}),
    "cosine_warmup": ("CosineDecay", (0.0, 10), {"warmup_target": 0.2, "warmup_steps": 5}),
}
STEPS = range(0, 25)


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_schedule_matches_keras3_at_every_step(case):
    class_name, args, kwargs = case
    ours, theirs = getattr(optimizers, class_name)(*args, **kwargs), getattr(K, class_name)(*args, **kwargs)
    for step in STEPS:
        value = ours(tf.constant(step, tf.int64))
        assert value.dtype == tf.float32
        assert_close(value.numpy(), theirs(tf.constant(step, tf.int64)).numpy(), what=f"step {step}")


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_schedule_in_graph_with_variable_step_equals_eager(case):
    class_name, args, kwargs = case
    schedule = getattr(optimizers, class_name)(*args, **kwargs)
    step = tf.Variable(0, dtype=tf.int64)
    evaluate = tf.function(lambda: schedule(step))
    for value in STEPS:
        step.assign(value)
        assert_close(evaluate().numpy(), schedule(tf.constant(value, tf.int64)).numpy(), what=f"step {value}")


def test_schedule_values_against_closed_forms():
    exponential = optimizers.ExponentialDecay(0.1, 4, 0.5)
    assert_close(exponential(tf.constant(6, tf.int64)).numpy(), 0.1 * 0.5 ** (6 / 4), what="exponential")
    piecewise = optimizers.PiecewiseConstantDecay([2, 5], [1.0, 0.5, 0.1])
    got = [float(piecewise(tf.constant(s, tf.int64))) for s in range(8)]
    assert got == pytest.approx([1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.1, 0.1])
    cosine = optimizers.CosineDecay(0.1, 10, alpha=0.2)
    assert_close(cosine(tf.constant(5, tf.int64)).numpy(), 0.1 * (0.8 * 0.5 * (1 + np.cos(np.pi / 2)) + 0.2))
    polynomial = optimizers.PolynomialDecay(0.1, 10, end_learning_rate=0.0, power=2.0)
    assert_close(polynomial(tf.constant(20, tf.int64)).numpy(), 0.0, what="capped at decay_steps")


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_schedule_config_round_trip(case):
    class_name, args, kwargs = case
    schedule = getattr(optimizers, class_name)(*args, **kwargs)
    rebuilt = type(schedule).from_config(schedule.get_config())
    assert rebuilt.get_config() == schedule.get_config()
    assert schedule.get_config() == getattr(keras.optimizers.schedules, class_name)(*args, **kwargs).get_config()
    assert isinstance(schedule, keras.optimizers.schedules.LearningRateSchedule)


@pytest.mark.parametrize(
    "build, error, pattern",
    [
        (lambda: optimizers.ExponentialDecay(0.1, 0, 0.5), ValueError, "decay_steps.*> 0.*0"),
        (lambda: optimizers.InverseTimeDecay(0.1, -2, 0.5), ValueError, "decay_steps.*> 0.*-2"),
        (lambda: optimizers.PolynomialDecay(0.1, 0), ValueError, "decay_steps"),
        (lambda: optimizers.CosineDecay(0.1, 0), ValueError, "decay_steps"),
        (lambda: optimizers.CosineDecay(0.1, 10, warmup_steps=-1), ValueError, "warmup_steps.*>= 0.*-1"),
        (lambda: optimizers.ExponentialDecay("0.1", 10, 0.5), TypeError, "initial_learning_rate.*str"),
        (lambda: optimizers.ExponentialDecay(0.1, 10, 0.5, staircase="no"), TypeError, "staircase.*bool"),
        (lambda: optimizers.PolynomialDecay(0.1, 10, cycle=None), TypeError, "cycle.*bool"),
        (
            lambda: optimizers.PiecewiseConstantDecay([1, 2], [0.1, 0.2]),
            ValueError,
            r"boundaries.*one element fewer.*len\(boundaries\) == 1.*length 2.*length 2",
        ),
        (lambda: optimizers.PiecewiseConstantDecay([], [0.1]), ValueError, r"boundaries.*at least one"),
        (lambda: optimizers.PiecewiseConstantDecay([5, 5], [0.1, 0.2, 0.3]), ValueError, "strictly increasing"),
        (lambda: optimizers.PiecewiseConstantDecay([1, 2], [0.1, "x", 0.3]), TypeError, r"values\[1\].*str"),
    ],
)
def test_schedule_argument_errors(build, error, pattern):
    with pytest.raises(error, match=pattern):
        build()


def test_base_class_requires_call_and_config():
    class Incomplete(optimizers.LearningRateSchedule):
        pass

    with pytest.raises(NotImplementedError, match="Incomplete.*__call__"):
        Incomplete()(tf.constant(0, tf.int64))
    with pytest.raises(NotImplementedError, match="Incomplete.*get_config"):
        Incomplete().get_config()
