"""The TensorFlow guides' training loop against Model.fit: same starting weights, same batches, same numbers.

Run:  .venv/bin/python interop_examples/python/custom_loop_vs_fit.py [--epochs 3]

The loop is the one "Writing a training loop from scratch" teaches: a @tf.function step with
tf.GradientTape, an optimizer's apply_gradients, metrics updated every batch, printed and reset at the end
of each epoch. The training loss is tracked by a Mean weighted by batch size, which is how fit averages
it. Then tfnet_train's fit trains a copy of the same starting model on the same unshuffled batches; its
History and final weights must equal the loop's within tfnet_train.tolerances.
"""

from __future__ import annotations

import argparse
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402

import tfnet_train  # noqa: E402
from tfnet_train.tolerances import ATOL, RTOL, allclose  # noqa: E402

BATCH = 64
LEARNING_RATE = 0.01


def digits() -> tuple[np.ndarray, np.ndarray]:
    """All 1,797 digit images as 64 pixels in [0, 1], labels as int32."""
    data = load_digits()
    return (data.data / 16.0).astype(np.float32), data.target.astype(np.int32)


def layers() -> list:
    return [keras.Input((64,)), keras.layers.Dense(64, activation="relu"), keras.layers.Dense(10)]


def guide_loop(model: keras.Model, x: np.ndarray, y: np.ndarray, epochs: int) -> dict[str, list[float]]:
    """The guide's loop; returns the per-epoch results it prints."""
    optimizer = keras.optimizers.Adam(learning_rate=LEARNING_RATE)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    loss_tracker = keras.metrics.Mean(name="loss")
    accuracy = keras.metrics.SparseCategoricalAccuracy(name="accuracy")
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(BATCH)

    @tf.function
    def train_step(x_batch: tf.Tensor, y_batch: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            logits = model(x_batch, training=True)
            loss_value = loss_fn(y_batch, logits)
        gradients = tape.gradient(loss_value, model.trainable_weights)
        optimizer.apply_gradients(zip(gradients, model.trainable_weights))
        loss_tracker.update_state(loss_value, sample_weight=tf.shape(x_batch)[0])
        accuracy.update_state(y_batch, logits)
        return loss_value

    history: dict[str, list[float]] = {"loss": [], "accuracy": []}
    for epoch in range(epochs):
        for x_batch, y_batch in dataset:
            train_step(x_batch, y_batch)
        history["loss"].append(float(loss_tracker.result()))
        history["accuracy"].append(float(accuracy.result()))
        print(f"loop epoch {epoch + 1}: loss {history['loss'][-1]:.6f}  accuracy {history['accuracy'][-1]:.4f}")
        loss_tracker.reset_state()
        accuracy.reset_state()
    return history


def engine_fit(weights: list[np.ndarray], x: np.ndarray, y: np.ndarray, epochs: int) -> tfnet_train.Model:
    """The same training through tfnet_train's Model.fit (no shuffling, so the batches are the loop's)."""
    model = tfnet_train.Sequential(layers())
    model.set_weights(weights)
    model.compile(
        optimizer=tfnet_train.optimizers.Adam(learning_rate=LEARNING_RATE),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    history = model.fit(x, y, batch_size=BATCH, epochs=epochs, shuffle=False, verbose=0)
    for epoch, (loss, acc) in enumerate(zip(history.history["loss"], history.history["accuracy"], strict=True)):
        print(f"fit  epoch {epoch + 1}: loss {loss:.6f}  accuracy {acc:.4f}")
    return model


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=3, help="epochs for both trainings (default 3)")
    args = parser.parse_args(argv)

    x, y = digits()
    keras.utils.set_random_seed(0)
    reference = keras.Sequential(layers())
    initial = [w.copy() for w in reference.get_weights()]
    print(f"{x.shape[0]} digits, batch {BATCH}, {-(-x.shape[0] // BATCH)} steps per epoch, {args.epochs} epochs")

    loop_history = guide_loop(reference, x, y, args.epochs)
    model = engine_fit(initial, x, y, args.epochs)

    same_logs = all(allclose(model.history.history[k], v) for k, v in loop_history.items())
    weight_pairs = list(zip(model.get_weights(), reference.get_weights(), strict=True))
    same_weights = all(allclose(a, b) for a, b in weight_pairs)
    gap = max(float(np.max(np.abs(a - b))) for a, b in weight_pairs)
    print(f"logs per epoch: {'same' if same_logs else 'DIFFERENT'}")
    print(f"final weights: {'same' if same_weights else 'DIFFERENT'} (max |fit - loop| = {gap:.3e})")
    ok = same_logs and same_weights
    print(f"result: {'same weights and logs' if ok else 'fit and loop differ'} (rtol={RTOL:g}, atol={ATOL:g})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
