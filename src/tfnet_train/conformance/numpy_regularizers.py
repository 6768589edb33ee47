"""L2 kernel regularizers in float32 NumPy: the penalty added to the training loss and its gradient.

Keras 3's ``L2(f)`` computes ``f * sum(square(kernel))``; ``compute_loss`` adds each such term to the compiled
loss, so the step's loss and the kernel's gradient (``f * (kernel * 2)``, TensorFlow's Square gradient) both
include it. TensorFlow.NET's training loss is the compiled loss alone (docs/semantics.md row 2): under
``tfnet`` nothing is added.
"""

from __future__ import annotations

import numpy as np

from tfnet_train.conformance import f32 as F
from tfnet_train.conformance.case import ModelSpec
from tfnet_train.semantics import get_profile


def kernel_indices(spec: ModelSpec) -> list[int]:
    """Each layer's kernel index in get_weights order."""
    out, i = [], 0
    for layer in spec.layers:
        out.append(i)
        i += 2 if layer.use_bias else 1
    return out


def add_regularization(spec: ModelSpec, semantics: str, weights: list[np.ndarray], loss: np.float32,
                       gradients: list[np.ndarray]) -> tuple[np.float32, list[np.ndarray]]:
    """The loss and gradients with every layer's L2 kernel penalty added (keras); unchanged under tfnet."""
    if not get_profile(semantics).adds_regularization_losses:
        return loss, gradients
    total = loss
    gradients = list(gradients)
    for layer, k in zip(spec.layers, kernel_indices(spec), strict=True):
        if layer.kernel_l2 is None:
            continue
        factor = F.c32(layer.kernel_l2)
        total = F.add(total, F.mul(factor, F.sum_(F.square(weights[k]))))
        gradients[k] = F.add(gradients[k], F.mul(factor, F.mul(weights[k], 2)))
    return np.float32(total), gradients
