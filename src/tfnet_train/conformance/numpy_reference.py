"""A NumPy-only trainer for the Dense cases: an independent implementation of one training step, stage by stage.

Values are stored as float32; every op is computed in float64 and rounded to float32 after it, with the
formulas (and operation order) of Keras 3 for semantics "keras" and of TensorFlow.NET 0.15 for "tfnet"
(see ``numpy_losses``, ``numpy_metrics``, ``numpy_optimizers``). No TensorFlow is imported.

    trainer = NumpyTrainer(case)
    trace = trainer.step(0)        # flat trace: {"y_pred/0": ..., "gradients/0": ..., ...}
"""

from __future__ import annotations

import numpy as np

from tfnet_train.conformance import f32 as F
from tfnet_train.conformance.case import Case, CaseError
from tfnet_train.conformance.numpy_losses import compute_loss
from tfnet_train.conformance.numpy_metrics import CompiledMetrics
from tfnet_train.conformance.numpy_network import backward, forward
from tfnet_train.conformance.numpy_optimizers import clip_gradients, make_optimizer
from tfnet_train.conformance.numpy_regularizers import add_regularization
from tfnet_train.engine.trace import StepTrace


def expand_1d(array: np.ndarray | None) -> np.ndarray | None:
    """A rank-1 array becomes (n, 1); anything else is returned unchanged."""
    if array is None or array.ndim != 1:
        return array
    return array.reshape(-1, 1)


class NumpyTrainer:
    """Trains a case's model step by step in NumPy and records each step's trace."""

    def __init__(self, case: Case) -> None:
        if case.arrays is None:
            raise CaseError(f"case {case.name!r}: arrays are not loaded (use conformance.load)")
        if case.has_keras_model:
            raise CaseError(f"case {case.name!r}: the NumPy reference runs the Dense form of a case; this one "
                            "carries model.keras_config (run_numpy reports it as n/a)")
        self.case = case
        self.weights = [F.f32(w) for w in case.arrays.weights]
        shapes = [w.shape for w in self.weights]
        # a string optimizer: each profile's rule (ValueError where Keras 3 cannot interpret it)
        self.optimizer_spec = case.optimizer.resolve(case.semantics)
        self.optimizer = make_optimizer(self.optimizer_spec, case.semantics, shapes)
        self.metrics = CompiledMetrics(case.metrics, case.semantics)
        self.next_step = 0

    def step_trace(self, step: int) -> StepTrace:
        """Run training step ``step`` (steps run in order, from 0) and return its StepTrace."""
        if step != self.next_step:
            raise ValueError(f"step must be the next step {self.next_step}, got {step}")
        case = self.case
        x, y, sw = case.batch(step)
        x, y, sw = expand_1d(x), expand_1d(y), expand_1d(sw)
        fwd = forward(case.model, self.weights, x)
        loss_spec = case.loss.resolve(case.semantics)  # a string loss: each profile's rule (ValueError: none)
        loss = compute_loss(loss_spec, case.semantics, y, fwd, case.model.layers[-1].activation, sw)
        gradients = backward(case.model, self.weights, fwd, loss.grad, loss.wrt_logits)
        loss_value, gradients = add_regularization(case.model, case.semantics, self.weights, loss.value, gradients)
        aggregated = [g.copy() for g in gradients]  # one device: aggregation is the identity
        clipped = clip_gradients(self.optimizer_spec, aggregated, case.semantics)
        self.weights = self.optimizer.apply(clipped, self.weights)
        self.metrics.update(loss_value, x.shape[0], y, fwd.y_pred)
        self.next_step += 1
        inputs = {"x": [x], "y": [y]}
        if sw is not None:
            inputs["sample_weight"] = [sw]
        return StepTrace(
            step=step,
            inputs=inputs,
            y_pred=[fwd.y_pred],
            loss=float(loss_value),
            gradients=gradients,
            aggregated_gradients=aggregated,
            clipped_gradients=clipped,
            weights=[w.copy() for w in self.weights],
            optimizer_state=self.optimizer.state(),
            metrics=self.metrics.results(),
        )

    def step(self, step: int) -> dict[str, np.ndarray]:
        """Run training step ``step`` and return its flat trace (``StepTrace.flat()``)."""
        return self.step_trace(step).flat()

    def run(self) -> list[dict[str, np.ndarray]]:
        """Every remaining step of the case, as flat traces."""
        return [self.step(i) for i in range(self.next_step, self.case.steps)]


def run_numpy(case: Case) -> list[dict[str, np.ndarray]]:
    """The NumPy reference's traces for a case; NotApplicable naming the first layer it does not implement when the
    case's Keras config has no Dense form."""
    from tfnet_train.conformance.keras_model import dense_only

    return NumpyTrainer(dense_only(case, "the NumPy reference")).run()
