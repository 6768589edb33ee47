"""One training step on a batch of handwritten digits, done twice: by hand, then by the engine.

Run:  .venv/bin/python interop_examples/python/one_training_step.py

Part 1 is the textbook step with tf.GradientTape: predictions, sparse categorical cross-entropy,
gradients, and the plain SGD update w <- w - lr * g, each written out. Part 2 gives the engine the same
starting weights and the same batch and asks for `train_step_traced`, which returns the value of every
stage of its step. The two must agree within the project's float32 tolerance (tfnet_train.tolerances).
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402

import tfnet_train  # noqa: E402
from tfnet_train.tolerances import ATOL, RTOL, allclose  # noqa: E402

BATCH = 32
LEARNING_RATE = 0.1


def digits_batch(size: int) -> tuple[np.ndarray, np.ndarray]:
    """The first ``size`` 8x8 digit images, flattened to 64 pixels scaled to [0, 1], with their labels."""
    digits = load_digits()
    x = (digits.data[:size] / 16.0).astype(np.float32)
    y = digits.target[:size].astype(np.int32)
    return x, y


def layers() -> list:
    """64 pixels -> 32 ReLU units -> 10 logits."""
    return [keras.Input((64,)), keras.layers.Dense(32, activation="relu"), keras.layers.Dense(10)]


def textbook_step(model: keras.Model, x: np.ndarray, y: np.ndarray) -> dict[str, object]:
    """Forward, loss, gradients and update, each step in plain TensorFlow."""
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        log_probs = tf.nn.log_softmax(logits)
        picked = tf.gather(log_probs, y, axis=1, batch_dims=1)  # log p(true class) per image
        loss = -tf.reduce_mean(picked)
    gradients = tape.gradient(loss, model.trainable_variables)
    for variable, gradient in zip(model.trainable_variables, gradients, strict=True):
        variable.assign_sub(LEARNING_RATE * gradient)
    return {
        "logits": logits.numpy(),
        "loss": float(loss),
        "gradients": [g.numpy() for g in gradients],
        "weights": [w.numpy() for w in model.weights],
    }


def engine_step(weights: list[np.ndarray], x: np.ndarray, y: np.ndarray) -> tfnet_train.StepTrace:
    """The same step through tfnet_train: compile with SGD and the Keras loss, then one traced step."""
    model = tfnet_train.Sequential(layers())
    model.set_weights(weights)
    model.compile(
        optimizer=tfnet_train.optimizers.SGD(learning_rate=LEARNING_RATE),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    return model.train_step_traced(x, y)


def max_gap(a: object, b: object) -> float:
    return float(np.max(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64))))


def main() -> int:
    x, y = digits_batch(BATCH)
    keras.utils.set_random_seed(0)
    model = keras.Sequential(layers())
    initial = [w.copy() for w in model.get_weights()]

    print(f"batch: {x.shape[0]} digits of {x.shape[1]} pixels, labels {y[:8].tolist()}...")
    by_hand = textbook_step(model, x, y)
    probabilities = tf.nn.softmax(by_hand["logits"]).numpy()
    for i in range(3):
        print(f"image {i}: label {y[i]}, predicted {int(probabilities[i].argmax())}, "
              f"p(label) {probabilities[i, y[i]]:.4f}")
    print(f"sparse categorical cross-entropy: {by_hand['loss']:.6f}  (chance level ln 10 = {np.log(10):.6f})")
    names = [w.path for w in model.trainable_variables]
    for name, g in zip(names, by_hand["gradients"], strict=True):
        print(f"gradient {name:<30} shape {str(g.shape):<9} norm {np.linalg.norm(g):.6f}")
    update_ok = all(
        allclose(after, before - np.float32(LEARNING_RATE) * g)
        for before, after, g in zip(initial, by_hand["weights"], by_hand["gradients"], strict=True)
    )
    print(f"update w - {LEARNING_RATE} * g applied: {'yes' if update_ok else 'NO'}")

    trace = engine_step(initial, x, y)
    checks = {
        "predictions": (trace.y_pred[0], by_hand["logits"]),
        "loss": (trace.loss, by_hand["loss"]),
        "gradients": (trace.gradients, by_hand["gradients"]),
        "weights after update": (trace.weights, by_hand["weights"]),
    }
    print(f"engine step {trace.step}: loss {trace.loss:.6f}, accuracy {trace.metrics['accuracy']:.4f}")
    all_same = update_ok
    for stage, (engine_value, textbook_value) in checks.items():
        pairs = list(zip(engine_value, textbook_value, strict=True)) if isinstance(engine_value, list) else [
            (engine_value, textbook_value)]
        same = all(allclose(a, b) for a, b in pairs)
        gap = max(max_gap(a, b) for a, b in pairs)
        all_same &= same
        print(f"{stage:<22} max |engine - textbook| = {gap:.3e}  {'same' if same else 'DIFFERENT'}")
    verdict = "same numbers" if all_same else "numbers differ"
    print(f"result: {verdict} (rtol={RTOL:g}, atol={ATOL:g})")
    return 0 if all_same else 1


if __name__ == "__main__":
    sys.exit(main())
