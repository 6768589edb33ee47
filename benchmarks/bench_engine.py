"""Engine throughput against Keras 3, the hand-written @tf.function loop and its own bound, measured side by side.

MLP 784-128-10, batch 128, CPU, verbose=0, same data and initial weights for all; a small conv net on 8x8x1 inputs
(batch 64); evaluate and predict; the XOR fixed-cost run. The bound is the same model trained with one compiled call
per epoch (steps_per_execution = steps per epoch). "per step" is fit with a callback listening to every batch, so
one call runs one step. Prints steps/s (best of several interleaved rounds, as this machine is shared and noisy)
and the ratios the targets name.
Run: .venv/bin/python benchmarks/bench_engine.py [--rounds 3] [--samples 25600]
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import tfnet_train  # noqa: E402
from tfnet_train import optimizers  # noqa: E402

BATCH = 128


def layers() -> list:
    return [keras.Input((784,)), keras.layers.Dense(128, activation="relu"), keras.layers.Dense(10)]


def loss() -> keras.losses.Loss:
    return keras.losses.SparseCategoricalCrossentropy(from_logits=True)


class EveryBatch(keras.callbacks.Callback):
    def on_train_batch_end(self, batch: int, logs: object = None) -> None:
        pass


def time_fit(model: keras.Model, x: np.ndarray, y: np.ndarray, epochs: int, batch: int = BATCH,
             callbacks: list | None = None) -> float:
    model.fit(x, y, batch_size=batch, epochs=1, verbose=0, shuffle=False, callbacks=callbacks)  # warm-up: traces
    start = time.perf_counter()
    model.fit(x, y, batch_size=batch, epochs=epochs, verbose=0, shuffle=False, callbacks=callbacks)
    return epochs * int(np.ceil(len(x) / batch)) / (time.perf_counter() - start)


def time_call(call: object, steps: int, repeats: int = 3) -> float:
    call()  # warm-up: traces
    start = time.perf_counter()
    for _ in range(repeats):
        call()
    return repeats * steps / (time.perf_counter() - start)


def time_evaluate(model: keras.Model, x: np.ndarray, y: np.ndarray, steps: int) -> float:
    return time_call(lambda: model.evaluate(x, y, batch_size=BATCH, verbose=0), steps)


def time_predict(model: keras.Model, x: np.ndarray, steps: int) -> float:
    return time_call(lambda: model.predict(x, batch_size=BATCH, verbose=0), steps)


def ours(weights: list, spe: int = 1, build: object = None) -> tfnet_train.Sequential:
    model = tfnet_train.Sequential((build or layers)())
    model.set_weights(weights)
    model.compile(optimizers.Adam(1e-3), loss(), metrics=["accuracy"], steps_per_execution=spe)
    return model


def theirs(weights: list, spe: int = 1, build: object = None) -> keras.Model:
    model = keras.Sequential((build or layers)())
    model.set_weights(weights)
    model.compile(keras.optimizers.Adam(1e-3), loss(), metrics=["accuracy"], steps_per_execution=spe)
    return model


def conv_layers() -> list:
    return [keras.Input((8, 8, 1)), keras.layers.Conv2D(16, 3, activation="relu", padding="same"),
            keras.layers.MaxPooling2D(), keras.layers.Flatten(), keras.layers.Dense(10)]


def hand_loop(weights: list, x: np.ndarray, y: np.ndarray, epochs: int) -> float:
    model = keras.Sequential(layers())
    model.set_weights(weights)
    optimizer = keras.optimizers.Adam(1e-3)
    loss_fn = loss()
    loss_mean = keras.metrics.Mean()
    accuracy = keras.metrics.SparseCategoricalAccuracy()

    @tf.function
    def step(xb: tf.Tensor, yb: tf.Tensor) -> None:
        with tf.GradientTape() as tape:
            logits = model(xb, training=True)
            value = loss_fn(yb, logits)
        grads = tape.gradient(value, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        loss_mean.update_state(value)
        accuracy.update_state(yb, logits)

    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(BATCH).prefetch(2)
    for xb, yb in dataset.take(2):
        step(xb, yb)
    start = time.perf_counter()
    for _ in range(epochs):
        loss_mean.reset_state()
        accuracy.reset_state()
        for xb, yb in dataset:
            step(xb, yb)
        float(loss_mean.result())
    return epochs * int(np.ceil(len(x) / BATCH)) / (time.perf_counter() - start)


def xor_seconds(make: type, optimizer: object, fits: int = 1) -> list[float]:
    """Seconds of each of ``fits`` XOR fits of 1000 one-step epochs on one model: the first traces its step, the
    later ones show the per-epoch cost alone."""
    x = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], "float32")
    y = np.array([0, 1, 1, 0], "float32")
    keras.utils.set_random_seed(0)
    model = make([keras.Input((2,)), keras.layers.Dense(4, activation="tanh"),
                  keras.layers.Dense(4, activation="tanh"), keras.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer, "binary_crossentropy", metrics=["accuracy"])
    seconds = []
    for _ in range(fits):
        start = time.perf_counter()
        model.fit(x, y, epochs=1000, verbose=0)
        seconds.append(time.perf_counter() - start)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--samples", type=int, default=25600)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--skip-xor-keras", action="store_true")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    x = rng.normal(size=(args.samples, 784)).astype("float32")
    y = rng.integers(0, 10, size=args.samples).astype("int64")
    keras.utils.set_random_seed(0)
    weights = keras.Sequential(layers()).get_weights()
    steps = int(np.ceil(args.samples / BATCH))
    cx = rng.normal(size=(args.samples // 2, 8, 8, 1)).astype("float32")
    cy = rng.integers(0, 10, size=len(cx)).astype("int64")
    keras.utils.set_random_seed(0)
    conv_weights = keras.Sequential(conv_layers()).get_weights()
    conv_steps = int(np.ceil(len(cx) / 64))
    best: dict[str, float] = {}
    for _ in range(args.rounds):  # interleaved rounds, best of each
        runs = {
            "loop": lambda: hand_loop(weights, x, y, args.epochs),
            "ours": lambda: time_fit(ours(weights), x, y, args.epochs),
            "ours_per_step": lambda: time_fit(ours(weights), x, y, args.epochs, callbacks=[EveryBatch()]),
            "bound": lambda: time_fit(ours(weights, steps), x, y, args.epochs),
            "keras": lambda: time_fit(theirs(weights), x, y, args.epochs),
            "ours_spe32": lambda: time_fit(ours(weights, 32), x, y, args.epochs),
            "keras_spe32": lambda: time_fit(theirs(weights, 32), x, y, args.epochs),
            "ours_evaluate": lambda: time_evaluate(ours(weights), x, y, steps),
            "keras_evaluate": lambda: time_evaluate(theirs(weights), x, y, steps),
            "ours_predict": lambda: time_predict(ours(weights), x, steps),
            "keras_predict": lambda: time_predict(theirs(weights), x, steps),
            "conv_ours": lambda: time_fit(ours(conv_weights, build=conv_layers), cx, cy, args.epochs, 64),
            "conv_bound": lambda: time_fit(ours(conv_weights, conv_steps, conv_layers), cx, cy, args.epochs, 64),
            "conv_keras": lambda: time_fit(theirs(conv_weights, build=conv_layers), cx, cy, args.epochs, 64),
        }
        for name, run in runs.items():
            best[name] = max(best.get(name, 0.0), run())
    print(f"MLP 784-128-10, batch {BATCH}, {args.samples} samples; conv 8x8x1 batch 64, {len(cx)} samples; "
          f"best of {args.rounds} rounds (steps/s)")
    for name, value in best.items():
        print(f"  {name:15s} {value:8.0f}")
    ratios = [
        ("fit / its bound (one call per epoch)", best["ours"] / best["bound"], ">= 0.80"),
        ("fit / hand-written loop", best["ours"] / best["loop"], ">= 1.20"),
        ("fit / keras fit", best["ours"] / best["keras"], ""),
        ("fit per step / hand-written loop", best["ours_per_step"] / best["loop"], ""),
        ("fit spe=32 / hand-written loop", best["ours_spe32"] / best["loop"], ">= 1.40"),
        ("fit spe=32 / keras fit spe=32", best["ours_spe32"] / best["keras_spe32"], ">= 1.20"),
        ("evaluate / keras evaluate", best["ours_evaluate"] / best["keras_evaluate"], ">= 1.20"),
        ("predict / keras predict", best["ours_predict"] / best["keras_predict"], ">= 1.20"),
        ("conv fit / keras fit", best["conv_ours"] / best["conv_keras"], ">= 1.50"),
        ("conv fit / its bound", best["conv_ours"] / best["conv_bound"], ">= 0.80"),
    ]
    for label, value, target in ratios:
        print(f"  {label:38s} {value:5.2f}x" + (f"  (target {target})" if target else ""))
    first, *later = xor_seconds(tfnet_train.Sequential, optimizers.SGD(0.1), fits=1 + args.rounds)
    print(f"XOR 2-4-4-1, 1000 one-step epochs: tfnet_train first fit (traces) {first:.2f} s, later fits "
          f"{min(later):.2f} s best of {len(later)} (target <= 0.5 s)", end="")
    if not args.skip_xor_keras:
        (keras_xor,) = xor_seconds(keras.Sequential, keras.optimizers.SGD(0.1))
        print(f", keras first fit {keras_xor:.2f} s, {keras_xor / first:.1f}x our first fit")
    else:
        print()


if __name__ == "__main__":
    main()
