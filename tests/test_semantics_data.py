"""semantics="tfnet" vs "keras": data, validation and class weights (TF.NET Engine/Model.Fit.cs, Model.Evaluate.cs,
Engine/DataAdapters/DataAdapter.cs, DataHandler.cs, TensorLikeDataAdapter.cs).

tfnet numbers are checked against the NumPy reference of TensorFlow.NET's formulas, keras numbers against Keras 3.
"""

from __future__ import annotations

from typing import Any

import keras
import numpy as np
import pytest
import tensorflow as tf
from test_semantics_reference import (
    N_IN,
    LinearNet,
    SGDRef,
    Trio,
    assert_history_matches,
    assert_weights_match,
    data,
    differs,
    tfnet_epoch,
    tfnet_evaluate,
    trio,
    weights,
)

from tfnet_train import callbacks, optimizers

LR = 0.05


def compile_all(t: Trio) -> None:
    t.reference.compile(optimizer=keras.optimizers.SGD(LR), loss="mse", run_eagerly=True)
    t.keras_profile.compile(optimizer=optimizers.SGD(LR), loss="mse", semantics="keras", run_eagerly=True)
    t.tfnet_profile.compile(optimizer=optimizers.SGD(LR), loss="mse", semantics="tfnet", run_eagerly=True)


def keras_side(t: Trio, *args: Any, **fit: Any) -> dict[str, list[float]]:
    """Keras 3 and the keras profile on the same fit arguments: equal history and weights."""
    expected = t.reference.fit(*args, verbose=0, shuffle=False, **fit).history
    got = t.keras_profile.fit(*args, verbose=0, shuffle=False, **fit).history
    assert_history_matches(got, expected)
    assert_weights_match(t.keras_profile.get_weights(), t.reference.get_weights())
    return got


@pytest.mark.parametrize(
    ("n", "split", "tfnet_rows", "keras_rows"),
    [(10, 0.25, 8, 7), (6, 0.25, 4, 4), (25, 0.78, 6, 5), (25, 0.54, 11, 11)],
)
def test_validation_split_trains_on_round_half_even_rows(n: int, split: float, tfnet_rows: int,
                                                         keras_rows: int) -> None:
    """TF.NET trains on the first Convert.ToInt32(N * (1 - split)) rows: a float32 product rounded half to even
    (10 * 0.75 = 7.5 -> 8; 6 * 0.75 = 4.5 -> 4; 25 * 0.46 is 11.499999 in float32 -> 11). Keras 3 takes the floor."""
    assert tfnet_rows == round(float(np.float32(n) * (np.float32(1) - np.float32(split))))
    assert keras_rows == int(np.floor(n * (1 - split)))
    x, y = data(n=n, seed=30)
    t = trio()
    compile_all(t)
    history = t.tfnet_profile.fit(x, y, batch_size=32, epochs=2, validation_split=split, verbose=0,
                                  shuffle=False).history
    net, sgd = LinearNet.of(t.initial), SGDRef(LR)
    expected: dict[str, list[float]] = {"loss": [], "val_loss": []}
    for _ in range(2):
        expected["loss"].append(tfnet_epoch(net, sgd, x[:tfnet_rows], y[:tfnet_rows], 32).loss)
        expected["val_loss"].append(tfnet_evaluate(net, x[tfnet_rows:], y[tfnet_rows:]))
    assert_history_matches(history, expected)
    assert_weights_match(t.tfnet_profile.get_weights(), net.weights())
    keras_side(t, x, y, batch_size=32, epochs=2, validation_split=split)
    if tfnet_rows != keras_rows:
        assert differs(t.tfnet_profile.get_weights(), t.keras_profile.get_weights())


def test_array_validation_runs_every_epoch_with_batch_size_32() -> None:
    """With arrays TF.NET validates after every epoch (there is no validation_freq) and evaluate uses its default
    batch size 32, whatever fit's batch size. Batching matters for the val loss because of the sample-weight
    broadcast (each batch's loss is mean(w) * mean(loss))."""
    x, y = data(n=8, seed=31)
    xv, yv = data(n=40, seed=32)
    swv = weights(40, seed=33)
    t = trio()
    compile_all(t)
    fit = dict(batch_size=4, epochs=3, validation_data=(xv, yv, swv), validation_freq=2)
    history = t.tfnet_profile.fit(x, y, verbose=0, shuffle=False, **fit).history
    net, sgd = LinearNet.of(t.initial), SGDRef(LR)
    expected: dict[str, list[float]] = {"loss": [], "val_loss": []}
    for _ in range(3):
        expected["loss"].append(tfnet_epoch(net, sgd, x, y, 4).loss)
        expected["val_loss"].append(tfnet_evaluate(net, xv, yv, swv, batch_size=32))
    assert_history_matches(history, expected)
    assert not np.isclose(expected["val_loss"][-1], tfnet_evaluate(net, xv, yv, swv, batch_size=4))
    got = keras_side(t, x, y, **fit)
    assert len(got["val_loss"]) == 1  # Keras 3 validates at epoch index 1 only


def datasets(n: int = 6, n_val: int = 5) -> tuple[tf.data.Dataset, tf.data.Dataset, tuple[np.ndarray, ...]]:
    x, y = data(n=n, seed=34)
    xv, yv = data(n=n_val, seed=35)
    train = tf.data.Dataset.from_tensor_slices((x, y)).batch(4)
    val = tf.data.Dataset.from_tensor_slices((xv, yv)).batch(32)
    return train, val, (x, y, xv, yv)


def test_dataset_validation_runs_only_at_multiples_of_validation_step() -> None:
    """Dataset path: `if (validation_step > 0 && epoch == 0 || epoch % validation_step != 0) continue;` validates
    at 0-based epochs 3, 6 (never 0) for validation_step=3, and the `continue` skips on_epoch_end for every other
    epoch, so History records only those epochs. Keras 3 validates and records every epoch."""
    train, val, (x, y, xv, yv) = datasets()
    t = trio()
    compile_all(t)
    seen: list[int] = []
    record = callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: seen.append(epoch))
    history = t.tfnet_profile.fit(train, epochs=7, validation_data=val, validation_step=3, verbose=0,
                                  callbacks=[record])
    net, sgd = LinearNet.of(t.initial), SGDRef(LR)
    expected: dict[str, list[float]] = {"loss": [], "val_loss": []}
    for epoch in range(7):
        loss = tfnet_epoch(net, sgd, x, y, 4).loss
        if epoch in (3, 6):
            expected["loss"].append(loss)
            expected["val_loss"].append(tfnet_evaluate(net, xv, yv))
    assert seen == [3, 6] and history.epoch == [3, 6]
    assert_history_matches(history.history, expected)
    assert_weights_match(t.tfnet_profile.get_weights(), net.weights())  # all 7 epochs trained
    got = keras_side(t, train, epochs=7, validation_data=val)
    assert len(got["val_loss"]) == 7 and t.keras_profile.history.epoch == list(range(7))


def test_early_stopping_sees_only_validated_epochs() -> None:
    """EarlyStopping(patience=0, min_delta huge) stops at the second epoch it sees: epoch 6 under tfnet (it sees 3
    and 6 only), epoch 1 under keras as in Keras 3."""
    train, val, (x, y, _, _) = datasets()
    t = trio()
    compile_all(t)
    stop = callbacks.EarlyStopping(monitor="val_loss", min_delta=1e9, patience=0)
    history = t.tfnet_profile.fit(train, epochs=10, validation_data=val, validation_step=3, verbose=0,
                                  callbacks=[stop])
    assert (stop.stopped_epoch, history.epoch) == (6, [3, 6])
    net, sgd = LinearNet.of(t.initial), SGDRef(LR)
    for _ in range(7):
        tfnet_epoch(net, sgd, x, y, 4)
    assert_weights_match(t.tfnet_profile.get_weights(), net.weights())  # stopped after epoch 6
    reference_stop = keras.callbacks.EarlyStopping(monitor="val_loss", min_delta=1e9, patience=0)
    expected = t.reference.fit(train, epochs=10, validation_data=val, verbose=0, shuffle=False,
                               callbacks=[reference_stop])
    ours_stop = callbacks.EarlyStopping(monitor="val_loss", min_delta=1e9, patience=0)
    got = t.keras_profile.fit(train, epochs=10, validation_data=val, verbose=0, callbacks=[ours_stop])
    assert ours_stop.stopped_epoch == reference_stop.stopped_epoch == 1
    assert_history_matches(got.history, expected.history)


def test_a_stop_in_an_epoch_without_validation_ends_the_fit() -> None:
    """A callback that stops training during an epoch the dataset path does not validate (so on_epoch_end is
    skipped) ends the fit after that epoch, as every stop does; it is not carried to the next validated epoch."""
    train, val, _ = datasets()
    t = trio()
    compile_all(t)
    begun: list[int] = []

    class StopAtFirstBatch(keras.callbacks.Callback):
        def on_epoch_begin(self, epoch: int, logs: Any = None) -> None:
            begun.append(epoch)

        def on_train_batch_end(self, batch: int, logs: Any = None) -> None:
            self.model.stop_training = True

    history = t.tfnet_profile.fit(train, epochs=7, validation_data=val, validation_step=3, verbose=0,
                                  callbacks=[StopAtFirstBatch()])
    assert begun == [0] and history.epoch == []


@pytest.mark.parametrize("step", [0, -3])
def test_validation_step_below_one_is_an_error(step: int) -> None:
    """validation_step=0 makes TF.NET divide by zero after epoch 0 (a negative one validates at epoch 0): tfnet
    raises ValueError before training. The keras profile ignores validation_step, as Keras 3 has none."""
    train, val, _ = datasets()
    t = trio()
    compile_all(t)
    with pytest.raises(ValueError, match=f"validation_step must be an integer >= 1.*got {step}"):
        t.tfnet_profile.fit(train, epochs=2, validation_data=val, validation_step=step, verbose=0)
    assert_weights_match(t.tfnet_profile.get_weights(), t.initial)
    expected = t.reference.fit(train, epochs=2, validation_data=val, verbose=0, shuffle=False).history
    got = t.keras_profile.fit(train, epochs=2, validation_data=val, validation_step=step, verbose=0).history
    assert_history_matches(got, expected)


CLASS_WEIGHT = {0: 0.5, 1: 2.0}


def labelled(n: int = 6) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """x, 0/1 labels of shape (n, 1), fit-level sample weights, and each row's class weight."""
    x, _ = data(n=n, seed=36)
    y = np.array([[0], [1], [1], [0], [1], [0]][:n], dtype="float32")
    class_weights = np.array([CLASS_WEIGHT[int(v)] for v in y[:, 0]])
    return x, y, weights(n, seed=37), class_weights


def one_output_trio() -> Trio:
    t = trio(lambda: [keras.Input((N_IN,)), keras.layers.Dense(1)])
    compile_all(t)
    return t


@pytest.mark.parametrize("batch_size", [1, 8])
def test_class_weight_with_sample_weight_multiplies_the_fit_level_array(batch_size: int) -> None:
    """TF.NET's class-weight map multiplies each batch's class weights by the WHOLE fit-level sample_weight array:
    with one-row batches every step's weights are cw_row * sw (all N values), so the loss is cw_row * mean(sw) *
    loss_row; with one batch of all rows it is the element-wise product. Keras 3 refuses the combination."""
    x, y, sw, cw = labelled()
    t = one_output_trio()
    history = t.tfnet_profile.fit(x, y, batch_size=batch_size, epochs=2, sample_weight=sw,
                                  class_weight=CLASS_WEIGHT, verbose=0, shuffle=False).history
    net, sgd = LinearNet.of(t.initial), SGDRef(LR)
    losses = [tfnet_epoch(net, sgd, x, y, batch_size, batch_weights=lambda s, e: cw[s:e] * sw).loss
              for _ in range(2)]
    assert_history_matches(history, {"loss": losses})
    assert_weights_match(t.tfnet_profile.get_weights(), net.weights())
    if batch_size == 1:  # not the row's own cw * sw
        aligned = tfnet_epoch(LinearNet.of(t.initial), SGDRef(LR), x, y, 1, sample_weight=cw * sw).loss
        assert not np.isclose(history["loss"][0], aligned)
    with pytest.raises(ValueError, match="class_weight"):
        t.reference.fit(x, y, batch_size=batch_size, sample_weight=sw, class_weight=CLASS_WEIGHT, verbose=0)
    with pytest.raises(ValueError, match="class_weight"):
        t.keras_profile.fit(x, y, batch_size=batch_size, sample_weight=sw, class_weight=CLASS_WEIGHT, verbose=0)


def test_class_weight_alone_goes_through_the_sample_weight_broadcast() -> None:
    """Without sample_weight each batch's weights are its rows' class weights, expanded to (B, 1) like any sample
    weights: the batch loss is mean(cw_batch) * mean(loss). Keras 3 computes sum(cw * loss) / B."""
    x, y, _, cw = labelled()
    t = one_output_trio()
    history = t.tfnet_profile.fit(x, y, batch_size=4, epochs=2, class_weight=CLASS_WEIGHT, verbose=0,
                                  shuffle=False).history
    net, sgd = LinearNet.of(t.initial), SGDRef(LR)
    losses = [tfnet_epoch(net, sgd, x, y, 4, sample_weight=cw).loss for _ in range(2)]
    assert_history_matches(history, {"loss": losses})
    assert_weights_match(t.tfnet_profile.get_weights(), net.weights())
    keras_side(t, x, y, batch_size=4, epochs=2, class_weight=CLASS_WEIGHT)
    assert differs(t.tfnet_profile.get_weights(), t.keras_profile.get_weights())


def test_class_weight_with_sample_weight_and_other_batch_sizes_is_an_error() -> None:
    """Batches of neither 1 nor N rows cannot be multiplied by the N fit-level weights (TF.NET fails inside
    TensorFlow at the first step): tfnet raises ValueError naming batch_size before training."""
    x, y, sw, _ = labelled()
    t = one_output_trio()
    with pytest.raises(ValueError, match="batch_size 1 or >= the 6 samples, got batch_size=4"):
        t.tfnet_profile.fit(x, y, batch_size=4, sample_weight=sw, class_weight=CLASS_WEIGHT, verbose=0)
    assert_weights_match(t.tfnet_profile.get_weights(), t.initial)
    with pytest.raises(ValueError, match="class_weight"):
        t.reference.fit(x, y, batch_size=4, sample_weight=sw, class_weight=CLASS_WEIGHT, verbose=0)


def test_class_weight_on_a_dataset_replaces_its_sample_weights() -> None:
    """Dataset path: the fit-level sample_weight is null there, so TF.NET's map returns (x, y, class weights) and
    the dataset's own weights are dropped. (Keras 3 refuses class_weight with weighted datasets.)"""
    x, y, sw, cw = labelled()
    dataset = tf.data.Dataset.from_tensor_slices((x, y, sw)).batch(4)
    t = one_output_trio()
    history = t.tfnet_profile.fit(dataset, epochs=2, class_weight=CLASS_WEIGHT, verbose=0).history
    net, sgd = LinearNet.of(t.initial), SGDRef(LR)
    losses = [tfnet_epoch(net, sgd, x, y, 4, sample_weight=cw).loss for _ in range(2)]
    assert_history_matches(history, {"loss": losses})
    with pytest.raises(ValueError, match="class_weight"):
        t.reference.fit(dataset, epochs=1, class_weight=CLASS_WEIGHT, verbose=0, shuffle=False)


def _flatten_first(kind: str, reader: str = "flatten") -> keras.Model:
    from tfnet_train import Model, Sequential

    first = keras.layers.Flatten() if reader == "flatten" else keras.layers.Conv2D(2, 3)
    if kind == "sequential":
        return Sequential([keras.layers.InputLayer((4, 4, 1)), first, keras.layers.Flatten(), keras.layers.Dense(3)])
    inputs = keras.Input((4, 4, 1))
    return Model(inputs, keras.layers.Dense(3)(keras.layers.Flatten()(first(inputs))))


@pytest.mark.parametrize("kind", ["functional", "sequential"])
def test_arrays_of_another_rank_feed_an_input_only_flatten_reads(kind: str) -> None:
    """TF.NET's ModelSaveTest fits (N, 784) arrays to Input((28, 28, 1)) + Flatten: its Functional.Call feeds them
    to the layers unchecked, and Flatten gives the same rows as from (N, 28, 28, 1). tfnet reshapes such arrays (the
    same numbers as the 4-d arrays); keras refuses them as Keras 3 does."""
    rng = np.random.default_rng(26)
    flat, y = rng.normal(size=(12, 16)).astype("float32"), rng.integers(0, 3, 12)
    runs = []
    for x in (flat, flat.reshape(12, 4, 4, 1)):
        keras.utils.set_random_seed(26)
        model = _flatten_first(kind)
        model.compile(optimizer=optimizers.SGD(LR), loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["acc"], semantics="tfnet")
        history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, validation_data=(x, y), verbose=0).history
        runs.append((history, model.get_weights(), model.predict(x, verbose=0), model.evaluate(x, y, verbose=0),
                     model.train_on_batch(x[:4], y[:4])))
    (history, weights_flat, predicted, evaluated, step), expected = runs
    assert history == expected[0] and predicted.shape == (12, 3)
    for a, b in zip(weights_flat, expected[1], strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(predicted, expected[2])
    assert evaluated == expected[3] and step == expected[4]
    model.compile(optimizer=optimizers.SGD(LR), loss="mse", semantics="keras")
    with pytest.raises(ValueError, match=r"x has shape \(12, 16\) \(rank 2\); the model expects rank 4"):
        model.fit(flat, y, verbose=0)


def test_arrays_of_another_rank_are_refused_where_a_layer_other_than_flatten_reads_the_input() -> None:
    model = _flatten_first("functional", reader="conv")
    model.compile(optimizer=optimizers.SGD(LR), loss="mse", semantics="tfnet")
    flat = np.zeros((4, 16), "float32")
    with pytest.raises(ValueError, match=r"x has shape \(4, 16\) \(rank 2\); the model expects rank 4"):
        model.predict(flat, verbose=0)
    with pytest.raises(ValueError, match=r"rank 2\); the model expects rank 4"):
        model.predict(np.zeros((4, 15), "float32"), verbose=0)
