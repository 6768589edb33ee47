"""Losses in float32 NumPy with their analytic gradients, as Keras 3 computes them on TensorFlow.

Cross-entropies on probabilities clip to ``[epsilon, 1 - epsilon]`` (epsilon = 1e-7). Keras 3 remembers the
pre-activation of a ``sigmoid``/``softmax`` output and its cross-entropies use those logits instead of the
probabilities (``_keras_logits``), so when the last layer's activation is one of those two the loss here
is computed from the last pre-activation with the logits formula, whatever ``from_logits`` says.

Reduction is ``sum_over_batch_size``. Under ``tfnet`` semantics sample weights of shape (B, 1) multiply
per-sample losses of shape (B,) with broadcasting, a (B, B) product, as TensorFlow.NET's
``compute_weighted_loss`` does after ``expand_1d``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tfnet_train.conformance import f32 as F
from tfnet_train.conformance.case import LossSpec
from tfnet_train.conformance.numpy_network import ForwardPass
from tfnet_train.semantics import get_profile

EPSILON = 1e-7
CROSSENTROPIES = ("binary_crossentropy", "categorical_crossentropy", "sparse_categorical_crossentropy")
Backward = Callable[[np.ndarray], np.ndarray]


@dataclass
class LossResult:
    """The reduced loss and its gradient w.r.t. the model output (or the last pre-activation)."""

    value: np.float32
    grad: np.ndarray
    wrt_logits: bool


def _per_element(g: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Gradient of a mean over the last axis, spread to each element (TensorFlow's Mean gradient)."""
    return F.div(np.broadcast_to(g[:, None], shape), shape[-1])


def _clip_bounds() -> tuple[np.float32, np.float32]:
    return F.c32(EPSILON), F.c32(1.0 - EPSILON)


def _clip_mask(p: np.ndarray) -> np.ndarray:
    lo, hi = _clip_bounds()
    return (p >= lo) & (p <= hi)


def mse(yt: np.ndarray, yp: np.ndarray) -> tuple[np.ndarray, Backward]:
    diff = F.sub(yt, yp)
    values = F.mean(F.square(diff), axis=-1)

    def backward(g: np.ndarray) -> np.ndarray:
        return F.neg(F.mul(_per_element(g, diff.shape), F.mul(diff, 2)))

    return values, backward


def mae(yt: np.ndarray, yp: np.ndarray) -> tuple[np.ndarray, Backward]:
    diff = F.sub(yt, yp)
    values = F.mean(F.abs_(diff), axis=-1)

    def backward(g: np.ndarray) -> np.ndarray:
        return F.neg(F.mul(_per_element(g, diff.shape), F.sign(diff)))

    return values, backward


def bce_probabilities(yt: np.ndarray, yp: np.ndarray) -> tuple[np.ndarray, Backward]:
    lo, hi = _clip_bounds()
    o = F.clip(yp, lo, hi)
    one_minus_o = F.sub(1, o)
    one_minus_t = F.sub(1, yt)
    bce = F.add(F.mul(yt, F.log(o)), F.mul(one_minus_t, F.log(one_minus_o)))
    values = F.mean(F.neg(bce), axis=-1)

    def backward(g: np.ndarray) -> np.ndarray:
        g_bce = F.neg(_per_element(g, yp.shape))
        g_o = F.add(F.mul(F.mul(g_bce, yt), F.reciprocal(o)),
                    F.neg(F.mul(F.mul(g_bce, one_minus_t), F.reciprocal(one_minus_o))))
        return F.f32(np.where(_clip_mask(yp), g_o, 0))

    return values, backward


def bce_logits(yt: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, Backward]:
    """relu(x) - x*t + log1p(exp(-|x|)), TensorFlow's sigmoid_cross_entropy_with_logits."""
    cond = x >= 0
    relu_x = F.f32(np.where(cond, x, 0))
    neg_abs = F.f32(np.where(cond, -x, x))
    e = F.exp(neg_abs)
    values = F.mean(F.add(F.sub(relu_x, F.mul(x, yt)), F.log1p(e)), axis=-1)

    def backward(g: np.ndarray) -> np.ndarray:
        ge = _per_element(g, x.shape)
        g_neg_abs = F.mul(F.mul(ge, F.reciprocal(F.add(1, e))), e)
        from_relu = F.f32(np.where(cond, ge, 0))
        from_product = F.mul(F.neg(ge), yt)
        from_abs = F.f32(np.where(cond, F.neg(g_neg_abs), g_neg_abs))
        return F.add(F.add(from_relu, from_product), from_abs)

    return values, backward


def _softmax_xent(labels: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-sample loss and (softmax - labels), as TensorFlow's fused kernel computes them."""
    shifted = F.sub(x, F.amax(x))
    e = F.exp(shifted)
    s = F.sum_(e, axis=-1, keepdims=True)
    values = F.sum_(F.mul(labels, F.sub(F.log(s), shifted)), axis=-1)
    return values, F.sub(F.div(e, s), labels)


def cce_logits(yt: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, Backward]:
    values, softmax_minus_labels = _softmax_xent(yt, x)
    return values, lambda g: F.mul(g[:, None], softmax_minus_labels)


def _one_hot(labels: np.ndarray, classes: int) -> np.ndarray:
    flat = labels.reshape(-1).astype(np.int64)
    out = np.zeros((flat.size, classes), dtype=np.float32)
    out[np.arange(flat.size), flat] = 1.0
    return out


def scce_logits(yt: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, Backward]:
    return cce_logits(_one_hot(yt, x.shape[-1]), x)


def cce_probabilities(yt: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, Backward]:
    lo, hi = _clip_bounds()
    s = F.sum_(p, axis=-1, keepdims=True)
    o = F.div(p, s)
    oc = F.clip(o, lo, hi)
    values = F.neg(F.sum_(F.mul(yt, F.log(oc)), axis=-1))

    def backward(g: np.ndarray) -> np.ndarray:
        g_log = F.mul(np.broadcast_to(F.neg(g)[:, None], p.shape), yt)
        g_o = F.f32(np.where(_clip_mask(o), F.mul(g_log, F.reciprocal(oc)), 0))
        g_s = F.sum_(F.mul(g_o, F.div(F.div(F.neg(p), s), s)), axis=-1, keepdims=True)
        return F.add(F.div(g_o, s), g_s)

    return values, backward


def scce_probabilities(yt: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, Backward]:
    lo, hi = _clip_bounds()
    pc = F.clip(p, lo, hi)
    values, logits_backward = scce_logits(yt, F.log(pc))

    def backward(g: np.ndarray) -> np.ndarray:
        return F.f32(np.where(_clip_mask(p), F.mul(logits_backward(g), F.reciprocal(pc)), 0))

    return values, backward


_ON_PROBABILITIES = {"binary_crossentropy": bce_probabilities, "categorical_crossentropy": cce_probabilities,
                     "sparse_categorical_crossentropy": scce_probabilities}
_ON_LOGITS = {"binary_crossentropy": bce_logits, "categorical_crossentropy": cce_logits,
              "sparse_categorical_crossentropy": scce_logits}


def uses_cached_logits(spec: LossSpec, final_activation: str) -> bool:
    """True when Keras 3 feeds the last pre-activation to the cross-entropy (sigmoid/softmax outputs)."""
    return spec.name in CROSSENTROPIES and final_activation in ("sigmoid", "softmax")


def _reduce(values: np.ndarray, sample_weight: np.ndarray | None,
            semantics: str) -> tuple[np.float32, Callable[[], np.ndarray]]:
    """sum_over_batch_size of the weighted per-sample losses; returns the loss and d loss / d values."""
    tfnet = get_profile(semantics).tfnet_losses  # TF.NET's (B,) * (B, 1) weighted loss
    if sample_weight is None:
        weighted = values
    elif tfnet:
        weighted = F.mul(values[None, :], sample_weight.reshape(-1, 1))  # (B,) * (B, 1) -> (B, B)
    else:
        weighted = F.mul(values, sample_weight.reshape(-1))
    count = weighted.size
    loss = F.div_no_nan(F.sum_(weighted), count)
    g_weighted = np.broadcast_to(F.div_no_nan(1.0, count), weighted.shape)

    def d_values() -> np.ndarray:
        if sample_weight is None:
            return F.f32(g_weighted)
        if tfnet:
            return F.sum_(F.mul(g_weighted, sample_weight.reshape(-1, 1)), axis=0)
        return F.mul(g_weighted, sample_weight.reshape(-1))

    return np.float32(loss), d_values


def compute_loss(spec: LossSpec, semantics: str, y_true: np.ndarray, fwd: ForwardPass, final_activation: str,
                 sample_weight: np.ndarray | None) -> LossResult:
    """The step's loss and its gradient. ``y_true`` and ``sample_weight`` come after expand_1d."""
    wrt_logits = uses_cached_logits(spec, final_activation)
    prediction = fwd.logits if wrt_logits else fwd.y_pred
    on_logits = wrt_logits or spec.from_logits
    if spec.name == "sparse_categorical_crossentropy":
        target = y_true.reshape(-1)
    else:
        target = F.f32(y_true).reshape(prediction.shape)
    if spec.name == "mse":
        values, backward = mse(target, prediction)
    elif spec.name == "mae":
        values, backward = mae(target, prediction)
    else:
        table = _ON_LOGITS if on_logits else _ON_PROBABILITIES
        values, backward = table[spec.name](target, prediction)
    loss, d_values = _reduce(values, sample_weight, semantics)
    return LossResult(value=loss, grad=backward(d_values()), wrt_logits=wrt_logits)
