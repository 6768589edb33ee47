"""TF.NET programs' eager loops and `np` operations from C#, side by side with the same code in Python.

Rows:
- `linreg`, `xor`: the loops of TF.NET's LinearRegressionEager and NeuralNetXorEager examples written in the
  TensorFlow.NET-shaped face (dotnet/src/TfNetTrain.FaceBench, modes `linreg`/`xor`) against the same loops in Python;
  the ratio is Python time / C# time (1.0: as fast; the issue's target is at least 1/1.2 = 0.83).
- `np`: a chain of np operations on a Python-backed array and on a C#-backed array of `--megabytes` MB (float32);
  the bytes that crossed the boundary (ExchangeCounters) must be at most one array's worth: the single read at the
  end. Its time is shown beside NumPy's for the same chain.

    python benchmarks/bench_tfnet_numpy.py [--steps 300] [--repeats 3] [--megabytes 16] [--runtime mono|coreclr]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_tfnet_face import _coreclr_command  # noqa: E402 (the same FaceBench build on .NET, and its environment)

ROOT = Path(__file__).resolve().parents[1]
BIN = ROOT / "dotnet" / "bin"


def python_linreg(repeats: int, steps: int) -> list[float]:
    """LinearRegressionEager's loop: W * X + b, the summed squared error over 2n, SGD on (W, b)."""
    import keras
    import numpy as np
    import tensorflow as tf

    train_x = np.array([3.3, 4.4, 5.5, 6.71, 6.93, 4.168, 9.779, 6.182, 7.59, 2.167, 7.042, 10.791, 5.313, 7.997,
                        5.654, 9.27, 3.1], np.float32)
    train_y = np.array([1.7, 2.76, 2.09, 3.19, 1.694, 1.573, 3.366, 2.596, 2.53, 1.221, 2.827, 3.465, 1.65, 2.904,
                        2.42, 2.94, 1.3], np.float32)
    n = train_x.shape[0]
    w = tf.Variable(-0.06, name="weight")
    b = tf.Variable(-0.73, name="bias")
    optimizer = keras.optimizers.SGD(0.01)

    def run(count: int) -> None:
        for _ in range(count):
            with tf.GradientTape() as g:
                pred = w * tf.constant(train_x) + b
                loss = tf.reduce_sum(tf.pow(pred - tf.constant(train_y), 2)) / (2 * n)
            gradients = g.gradient(loss, [w, b])
            optimizer.apply_gradients(zip(gradients, [w, b]))

    run(20)
    return [_timed(run, steps) for _ in range(repeats)]


def python_xor(repeats: int, steps: int) -> list[float]:
    """NeuralNetXorEager's loop: a fixed ReLU hidden layer, tanh output, mean squared error, SGD on the output."""
    import keras
    import numpy as np
    import tensorflow as tf

    features = tf.constant(np.array([[1, 0], [1, 1], [0, 0], [0, 1]], np.float32))
    labels = tf.constant(np.array([[1], [0], [0], [1]], np.float32))
    hidden = tf.Variable(tf.random.truncated_normal((2, 8), seed=1, stddev=1 / np.sqrt(2)))
    hidden_activations = tf.nn.relu(tf.matmul(features, hidden))
    output = tf.Variable(tf.random.truncated_normal((8, 1), seed=17, stddev=1 / np.sqrt(8)))
    optimizer = keras.optimizers.SGD(0.01)

    def run(count: int) -> None:
        for _ in range(count):
            with tf.GradientTape() as g:
                logits = tf.matmul(hidden_activations, output)
                predictions = tf.tanh(tf.squeeze(logits))
                loss = tf.reduce_mean(tf.square(predictions - tf.cast(labels, tf.float32)), name="loss")
            gradient = g.gradient(loss, output)
            optimizer.apply_gradients([(gradient, output)])

    run(20)
    return [_timed(run, steps) for _ in range(repeats)]


def python_np(repeats: int, megabytes: int) -> list[float]:
    """The C# np chain in NumPy: uniform, (x * 2 + 1) / 3 - x, reshape, astype, a strided slice, sum."""
    import numpy as np

    n = megabytes * 1024 * 1024 // 4
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        np.random.seed(0)
        x = np.random.uniform(0, 1, (n // 1024, 1024)).astype(np.float32)
        y = ((x * np.float32(2) + np.float32(1)) / np.float32(3) - x).reshape(-1, 256).astype(np.float64)
        float(np.sum(y[::100]))
        x.copy()
        times.append(time.perf_counter() - start)
    return times


def _timed(run, steps: int) -> float:
    start = time.perf_counter()
    run(steps)
    return time.perf_counter() - start


def csharp(mode: str, repeats: int, size: int, runtime: str) -> list[dict]:
    """Run the FaceBench mode and read its RESULT lines."""
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    command = ["mono", str(BIN / "TfNetTrain.FaceBench.exe")]
    if runtime == "coreclr":
        found = _coreclr_command()
        if found is None:
            raise RuntimeError("no .NET build (dotnet/bin/coreclr) or no .NET runtime here: run make build")
        command, env = found
    env = {**env, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.run([*command, mode, str(repeats), str(size)], capture_output=True, text=True, env=env,
                          timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(f"FaceBench {mode} failed ({proc.returncode}):\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return [json.loads(line[len("RESULT "):]) for line in proc.stdout.splitlines() if line.startswith("RESULT ")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--megabytes", type=int, default=16)
    parser.add_argument("--runtime", choices=["mono", "coreclr"], default="mono")
    args = parser.parse_args()

    for mode, python in (("linreg", python_linreg), ("xor", python_xor)):
        cs = [r["seconds"] for r in csharp(mode, args.repeats, args.steps, args.runtime)]
        py = python(args.repeats, args.steps)
        per_step = (min(cs) / args.steps * 1e3, min(py) / args.steps * 1e3)
        print(f"{mode:8s} C# {per_step[0]:7.2f} ms/step   Python {per_step[1]:7.2f} ms/step"
              f"   ratio {min(py) / min(cs):.3f} (target >= 0.83)")

    results = csharp("np", args.repeats, args.megabytes, args.runtime)
    py = min(python_np(args.repeats, args.megabytes))
    ok = True
    for kind in ("np_python_backed", "np_csharp_backed"):
        seconds = min(r["seconds"] for r in results if r["name"] == kind)
        counts = [r for r in results if r["name"] == kind + "_bytes"][-1]
        crossed = counts["to_python"] + counts["to_csharp"]
        ok &= crossed <= counts["array_bytes"]
        print(f"{kind:17s} {seconds * 1e3:8.1f} ms (NumPy {py * 1e3:.1f} ms)   crossed {crossed} bytes in "
              f"{counts['copies']} copies for a {counts['array_bytes']}-byte array (target: at most one crossing)")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
