"""semantics="tfnet" vs "keras": the training loss (TF.NET Engine/LossesContainer.cs, Model.Compile.cs, Losses/Loss.cs,
Utils/losses_utils.cs).

tfnet numbers are checked against the NumPy reference of TensorFlow.NET's formulas, keras numbers against Keras 3.
"""

from __future__ import annotations

from typing import Any

import keras
import numpy as np
import pytest
from test_semantics_reference import (
    N_IN,
    N_OUT,
    LinearNet,
    SGDRef,
    assert_history_matches,
    assert_weights_match,
    data,
    differs,
    per_sample_loss,
    tfnet_fit,
    tfnet_weighted_loss,
    trio,
    weights,
)

import tfnet_train
from tfnet_train import optimizers
from tfnet_train.tolerances import ATOL, RTOL, assert_close

LR, EPOCHS, BATCH = 0.05, 2, 4
FIT = dict(batch_size=BATCH, epochs=EPOCHS, verbose=0, shuffle=False)


def keras_side(t: Any, loss: Any, x: np.ndarray, y: np.ndarray, **fit: Any) -> dict[str, list[float]]:
    """Keras 3 and the keras profile, same loss and SGD(LR): equal history and weights; returns the history."""
    t.reference.compile(optimizer=keras.optimizers.SGD(LR), loss=loss, run_eagerly=True)
    t.keras_profile.compile(optimizer=optimizers.SGD(LR), loss=loss, semantics="keras", run_eagerly=True)
    expected = t.reference.fit(x, y, **{**FIT, **fit}).history
    got = t.keras_profile.fit(x, y, **{**FIT, **fit}).history
    assert_history_matches(got, expected)
    assert_weights_match(t.keras_profile.get_weights(), t.reference.get_weights())
    return got


def tfnet_side(t: Any, loss: Any, x: np.ndarray, y: np.ndarray, kind: str = "mse", run_eagerly: bool = True,
               **fit: Any) -> dict[str, list[float]]:
    """The tfnet profile with SGD(LR) against the reference computing TF.NET's ``kind`` loss; returns the history."""
    model = t.tfnet_profile
    model.compile(optimizer=optimizers.SGD(LR), loss=loss, semantics="tfnet", run_eagerly=run_eagerly)
    history = model.fit(x, y, **{**FIT, **fit}).history
    net = LinearNet.of(t.initial)
    records = tfnet_fit(net, SGDRef(LR), x, y, BATCH, fit.get("epochs", EPOCHS), kind=kind,
                        sample_weight=fit.get("sample_weight"))
    assert_history_matches(history, {"loss": [r.loss for r in records]})
    assert_weights_match(model.get_weights(), net.weights())
    return history


@pytest.mark.parametrize("source", ["kernel_regularizer", "add_loss"])
def test_regularization_and_add_loss_are_not_in_the_training_loss(source: str) -> None:
    """LossesContainer.Call adds no regularization or add_loss terms: tfnet trains on the compiled loss alone."""

    def layers() -> list:
        if source == "kernel_regularizer":
            return [keras.Input((N_IN,)), keras.layers.Dense(N_OUT, kernel_regularizer=keras.regularizers.L2(0.5))]
        return [keras.Input((N_IN,)), keras.layers.Dense(N_OUT), keras.layers.ActivityRegularization(l2=0.5)]

    x, y = data(seed=10)
    t = trio(layers)
    ours = tfnet_side(t, "mse", x, y)
    theirs = keras_side(t, "mse", x, y)
    assert all(k > o for k, o in zip(theirs["loss"], ours["loss"], strict=True))  # Keras 3 adds the penalty


@pytest.mark.parametrize(
    ("name", "tfnet_kind"),
    [("mse", "mse"), ("mae", "mae"), ("huber", "mse"), ("mean_absolute_error", "mse"), ("MAE", "mse")],
)
def test_loss_strings_other_than_mse_and_mae_give_mse(name: str, tfnet_kind: str) -> None:
    """TF.NET's string compile knows exactly "mse" and "mae" (case-sensitive); every other string is MSE.
    Under keras each name is the Keras 3 loss of that name."""
    x, y = data(seed=11)
    t = trio()
    tfnet_side(t, name, x, y, kind=tfnet_kind)
    keras_side(t, name, x, y)
    if tfnet_kind == "mse" and name not in ("mse",):
        assert differs(t.tfnet_profile.get_weights(), t.keras_profile.get_weights())


def test_loss_none_gives_mse() -> None:
    """compile(loss=None): TF.NET uses MeanSquaredError; Keras 3 (and the keras profile) have no loss to compute."""
    x, y = data(seed=12)
    t = trio()
    tfnet_side(t, None, x, y, kind="mse")
    t.reference.compile(optimizer=keras.optimizers.SGD(LR), loss=None)
    with pytest.raises(ValueError):
        t.reference.fit(x, y, **FIT)
    t.keras_profile.compile(optimizer=optimizers.SGD(LR), loss=None, semantics="keras")
    with pytest.raises(ValueError, match="loss"):
        t.keras_profile.fit(x, y, **FIT)


@pytest.mark.parametrize("run_eagerly", [True, False], ids=["eager", "compiled"])
@pytest.mark.parametrize("target_rank", [1, 2])
def test_sample_weights_scale_each_batch_loss_by_their_mean(target_rank: int, run_eagerly: bool) -> None:
    """Expand1d makes the weights (B, 1); times per-sample losses (B,) that is (B, B), so a batch's weighted loss
    is mean(w) * mean(loss) instead of Keras's sum(w * loss) / B."""
    n_out = 1 if target_rank == 1 else N_OUT
    x, y = data(n=6, n_out=n_out, seed=13)
    if target_rank == 1:
        y = y[:, 0]
    sw = weights(6)
    t = trio(lambda: [keras.Input((N_IN,)), keras.layers.Dense(n_out)])

    # the closed form, checked on the reference's literal (B, 1) * (B,) broadcast
    losses = per_sample_loss(LinearNet.of(t.initial).predict(x[:BATCH]), y[:BATCH].reshape(BATCH, -1))
    assert_close(tfnet_weighted_loss(losses, sw[:BATCH])[0], np.mean(sw[:BATCH]) * np.mean(losses))
    assert not np.isclose(np.mean(sw[:BATCH]) * np.mean(losses), np.sum(sw[:BATCH] * losses) / BATCH)

    tfnet_side(t, "mse", x, y, sample_weight=sw, run_eagerly=run_eagerly)
    keras_side(t, "mse", x, y, sample_weight=sw)
    assert differs(t.tfnet_profile.get_weights(), t.keras_profile.get_weights())


def test_loss_metric_is_a_batch_size_weighted_mean() -> None:
    """The 'loss' metric is a Mean updated with sample_weight = batch size (as in Keras 3): with batches of 4 and 2
    rows the epoch loss is (4 * l1 + 2 * l2) / 6, not (l1 + l2) / 2."""
    x, y = data(n=6, seed=14)
    t = trio()
    history = tfnet_side(t, "mse", x, y, epochs=1)
    net, sgd = LinearNet.of(t.initial), SGDRef(LR)
    batch_losses = []
    for start, end in ((0, 4), (4, 6)):
        loss, grads = net.loss_and_gradients(x[start:end], y[start:end])
        sgd.apply(net.weights(), grads)
        batch_losses.append(loss)
    assert_close(history["loss"], [(4 * batch_losses[0] + 2 * batch_losses[1]) / 6])
    assert not np.isclose(history["loss"][0], np.mean(batch_losses))
    keras_side(t, "mse", x, y, epochs=1)


@pytest.mark.parametrize("from_logits", [False, True], ids=["probabilities", "logits"])
def test_categorical_crossentropy_broadcasts_class_ids(from_logits: bool) -> None:
    """CategoricalCrossentropy on class ids of shape (B, 1) (TensorFlow.NET's Rnn.Test fits a softmax that way): TF.NET
    broadcasts the ids over the classes, -id * sum(log p); Keras 3 refuses the shapes."""
    rng = np.random.default_rng(21)
    x = rng.random((8, 4), dtype=np.float32)
    y = rng.integers(0, 3, (8, 1)).astype(np.float32)
    activation = None if from_logits else "softmax"
    make = lambda: tfnet_train.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation=activation)])  # noqa: E731
    tfnet, keras_profile = make(), make()
    keras_profile.set_weights(tfnet.get_weights())
    w = [v.copy() for v in tfnet.get_weights()]
    loss = keras.losses.CategoricalCrossentropy(from_logits=from_logits)
    tfnet.compile(optimizers.SGD(LR), loss, semantics="tfnet")
    history = tfnet.fit(x, y, batch_size=8, epochs=1, verbose=0, shuffle=False).history
    logits = x @ w[0] + w[1]
    if from_logits:
        log_p = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    else:
        p = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
        log_p = np.log(np.clip(p / p.sum(-1, keepdims=True), 1e-7, 1 - 1e-7))
    expected = np.mean(-(y * log_p).sum(-1))
    assert_close(np.float32(history["loss"][0]), np.float32(expected))
    keras_profile.compile(optimizers.SGD(LR), keras.losses.CategoricalCrossentropy(from_logits=from_logits),
                          semantics="keras")
    with pytest.raises(ValueError, match="shape"):
        keras_profile.fit(x, y, batch_size=8, epochs=1, verbose=0, shuffle=False)


def test_sigmoid_focal_crossentropy_takes_logs_as_tfnet_takes_them() -> None:
    """Row 27: TF.NET's SigmoidFocalCrossEntropy (TF Addons' loss) weighs its backend's binary cross-entropy, which
    takes log(output + epsilon) (BackendImpl.cs); the keras profile is Keras 3's BinaryFocalCrossentropy with class
    balancing. TF.NET's LossesTest expects these float32 values exactly."""
    from tfnet_train.bridge.specs import build_loss

    y_true = np.array([[1.0], [1.0], [0.0]], np.float32)
    y_pred = np.array([[0.97], [0.91], [0.03]], np.float32)
    tfnet = np.asarray(build_loss("SigmoidFocalCrossEntropy", {"semantics": "tfnet"})(y_true, y_pred))
    np.testing.assert_array_equal(tfnet, np.array([6.8532745e-06, 1.909787e-04, 2.0559824e-05], np.float32))
    f32, eps = np.float32, np.float32(keras.config.epsilon())
    output = np.clip(y_pred, eps, f32(1) - eps)
    ce = -(y_true * np.log(output + eps) + (f32(1) - y_true) * np.log(f32(1) - output + eps))
    p_t = y_true * y_pred + (f32(1) - y_true) * (f32(1) - y_pred)
    alpha = y_true * f32(0.25) + (f32(1) - y_true) * f32(0.75)
    np.testing.assert_allclose(tfnet, (alpha * (f32(1) - p_t) ** 2 * ce).sum(-1), rtol=RTOL, atol=ATOL)
    keras_side = np.asarray(build_loss("SigmoidFocalCrossEntropy", {"semantics": "keras", "reduction": "none"})(
        y_true, y_pred))
    expected = keras.losses.BinaryFocalCrossentropy(apply_class_balancing=True, reduction="none")(y_true, y_pred)
    np.testing.assert_array_equal(keras_side, np.asarray(expected))
    assert not np.array_equal(keras_side, tfnet)  # Keras 3 gives 6.8533022e-06 for the first
