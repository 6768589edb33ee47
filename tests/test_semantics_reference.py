"""Shared pieces of the semantics tests (no tests here).

- Three models with the same initial weights: a Keras 3 ``keras.Sequential`` and two ``tfnet_train.Sequential``
  (one per semantics profile).
- A NumPy reference of what TensorFlow.NET (Keras package 0.15) computes for a linear Dense model: its per-sample
  losses, its weighted loss (``losses * sample_weight`` without squeezing, then sum / element count), its
  optimizer formulas and its batch-size weighted 'loss' metric. Written from TF.NET's source, in float64.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import keras
import numpy as np

import tfnet_train
from tfnet_train.tolerances import allclose, assert_close

N_IN, N_OUT = 3, 2


def data(n: int = 6, n_out: int = N_OUT, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Regression data: x of shape (n, N_IN), y of shape (n, n_out), float32."""
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, N_IN)).astype("float32"), rng.normal(size=(n, n_out)).astype("float32")


def weights(n: int, seed: int = 1) -> np.ndarray:
    """Positive sample weights that are far from uniform."""
    return np.random.default_rng(seed).uniform(0.1, 3.0, size=n).astype("float32")


@dataclass
class Trio:
    """The same network three times: Keras 3, tfnet_train under 'keras', tfnet_train under 'tfnet'."""

    reference: keras.Model
    keras_profile: tfnet_train.Sequential
    tfnet_profile: tfnet_train.Sequential
    initial: list[np.ndarray] = field(default_factory=list)


def trio(layers: Callable[[], list] | None = None, seed: int = 0) -> Trio:
    """Build the three models from ``layers()`` (default: Input(N_IN) -> Dense(N_OUT)) with equal weights."""
    layers = layers or (lambda: [keras.Input((N_IN,)), keras.layers.Dense(N_OUT)])
    keras.utils.set_random_seed(seed)
    reference = keras.Sequential(layers())
    initial = reference.get_weights()
    ours = []
    for _ in range(2):
        model = tfnet_train.Sequential(layers())
        model.set_weights(initial)
        ours.append(model)
    return Trio(reference, ours[0], ours[1], initial)


def assert_history_matches(got: dict[str, list[float]], expected: dict[str, Sequence[float]]) -> None:
    """Same keys, and each list equal within the project's tolerance."""
    assert sorted(got) == sorted(expected), (sorted(got), sorted(expected))
    for key, values in expected.items():
        assert_close(got[key], values, what=f"history[{key!r}]")


def assert_weights_match(got: Sequence[np.ndarray], expected: Sequence[np.ndarray]) -> None:
    assert len(got) == len(expected)
    for i, (a, b) in enumerate(zip(got, expected, strict=True)):
        assert_close(a, b, what=f"weight {i}")


def differs(a: Sequence[Any], b: Sequence[Any]) -> bool:
    """True when some pair of arrays is not close: the two profiles really disagree on this data."""
    return any(not allclose(np.asarray(x, np.float64), np.asarray(y, np.float64)) for x, y in zip(a, b, strict=True))


# ----- NumPy reference of TensorFlow.NET's formulas ------------------------------------------------------------------


def per_sample_loss(pred: np.ndarray, y: np.ndarray, kind: str = "mse") -> np.ndarray:
    """TF.NET's MeanSquaredError / MeanAbsoluteError ``Apply``: mean over the last axis, shape (B,)."""
    diff = pred - y
    return np.mean(diff**2 if kind == "mse" else np.abs(diff), axis=-1)


def _per_sample_loss_grad(pred: np.ndarray, y: np.ndarray, kind: str) -> np.ndarray:
    diff = pred - y
    return (2.0 * diff if kind == "mse" else np.sign(diff)) / pred.shape[-1]


def tfnet_weighted_loss(losses: np.ndarray, sample_weight: np.ndarray | None) -> tuple[float, np.ndarray]:
    """losses_utils.compute_weighted_loss with SUM_OVER_BATCH_SIZE, weights already expanded to (M, 1).

    Returns the loss and d loss / d losses (shape (B,)).
    """
    if sample_weight is None:
        return float(np.mean(losses)), np.full(losses.shape, 1.0 / losses.size)
    column = np.asarray(sample_weight, np.float64).reshape(-1, 1)  # Expand1d: (M,) -> (M, 1)
    weighted = column * losses  # (M, 1) * (B,) broadcasts to (M, B)
    count = weighted.size
    return float(np.sum(weighted) / count), np.full(losses.shape, np.sum(column) / count)


@dataclass
class LinearNet:
    """A Dense layer without activation: ``x @ kernel + bias`` (float64)."""

    kernel: np.ndarray
    bias: np.ndarray

    @classmethod
    def of(cls, initial: Sequence[np.ndarray]) -> LinearNet:
        return cls(np.array(initial[0], np.float64), np.array(initial[1], np.float64))

    def predict(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(x, np.float64) @ self.kernel + self.bias

    def weights(self) -> list[np.ndarray]:
        return [self.kernel, self.bias]

    def loss_and_gradients(
        self, x: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None = None, kind: str = "mse"
    ) -> tuple[float, list[np.ndarray]]:
        """TF.NET's compiled loss of one batch and its gradients for [kernel, bias]."""
        y = _expand_1d(np.asarray(y, np.float64))
        pred = self.predict(x)
        loss, d_losses = tfnet_weighted_loss(per_sample_loss(pred, y, kind), sample_weight)
        d_pred = d_losses[:, None] * _per_sample_loss_grad(pred, y, kind)
        return loss, [np.asarray(x, np.float64).T @ d_pred, d_pred.sum(axis=0)]


def _expand_1d(a: np.ndarray) -> np.ndarray:
    return a.reshape(-1, 1) if a.ndim == 1 else a


class SGDRef:
    """TF.NET SGD: ResourceApplyGradientDescent, or ResourceApplyKerasMomentum without Nesterov."""

    def __init__(self, learning_rate: float, momentum: float = 0.0) -> None:
        self.lr, self.momentum = learning_rate, momentum
        self.accum: list[np.ndarray] | None = None

    def apply(self, params: list[np.ndarray], grads: list[np.ndarray]) -> None:
        if self.momentum == 0:
            for p, g in zip(params, grads, strict=True):
                p -= self.lr * g
            return
        if self.accum is None:
            self.accum = [np.zeros_like(p) for p in params]
        for p, g, a in zip(params, grads, self.accum, strict=True):
            a *= self.momentum
            a -= self.lr * g
            p += a


class RMSpropRef:
    """TF.NET RMSprop: rms = rho*rms + (1-rho)*g^2; w -= lr*g/(sqrt(rms)+eps); no momentum, not centered."""

    def __init__(self, learning_rate: float = 0.001, rho: float = 0.9, epsilon: float = 1e-7) -> None:
        self.lr, self.rho, self.eps = learning_rate, rho, epsilon
        self.rms: list[np.ndarray] | None = None

    def apply(self, params: list[np.ndarray], grads: list[np.ndarray]) -> None:
        if self.rms is None:
            self.rms = [np.zeros_like(p) for p in params]
        for p, g, r in zip(params, grads, self.rms, strict=True):
            r *= self.rho
            r += (1 - self.rho) * g**2
            p -= self.lr * g / (np.sqrt(r) + self.eps)


@dataclass
class EpochRecord:
    """What one reference epoch produced: the 'loss' metric and every batch's (y, predictions before the step)."""

    loss: float
    targets: list[np.ndarray]
    predictions: list[np.ndarray]


def tfnet_epoch(
    net: LinearNet,
    optimizer: Any,
    x: np.ndarray,
    y: np.ndarray,
    batch_size: int,
    sample_weight: np.ndarray | None = None,
    kind: str = "mse",
    batch_weights: Callable[[int, int], np.ndarray] | None = None,
) -> EpochRecord:
    """One unshuffled epoch; the 'loss' metric is the mean of batch losses weighted by batch size.

    ``batch_weights(start, end)`` overrides the per-batch sample weights (default: ``sample_weight[start:end]``).
    """
    losses, sizes, targets, predictions = [], [], [], []
    for start in range(0, len(x), batch_size):
        end = min(start + batch_size, len(x))
        if batch_weights is not None:
            sw = batch_weights(start, end)
        else:
            sw = None if sample_weight is None else sample_weight[start:end]
        targets.append(_expand_1d(np.asarray(y[start:end], np.float64)))
        predictions.append(net.predict(x[start:end]))
        loss, grads = net.loss_and_gradients(x[start:end], y[start:end], sw, kind)
        optimizer.apply(net.weights(), grads)
        losses.append(loss)
        sizes.append(end - start)
    return EpochRecord(float(np.average(losses, weights=sizes)), targets, predictions)


def tfnet_fit(net: LinearNet, optimizer: Any, x: np.ndarray, y: np.ndarray, batch_size: int, epochs: int,
              **kwargs: Any) -> list[EpochRecord]:
    return [tfnet_epoch(net, optimizer, x, y, batch_size, **kwargs) for _ in range(epochs)]


def tfnet_evaluate(net: LinearNet, x: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None = None,
                   batch_size: int = 32, kind: str = "mse") -> float:
    """evaluate(): batch-size weighted mean of TF.NET's batch losses (no update)."""
    losses, sizes = [], []
    for start in range(0, len(x), batch_size):
        end = min(start + batch_size, len(x))
        sw = None if sample_weight is None else sample_weight[start:end]
        losses.append(net.loss_and_gradients(x[start:end], y[start:end], sw, kind)[0])
        sizes.append(end - start)
    return float(np.average(losses, weights=sizes))
