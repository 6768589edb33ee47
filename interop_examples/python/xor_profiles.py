"""XOR, the network that "learns in Python but not in TensorFlow.NET": both semantics profiles side by side.

Run:  .venv/bin/python interop_examples/python/xor_profiles.py [--epochs 60]

The Python script behind this kind of report trains a 2-8-1 network on the four XOR points with a large
learning rate made safe by gradient clipping: SGD(learning_rate=10, momentum=0.9, clipnorm=0.1). The same
model is trained twice from the same weights: under semantics="keras" (what Python Keras computes) and under
semantics="tfnet" (what TensorFlow.NET computes; its optimizer never clips). Then the first steps are recorded
as a conformance case and the conformance diff runs it under both profiles to name the first step, stage and
variable where the two trainings part, and the documented difference that explains it.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402

import tfnet_train  # noqa: E402
from tfnet_train import conformance  # noqa: E402
from tfnet_train.conformance.explain import diff_profiles  # noqa: E402

X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=np.float32)
Y = np.array([0, 1, 1, 0], dtype=np.float32)
PROFILES = ("keras", "tfnet")
RECORDED_STEPS = 10


def layers() -> list:
    return [keras.Input((2,)), keras.layers.Dense(8, activation="tanh"), keras.layers.Dense(1, activation="sigmoid")]


def starting_weights(seed: int = 0) -> list[np.ndarray]:
    """Glorot-uniform kernels and zero biases drawn with NumPy, so the example starts from the same weights whatever
    the installed packages draw from Keras's random streams."""
    rng = np.random.default_rng(seed)

    def glorot(fan_in: int, fan_out: int) -> np.ndarray:
        limit = np.sqrt(6.0 / (fan_in + fan_out))
        return rng.uniform(-limit, limit, (fan_in, fan_out)).astype(np.float32)

    return [glorot(2, 8), np.zeros(8, np.float32), glorot(8, 1), np.zeros(1, np.float32)]


def xor_model(weights: list[np.ndarray], semantics: str) -> tfnet_train.Sequential:
    """The XOR network with the given starting weights, compiled under one semantics profile."""
    model = tfnet_train.Sequential(layers())
    model.set_weights(weights)
    model.compile(
        optimizer=tfnet_train.optimizers.SGD(learning_rate=10.0, momentum=0.9, clipnorm=0.1),
        loss="mse",
        metrics=["accuracy"],
        semantics=semantics,
    )
    return model


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=60, help="full-batch epochs per profile (default 60)")
    args = parser.parse_args(argv)

    weights = starting_weights()

    histories, predictions = {}, {}
    for profile in PROFILES:
        model = xor_model(weights, profile)
        histories[profile] = model.fit(X, Y, batch_size=4, epochs=args.epochs, shuffle=False, verbose=0).history
        predictions[profile] = model.predict_on_batch(X).reshape(-1)

    print(f"XOR, same starting weights, {args.epochs} epochs of one full batch")
    print(f"{'epoch':>5}  {'loss keras':>10}  {'loss tfnet':>10}")
    shown = sorted({0, 1, 2, 3, 5, 10, args.epochs - 1} | set(range(20, args.epochs, 20)))
    for epoch in (e for e in shown if e < args.epochs):
        print(f"{epoch + 1:>5}  {histories['keras']['loss'][epoch]:>10.6f}  {histories['tfnet']['loss'][epoch]:>10.6f}")
    for profile in PROFILES:
        p = predictions[profile]
        solved = np.array_equal(np.round(p), Y)
        print(f"{profile}: predictions {np.array2string(p, precision=3)} -> "
              f"{'XOR solved' if solved else 'XOR NOT solved'} (final loss {histories[profile]['loss'][-1]:.6f})")

    with tempfile.TemporaryDirectory(prefix="xor-case-") as folder:
        steps_x = np.tile(X, (RECORDED_STEPS, 1))
        steps_y = np.tile(Y, RECORDED_STEPS)
        case = conformance.record(xor_model(weights, "keras"), steps_x, steps_y, steps=RECORDED_STEPS,
                                  path=Path(folder) / "xor_clipnorm.json", batch_size=len(X))
        print(f"recorded the first {case.steps} steps as conformance case {case.name!r}; diff of the two profiles:")
        result = diff_profiles(case, "keras", "tfnet", implementation="engine")
        print(result.explain())
    return 0 if result.comparison is not None else 1


if __name__ == "__main__":
    sys.exit(main())
