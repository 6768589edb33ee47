"""Dense layers and activations in float32 NumPy: forward pass and the analytic backward pass.

Backward formulas follow TensorFlow's registered gradients (ReluGrad, TanhGrad, SigmoidGrad, the Softmax
gradient, MatMul and bias-add gradients), op by op.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tfnet_train.conformance import f32 as F
from tfnet_train.conformance.case import ModelSpec


def activate(name: str, z: np.ndarray) -> np.ndarray:
    """The activation's output for pre-activation ``z``."""
    if name == "linear":
        return z
    if name == "relu":
        return F.f32(np.maximum(z, 0))
    if name == "tanh":
        return F.tanh(z)
    if name == "sigmoid":
        return F.sigmoid(z)
    if name == "softmax":
        e = F.exp(F.sub(z, F.amax(z)))
        return F.mul(e, F.reciprocal(F.sum_(e, axis=-1, keepdims=True)))
    raise ValueError(f"activation must be one of linear, relu, tanh, sigmoid, softmax, got {name!r}")


def activation_backward(name: str, y: np.ndarray, grad: np.ndarray) -> np.ndarray:
    """Gradient w.r.t. the pre-activation, given the activation output ``y`` and the upstream ``grad``."""
    if name == "linear":
        return grad
    if name == "relu":
        return F.f32(np.where(y > 0, grad, 0))
    if name == "tanh":
        return F.mul(grad, F.sub(1, F.mul(y, y)))
    if name == "sigmoid":
        return F.mul(F.mul(grad, y), F.sub(1, y))
    if name == "softmax":
        dot = F.sum_(F.mul(grad, y), axis=-1, keepdims=True)
        return F.mul(F.sub(grad, dot), y)
    raise ValueError(f"activation must be one of linear, relu, tanh, sigmoid, softmax, got {name!r}")


@dataclass
class ForwardPass:
    """What the backward pass needs: each layer's input, pre-activation and output."""

    inputs: list[np.ndarray]
    pre_activations: list[np.ndarray]
    outputs: list[np.ndarray]

    @property
    def y_pred(self) -> np.ndarray:
        return self.outputs[-1]

    @property
    def logits(self) -> np.ndarray:
        """The last layer's pre-activation values."""
        return self.pre_activations[-1]


def _layer_weights(spec: ModelSpec, weights: list[np.ndarray]) -> list[tuple[int, int | None]]:
    """Indices (kernel, bias or None) of each layer's weights in get_weights order."""
    out, i = [], 0
    for layer in spec.layers:
        if layer.use_bias:
            out.append((i, i + 1))
            i += 2
        else:
            out.append((i, None))
            i += 1
    if i != len(weights):
        raise ValueError(f"weights: expected {i} arrays for the model spec, got {len(weights)}")
    return out


def forward(spec: ModelSpec, weights: list[np.ndarray], x: np.ndarray) -> ForwardPass:
    """Run the Dense stack on ``x``: z = x @ kernel (+ bias), then the activation."""
    result = ForwardPass([], [], [])
    h = F.f32(x)
    for layer, (k, b) in zip(spec.layers, _layer_weights(spec, weights), strict=True):
        result.inputs.append(h)
        z = F.matmul(h, weights[k])
        if b is not None:
            z = F.add(z, weights[b])
        result.pre_activations.append(z)
        h = activate(layer.activation, z)
        result.outputs.append(h)
    return result


def backward(spec: ModelSpec, weights: list[np.ndarray], fwd: ForwardPass, grad: np.ndarray,
             wrt_logits: bool) -> list[np.ndarray]:
    """Gradients for every weight (get_weights order) from ``grad``, the loss gradient w.r.t. the model
    output (or w.r.t. the last pre-activation when ``wrt_logits``)."""
    slots = _layer_weights(spec, weights)
    grads: list[np.ndarray | None] = [None] * len(weights)
    upstream = grad
    for index in range(len(spec.layers) - 1, -1, -1):
        layer = spec.layers[index]
        if index == len(spec.layers) - 1 and wrt_logits:
            dz = upstream
        else:
            dz = activation_backward(layer.activation, fwd.outputs[index], upstream)
        k, b = slots[index]
        grads[k] = F.matmul(fwd.inputs[index].T, dz)
        if b is not None:
            grads[b] = F.sum_(dz, axis=0)
        if index > 0:
            upstream = F.matmul(dz, weights[k].T)
    return [g for g in grads if g is not None]
