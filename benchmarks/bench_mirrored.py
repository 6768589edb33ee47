"""Distributed fit throughput, measured side by side: the engine against Keras 3 under MirroredStrategy on two logical
CPUs, the engine on one device, and two MultiWorkerMirroredStrategy workers on loopback, in one run.

MLP 784-256-10, batch 256 (the global batch), SGD and Adam, verbose=0, shuffle=False, same data and initial weights
for all; one epoch per timed fit, of each length asked (40, 160 and 640 steps by default). Prints fit steps/s (best
of the rounds, interleaved, as this machine is shared and noisy), the engine's ratio to Keras's under the strategy,
and the per-step cost of each run. The two workers run on the same machine as each other, so their per-step cost
shows what the collectives cost on one machine, not a speed-up.
Run: .venv/bin/python benchmarks/bench_mirrored.py [--rounds 3] [--steps 40,160,640] [--optimizers sgd,adam]
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


def model(kind: str, weights: list[np.ndarray], strategy: tf.distribute.Strategy, optimizer: str) -> object:
    import keras

    import tfnet_train

    with strategy.scope():
        layers = [keras.Input((784,)), keras.layers.Dense(256, activation="relu"), keras.layers.Dense(10)]
        built = tfnet_train.Sequential(layers) if kind == "engine" else keras.Sequential(layers)
        built.set_weights(weights)
        module = tfnet_train.optimizers if kind == "engine" else keras.optimizers
        made = module.SGD(0.01) if optimizer == "sgd" else module.Adam(1e-3)
        built.compile(made, keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return built


def steps_per_second(fitted: object, x: np.ndarray, y: np.ndarray) -> float:
    fitted.fit(x[:2 * BATCH], y[:2 * BATCH], batch_size=BATCH, epochs=1, verbose=0, shuffle=False)  # traces
    start = time.perf_counter()
    fitted.fit(x, y, batch_size=BATCH, epochs=1, verbose=0, shuffle=False)
    return len(x) // BATCH / (time.perf_counter() - start)


def worker(lengths: list[int], names: list[str], rounds: int) -> None:
    """One of the launched workers: print the chief's best steps/s per optimizer and epoch length."""
    import json

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    chief = json.loads(os.environ["TF_CONFIG"])["task"]["index"] == 0
    for steps in lengths:
        x, y, weights = data(steps)
        for name in names:
            fitted = model("engine", weights, strategy, name)
            rate = max(steps_per_second(fitted, x, y) for _ in range(rounds))
            if chief:
                print(f"RESULT {name} {steps} {rate:.3f}", flush=True)
    import gc

    gc.disable()  # no collection while the collectives shut down at exit
    gc.freeze()


def two_workers(lengths: list[int], names: list[str], rounds: int) -> dict[tuple[str, int], float]:
    from tfnet_train.launch import launch

    out, err = io.StringIO(), io.StringIO()
    env = {k: v for k, v in os.environ.items() if k != "TF_CONFIG"}
    command = [sys.executable, __file__, "--worker", "--steps", ",".join(map(str, lengths)),
               "--optimizers", ",".join(names), "--rounds", str(rounds)]
    status = launch(command, workers=2, timeout=1800, env=env, stdout=out, stderr=err)
    results = {}
    for line in out.getvalue().splitlines():
        if " RESULT " in f" {line}":
            name, steps, rate = line.split()[-3:]
            results[name, int(steps)] = float(rate)
    if status != 0 or not results:
        raise RuntimeError(f"the two workers failed (status {status}):\n{out.getvalue()[-2000:]}{err.getvalue()}")
    return results


def _csv(kind: type, text: str) -> list:
    return [kind(part) for part in text.split(",") if part]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", default="40,160,640", help="epoch lengths (steps per timed fit), comma-separated")
    parser.add_argument("--optimizers", default="sgd,adam", help="sgd and/or adam, comma-separated")
    parser.add_argument("--no-workers", action="store_true", help="leave out the two MultiWorker workers")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    lengths, names = _csv(int, args.steps), _csv(str, args.optimizers)
    if any(n not in ("sgd", "adam") for n in names) or any(s < 2 for s in lengths):
        parser.error(f"--optimizers takes sgd and adam, --steps lengths >= 2; got {names} and {lengths}")
    if args.worker:
        worker(lengths, names, args.rounds)
        return
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    mirrored = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    rows = []
    for steps in lengths:
        x, y, weights = data(steps)
        for name in names:
            models = {"engine": model("engine", weights, mirrored, name),
                      "keras": model("keras", weights, mirrored, name),
                      "one device": model("engine", weights, tf.distribute.get_strategy(), name)}
            best = dict.fromkeys(models, 0.0)
            for _ in range(args.rounds):
                for kind, fitted in models.items():
                    best[kind] = max(best[kind], steps_per_second(fitted, x, y))
            rows.append((steps, name, best))
            del models
    multi = two_workers(lengths, names, args.rounds) if not args.no_workers else {}
    print(f"MLP 784-256-10, global batch {BATCH}, one epoch per timed fit, best of {args.rounds} (steps/s; ms/step)")
    print(f"{'steps':>5s} {'opt':4s} {'Mirrored engine':>16s} {'Mirrored Keras':>16s} {'ratio':>6s} "
          f"{'one device':>16s} {'2 workers':>16s}")
    for steps, name, best in rows:
        cells = [best["engine"], best["keras"]]
        ratio = best["engine"] / best["keras"]
        more = [best["one device"], multi.get((name, steps))]
        shown = [f"{r:7.1f}; {1000 / r:6.2f}" if r else f"{'-':>16s}" for r in cells + more]
        print(f"{steps:5d} {name:4s} {shown[0]:>16s} {shown[1]:>16s} {ratio:5.2f}x {shown[2]:>16s} {shown[3]:>16s}")
    print("target: Mirrored engine >= 1.5x Mirrored Keras at every length; 2 workers on loopback: reported")


if __name__ == "__main__":
    main()
