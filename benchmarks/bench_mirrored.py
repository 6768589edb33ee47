"""Distributed fit throughput, measured side by side: the engine against Keras 3 under MirroredStrategy on two logical
CPUs, and two MultiWorkerMirroredStrategy workers on loopback beside one device.

MLP 784-256-10, batch 256 (the global batch), Adam, verbose=0, shuffle=False, same data and initial weights for
all. Prints fit steps/s (best of the rounds, interleaved, as this machine is shared and noisy) and the ratios. The two
workers run on the same machine as each other, so their steps/s shows the cost of the collectives, not a speed-up.
Run: .venv/bin/python benchmarks/bench_mirrored.py [--rounds 2] [--steps 100]
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

BATCH = 256


def data(steps: int) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((steps * BATCH, 784)).astype("float32")
    y = rng.integers(0, 10, size=steps * BATCH)
    weights = [(0.05 * rng.standard_normal(s)).astype("float32") for s in [(784, 256), (256,), (256, 10), (10,)]]
    return x, y, weights


def model(kind: str, weights: list[np.ndarray], strategy: tf.distribute.Strategy) -> object:
    import keras

    import tfnet_train

    with strategy.scope():
        layers = [keras.Input((784,)), keras.layers.Dense(256, activation="relu"), keras.layers.Dense(10)]
        built = tfnet_train.Sequential(layers) if kind == "engine" else keras.Sequential(layers)
        built.set_weights(weights)
        optimizer = tfnet_train.optimizers.Adam(1e-3) if kind == "engine" else keras.optimizers.Adam(1e-3)
        built.compile(optimizer, keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return built


def steps_per_second(fitted: object, x: np.ndarray, y: np.ndarray) -> float:
    fitted.fit(x[:2 * BATCH], y[:2 * BATCH], batch_size=BATCH, epochs=1, verbose=0, shuffle=False)  # traces
    start = time.perf_counter()
    fitted.fit(x, y, batch_size=BATCH, epochs=1, verbose=0, shuffle=False)
    return len(x) // BATCH / (time.perf_counter() - start)


def worker(steps: int) -> None:
    """One of the launched workers: print the chief's steps/s."""
    import json

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    x, y, weights = data(steps)
    rate = steps_per_second(model("engine", weights, strategy), x, y)
    if json.loads(os.environ["TF_CONFIG"])["task"]["index"] == 0:
        print(f"RESULT {rate:.3f}", flush=True)
    import gc

    gc.disable()
    gc.freeze()


def two_workers(steps: int) -> float:
    from tfnet_train.launch import launch

    out, err = io.StringIO(), io.StringIO()
    env = {k: v for k, v in os.environ.items() if k != "TF_CONFIG"}
    status = launch([sys.executable, __file__, "--worker", "--steps", str(steps)], workers=2, timeout=120, env=env,
                    stdout=out, stderr=err)
    results = [line.split()[-1] for line in out.getvalue().splitlines() if " RESULT " in line]
    if status != 0 or not results:
        raise RuntimeError(f"the two workers failed (status {status}):\n{out.getvalue()[-2000:]}{err.getvalue()}")
    return float(results[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--steps", type=int, default=100, help="steps per timed fit (one epoch)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.steps)
        return
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    mirrored = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    x, y, weights = data(args.steps)
    models = {"engine": model("engine", weights, mirrored), "keras": model("keras", weights, mirrored),
              "one device": model("engine", weights, tf.distribute.get_strategy())}
    best = dict.fromkeys(models, 0.0)
    for _ in range(args.rounds):
        for name, fitted in models.items():
            best[name] = max(best[name], steps_per_second(fitted, x, y))
    multi = two_workers(args.steps)
    print(f"MLP 784-256-10, batch {BATCH}, {args.steps} steps per fit, best of {args.rounds}")
    print(f"{'run':44s} {'steps/s':>9s} {'ratio':>8s}")
    print(f"{'Mirrored, 2 logical CPUs: engine fit':44s} {best['engine']:9.1f} "
          f"{best['engine'] / best['keras']:7.2f}x  (of Keras; target >= 1.5)")
    print(f"{'Mirrored, 2 logical CPUs: Keras 3 fit':44s} {best['keras']:9.1f} {1.0:7.2f}x")
    print(f"{'one device: engine fit':44s} {best['one device']:9.1f} {1.0:7.2f}x")
    print(f"{'MultiWorker, 2 workers on loopback: engine':44s} {multi:9.1f} "
          f"{multi / best['one device']:7.2f}x  (of one device)")


if __name__ == "__main__":
    main()
