"""Bad input gets a clear ValueError/TypeError, and a failing step leaves the model as it was."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

import tfnet_train
from tfnet_train import optimizers
from tfnet_train.tolerances import assert_close


def model(n_out: int = 1) -> tfnet_train.Sequential:
    keras.utils.set_random_seed(0)
    return tfnet_train.Sequential([keras.Input((3,)), keras.layers.Dense(n_out)])


def compiled(n_out: int = 1, **kwargs) -> tfnet_train.Sequential:
    m = model(n_out)
    m.compile(kwargs.pop("optimizer", optimizers.Adam(0.01)), kwargs.pop("loss", "mse"), **kwargs)
    return m


X = np.zeros((10, 3), "float32")
Y = np.zeros((10, 1), "float32")


def test_fit_and_evaluate_before_compile() -> None:
    with pytest.raises(ValueError, match=r"fit\(\) needs a compiled model"):
        model().fit(X, Y, verbose=0)
    with pytest.raises(ValueError, match=r"evaluate\(\) needs a compiled model"):
        model().evaluate(X, Y, verbose=0)


def test_x_y_length_mismatch_names_both_lengths() -> None:
    with pytest.raises(ValueError, match=r"x and y must have the same number of samples, got x: 10, y: 7"):
        compiled().fit(X, Y[:7], verbose=0)


def test_scalars_and_multi_input_row_counts_name_the_array() -> None:
    m = compiled()
    with pytest.raises(ValueError, match=r"^x must have a batch dimension, got a scalar$"):
        m.train_on_batch(np.array(1.0, "float32"), Y)
    with pytest.raises(ValueError, match=r"^y must have a batch dimension, got a scalar$"):
        m.fit(X, np.array(1.0, "float32"), verbose=0)
    a, b = keras.Input((3,)), keras.Input((2,))
    two = tfnet_train.Model(inputs=[a, b], outputs=keras.layers.Dense(1)(keras.layers.Concatenate()([a, b])))
    two.compile("sgd", "mse")
    with pytest.raises(ValueError, match=r"x\[0\] and x\[1\] must have the same number of samples, got x\[0\]: 10, "
                                         r"x\[1\]: 9"):
        two.train_on_batch([X, np.zeros((9, 2), "float32")], Y)
    with pytest.raises(ValueError, match=r"x\[0\] and y must have the same number of samples, got x\[0\]: 10, y: 8"):
        two.fit([X, np.zeros((10, 2), "float32")], Y[:8], verbose=0)
    assert int(two._train_counter.numpy()) == 0


def test_validation_data_errors_say_so() -> None:
    m = compiled()
    with pytest.raises(ValueError, match=r"^validation_data: x has shape \(4, 5\); the model expects shape \(None, 3"):
        m.fit(X, Y, epochs=2, verbose=0, validation_data=(np.zeros((4, 5), "float32"), Y[:4]))
    with pytest.raises(ValueError, match=r"^validation_data: x and y must have the same number of samples, got x: 4, "
                                         r"y: 3"):
        m.fit(X, Y, epochs=2, verbose=0, validation_data=(X[:4], Y[:3]))


def test_wrong_rank_and_feature_size() -> None:
    with pytest.raises(ValueError, match=r"x has shape \(10, 3, 1\) \(rank 3\); the model expects rank 2"):
        compiled().fit(X[..., None], Y, verbose=0)
    with pytest.raises(ValueError, match=r"x has shape \(10, 4\); the model expects shape \(None, 3\)"):
        compiled().fit(np.zeros((10, 4), "float32"), Y, verbose=0)


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({"loss": "not_a_loss"}, r"loss: unknown name 'not_a_loss'"),
        ({"metrics": ["not_a_metric"]}, r"metrics: unknown metric name 'not_a_metric'"),
        ({"optimizer": "not_an_optimizer"}, r"optimizer"),
        ({"semantics": "pytorch"}, r"semantics must be one of \('keras', 'tfnet'\), got 'pytorch'"),
        ({"steps_per_execution": 0}, r"steps_per_execution must be an integer >= 1, got 0"),
    ],
)
def test_compile_rejects_unknown_names(kwargs: dict, pattern: str) -> None:
    with pytest.raises(ValueError, match=pattern):
        compiled(**kwargs)


def test_empty_data_batch_size_and_non_numeric() -> None:
    with pytest.raises(ValueError, match=r"x is empty: got 0 samples"):
        compiled().fit(X[:0], Y[:0], verbose=0)
    with pytest.raises(ValueError, match=r"batch_size must be an integer >= 1, got 0"):
        compiled().fit(X, Y, batch_size=0, verbose=0)
    with pytest.raises(TypeError, match=r"x must hold numbers \(float or int\), got dtype <U1"):
        compiled().fit(np.full((10, 3), "a"), Y, verbose=0)


@pytest.mark.parametrize("steps", [0, -2, 1.5, True])
def test_steps_per_epoch_names_what_it_accepts(steps: object) -> None:
    with pytest.raises(ValueError, match=r"steps_per_epoch must be None, -1 .* or an integer >= 1, got "):
        compiled().fit(X, Y, steps_per_epoch=steps, verbose=0)


def test_minus_one_steps_per_epoch_runs_until_the_data_ends() -> None:
    a, b = compiled(), compiled()
    b.set_weights(a.get_weights())
    a.fit(X, Y, batch_size=4, steps_per_epoch=-1, verbose=0, shuffle=False)
    b.fit(X, Y, batch_size=4, verbose=0, shuffle=False)
    for u, v in zip(a.get_weights(), b.get_weights(), strict=True):
        np.testing.assert_array_equal(u, v)


def test_unshuffled_calls_leave_numpys_random_state_alone() -> None:
    m = compiled()
    np.random.seed(123)
    expected = np.random.random()
    np.random.seed(123)
    m.fit(X, Y, batch_size=4, verbose=0, shuffle=False)
    m.evaluate(X, Y, verbose=0)
    m.predict(X, verbose=0)
    assert np.random.random() == expected


def test_clipnorm_with_global_clipnorm() -> None:
    with pytest.raises(ValueError, match=r"clipnorm"):
        optimizers.SGD(0.1, clipnorm=1.0, global_clipnorm=1.0)


@pytest.mark.parametrize(("weights", "semantics"), [({0: 1.0, 2: 3.0}, "tfnet"), ({"a": 1.0}, "keras"),
                                                    ({}, "keras"), ({-1: 2.0}, "keras")])
def test_class_weight_with_bad_keys(weights: dict, semantics: str) -> None:
    with pytest.raises(ValueError, match=r"class_weight"):
        compiled(3, loss="sparse_categorical_crossentropy", semantics=semantics).fit(
            X, np.zeros(10, "int64"), class_weight=weights, verbose=0)


def _state(m: keras.Model) -> tuple[list[np.ndarray], int]:
    return [np.array(v.numpy()) for v in m.weights + m.optimizer.variables], int(m._train_counter.numpy())


def _assert_state(m: keras.Model, state: tuple[list[np.ndarray], int]) -> None:
    values, counter = _state(m)
    assert all(np.array_equal(a, b) for a, b in zip(state[0], values, strict=True)), "weights or optimizer state"
    assert counter == state[1], "_train_counter"


@pytest.mark.parametrize("semantics", ["keras", "tfnet"])
@pytest.mark.parametrize("units", [3, 1])
def test_class_weight_for_a_class_the_model_does_not_have_is_refused(semantics: str, units: int) -> None:
    """Keras 3 ignores the weight of a class the model's output does not score (a key counted from 1, say): here
    a ValueError naming the keys and the classes, in fit and train_on_batch, leaving the model as it was. A single
    output unit scores classes 0 and 1."""
    loss = "sparse_categorical_crossentropy" if units > 1 else "binary_crossentropy"
    m = compiled(units, loss=loss, semantics=semantics)
    y = np.arange(10, dtype="int64") % max(units, 2)
    m.fit(X, y, batch_size=5, verbose=0)
    state = _state(m)
    classes = max(units, 2)
    weights = {k: 1.0 for k in range(classes + 1)}  # 0..classes: one too many
    pattern = rf"class_weight has weights for classes \[{classes}\] that the model does not have: its output " \
              rf"scores {classes} classes, so keys must be in 0..{classes - 1}"
    with pytest.raises(ValueError, match=pattern):
        m.fit(X, y, batch_size=5, class_weight=weights, verbose=0)
    _assert_state(m, state)
    with pytest.raises(ValueError, match=pattern):
        m.train_on_batch(X, y, class_weight=weights)
    _assert_state(m, state)
    m.fit(X, y, batch_size=5, class_weight={k: 1.0 for k in range(classes)}, verbose=0)  # every class: accepted


@pytest.mark.parametrize("make", [optimizers.SGD, optimizers.Adam, optimizers.AdamW, optimizers.RMSprop])
@pytest.mark.parametrize("rate", [-1.0, -1e-9, float("nan"), float("inf")])
def test_a_learning_rate_must_be_finite_and_not_negative(make: type, rate: float) -> None:
    """Keras 3 takes any float and trains to nonsense: the engine's optimizers refuse it when made and when set
    (a callback, a schedule's user), and a refused setting leaves the model and the optimizer as they were."""
    pattern = r"Argument `learning_rate` must be a finite float >= 0 .* or a schedule, got "
    with pytest.raises(ValueError, match=pattern + ("nan" if rate != rate else repr(rate))):
        make(learning_rate=rate)
    with pytest.raises(ValueError, match=pattern):
        make(np.float32(rate))
    m = compiled(optimizer=make(0.01))
    m.fit(X, Y, batch_size=5, verbose=0)
    state = _state(m)
    with pytest.raises(ValueError, match=pattern):
        m.optimizer.learning_rate = rate
    assert float(m.optimizer.learning_rate) == pytest.approx(0.01)
    _assert_state(m, state)
    make(learning_rate=0.0)  # 0 is a rate: it leaves the weights as they are


def test_class_weight_keys_with_gaps_weigh_the_missing_classes_one_under_keras() -> None:
    x = np.random.default_rng(0).normal(size=(10, 3)).astype("float32")
    y = np.array([0, 1, 2, 0, 1, 2, 0, 1, 2, 0], "int64")
    weights = {0: 1.0, 2: 3.0}
    engine = compiled(3, loss="sparse_categorical_crossentropy", optimizer=optimizers.SGD(0.1))
    reference = keras.Sequential([keras.Input((3,)), keras.layers.Dense(3)])
    reference.set_weights(engine.get_weights())
    reference.compile(keras.optimizers.SGD(0.1), "sparse_categorical_crossentropy")
    got = engine.fit(x, y, class_weight=weights, shuffle=False, verbose=0).history["loss"]
    want = reference.fit(x, y, class_weight=weights, shuffle=False, verbose=0).history["loss"]
    assert_close(got, want, what="loss")
    got = engine.train_on_batch(x, y, class_weight=weights, return_dict=True)["loss"]
    want = reference.train_on_batch(x, y, class_weight=weights, return_dict=True)["loss"]
    assert_close(got, want, what="train_on_batch loss")
    for got_w, want_w in zip(engine.get_weights(), reference.get_weights(), strict=True):
        assert_close(got_w, want_w, what="weights")


def test_train_on_batch_class_weight_with_sample_weight_is_refused_under_keras() -> None:
    m = compiled(3, loss="sparse_categorical_crossentropy")
    before = [w.copy() for w in m.get_weights()]
    with pytest.raises(ValueError, match=r"class_weight and sample_weight"):
        m.train_on_batch(X, np.zeros(10, "int64"), sample_weight=np.ones(10), class_weight={0: 2.0})
    with pytest.raises(ValueError, match=r"class_weight keys"):
        m.train_on_batch(X, np.zeros(10, "int64"), class_weight={-1: 2.0})
    for a, b in zip(m.get_weights(), before, strict=True):
        np.testing.assert_array_equal(a, b)


def test_failed_step_leaves_weights_slots_and_counters_unchanged() -> None:
    m = compiled(3, loss="sparse_categorical_crossentropy", optimizer=optimizers.Adam(0.01))
    good_y = np.zeros(10, "int64")
    m.fit(X + 1, good_y, batch_size=5, epochs=1, verbose=0)
    before = [w.copy() for w in m.get_weights()]
    slots_before = [v.numpy().copy() for v in m.optimizer.variables]
    counter = int(m._train_counter.numpy())
    bad_y = np.full(10, 7, "int64")  # class 7 of 3: the loss op fails inside the step
    with pytest.raises((tf.errors.InvalidArgumentError, ValueError)):
        m.train_on_batch(X + 1, bad_y)
    for a, b in zip(m.get_weights(), before, strict=True):
        np.testing.assert_array_equal(a, b)
    for a, b in zip([v.numpy() for v in m.optimizer.variables], slots_before, strict=True):
        np.testing.assert_array_equal(a, b)
    assert int(m._train_counter.numpy()) == counter
    m.fit(X + 1, good_y, batch_size=5, epochs=1, verbose=0)  # and the model still trains


def test_class_weight_with_a_weighted_dataset_is_refused_under_keras() -> None:
    dataset = tf.data.Dataset.from_tensor_slices((X, np.zeros(10, "int64"), np.ones(10, "float32"))).batch(5)
    with pytest.raises(ValueError, match=r"cannot `class_weight` and `sample_weight` at the same time"):
        compiled(3, loss="sparse_categorical_crossentropy").fit(dataset, class_weight={0: 1.0, 1: 1.0, 2: 1.0},
                                                                 verbose=0)


def test_loss_names_are_case_sensitive_under_keras_and_none_needs_a_model_loss() -> None:
    with pytest.raises(ValueError, match=r"loss: unknown name 'Mae'"):
        compiled(loss="Mae")
    huber = compiled(loss="huber")  # any name Keras 3 knows
    assert huber.fit(X, Y, verbose=0).history["loss"]
    with pytest.raises(ValueError, match=r"No loss to compute. Provide a `loss` argument in `compile\(\)`"):
        compiled(loss=None).train_step_traced(X, Y)


def test_callable_loss_is_wrapped() -> None:
    def half_squares(y_true, y_pred):
        return 0.5 * tf.reduce_mean(tf.square(y_true - y_pred), axis=-1)

    m = compiled(loss=half_squares)
    expected = 0.5 * np.mean((Y - m.predict(X + 1, verbose=0)) ** 2)
    trace = m.train_step_traced(X + 1, Y)
    assert trace.loss == pytest.approx(expected, rel=1e-5)
