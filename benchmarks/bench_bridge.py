"""C# driving the engine through the bridge, measured against Python driving it directly.

MLP 784-128-10, batch 128, SGD, CPU. The C# half is dotnet/bin/TfNetTrain.Bench.exe (source in
dotnet/src/TfNetTrain.Bench; compiled here with mcs when the build did not produce it); the Python half runs in
a subprocess of this script, so both sides pay for their own process. Prints each measurement and its ratio
against the target; it never judges (this machine is shared and noisy: compare ratios from one run).

  whole fit             C# Model.Fit vs model.fit                          target >= 0.98x
  per-step loop         C# TrainOnBatch, fresh batches, vs train_on_batch  target >= 0.95x
  array exchange        float32 1e3..1e7 vs Buffer.BlockCopy               target >= 50% of memcpy from 1e5
  start to first step   C# host process vs Python process                  target <= 1.3x
  dispose               PythonRuntime.Dispose with TensorFlow loaded       target < 1 s
  resident memory       growth over 10,000 bridged steps                   target < 50 MB

Run: .venv/bin/python benchmarks/bench_bridge.py [--repeats 3] [--epochs 3] [--steps 200] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = ROOT / "dotnet" / "bin"
BENCH_EXE = BIN / "TfNetTrain.Bench.exe"
BENCH_SOURCE = ROOT / "dotnet" / "src" / "TfNetTrain.Bench" / "Program.cs"
ENV = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
FEATURES, HIDDEN, CLASSES, BATCH = 784, 128, 10, 128
SAMPLES = 64 * BATCH


# ----- the Python half (runs in a subprocess: `bench_bridge.py --python-train` / `--python-startup`) -----------


def _python_model():  # noqa: ANN202 (imports TensorFlow lazily)
    import keras

    import tfnet_train
    from tfnet_train import optimizers

    model = tfnet_train.Sequential(
        [keras.Input((FEATURES,)), keras.layers.Dense(HIDDEN, activation="relu"), keras.layers.Dense(CLASSES)])
    model.compile(optimizers.SGD(learning_rate=0.01),
                  keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    return model


def python_startup() -> None:
    """What the C# startup mode does: import, build, compile, one step."""
    import numpy as np

    model = _python_model()
    rng = np.random.default_rng(0)
    model.train_on_batch(rng.random((BATCH, FEATURES), dtype=np.float32), rng.integers(0, CLASSES, BATCH))
    print("FIRST_STEP", flush=True)


def python_train(repeats: int, epochs: int, steps: int) -> None:
    """What the C# train mode does, from Python."""
    import numpy as np

    rng = np.random.default_rng(1)
    x = rng.random((SAMPLES, FEATURES), dtype=np.float32)
    y = rng.integers(0, CLASSES, SAMPLES)
    batches = [(rng.random((BATCH, FEATURES), dtype=np.float32), rng.integers(0, CLASSES, BATCH)) for _ in range(8)]
    model = _python_model()
    model.fit(x, y, batch_size=BATCH, epochs=1, verbose=0, shuffle=False)
    for i in range(20):
        model.train_on_batch(*batches[i % 8])
    for _ in range(repeats):
        start = time.perf_counter()
        model.fit(x, y, batch_size=BATCH, epochs=epochs, verbose=0, shuffle=False)
        _result("fit", seconds=time.perf_counter() - start, steps=epochs * SAMPLES // BATCH)
        start = time.perf_counter()
        for i in range(steps):
            bx, by = batches[i % 8]
            model.train_on_batch(bx, by, return_dict=True)
        _result("steps", seconds=time.perf_counter() - start, steps=steps)


def _result(name: str, **values: float) -> None:
    print("RESULT " + json.dumps({"name": name, **values}), flush=True)


# ----- the driver ------------------------------------------------------------------------------------------------


def ensure_bench_exe() -> Path:
    """The C# benchmark host, compiled with the build's settings when the build did not make it."""
    needed = [BIN / "TfNetTrain.dll", BIN / "Python.Runtime.dll"]
    missing = [p for p in needed if not p.exists()]
    if missing:
        raise SystemExit(f"build first (dotnet/build.sh): missing {', '.join(map(str, missing))}")
    if BENCH_EXE.exists() and BENCH_EXE.stat().st_mtime >= max(BENCH_SOURCE.stat().st_mtime,
                                                               needed[0].stat().st_mtime):
        return BENCH_EXE
    subprocess.run(
        ["mcs", "-nologo", "-langversion:7.2", "-optimize+", "-target:exe", f"-out:{BENCH_EXE}",
         "-r:System.dll", "-r:System.Core.dll", "-r:Facades/netstandard.dll",
         f"-r:{needed[0]}", f"-r:{needed[1]}", str(BENCH_SOURCE)],
        check=True,
    )
    return BENCH_EXE


def _csharp(*args: str) -> list[str]:
    return ["mono", str(ensure_bench_exe()), *args]


def _python(*args: str) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), *args]


def run_results(command: list[str]) -> list[dict]:
    """Run a benchmark process and collect its RESULT lines."""
    proc = subprocess.run(command, capture_output=True, text=True, env=ENV, cwd=ROOT, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr[-3000:]}")
    return [json.loads(line[7:]) for line in proc.stdout.splitlines() if line.startswith("RESULT ")]


def time_to_first_step(command: list[str]) -> tuple[float, list[dict]]:
    """Wall-clock seconds from spawning ``command`` until it prints FIRST_STEP, plus its RESULT lines."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=ENV, cwd=ROOT)
    assert proc.stdout is not None
    elapsed = float("nan")
    lines = []
    for line in proc.stdout:
        if line.strip() == "FIRST_STEP":
            elapsed = time.perf_counter() - start
        lines.append(line)
    proc.wait()
    return elapsed, [json.loads(line[7:]) for line in lines if line.startswith("RESULT ")]


def _median(results: list[dict], name: str, key: str = "seconds") -> float:
    return statistics.median(r[key] for r in results if r["name"] == name)


def _line(label: str, detail: str, ratio: float, target: str) -> None:
    print(f"{label:<22} {detail:<46} ratio {ratio:6.3f}   target {target}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--rss-steps", type=int, default=10000)
    parser.add_argument("--startups", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="one repeat, fewer steps (a smoke run)")
    parser.add_argument("--python-train", nargs=3, type=int, metavar=("REPEATS", "EPOCHS", "STEPS"),
                        help=argparse.SUPPRESS)
    parser.add_argument("--python-startup", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.python_train:
        python_train(*args.python_train)
        return
    if args.python_startup:
        python_startup()
        return
    if args.quick:
        args.repeats, args.epochs, args.steps, args.rss_steps, args.startups = 1, 1, 50, 1000, 1

    print(f"bridge benchmark: MLP {FEATURES}-{HIDDEN}-{CLASSES}, batch {BATCH}, {SAMPLES} samples; "
          f"medians of {args.repeats} (C# and Python in separate processes, one after the other)\n")
    train_args = (str(args.repeats), str(args.epochs), str(args.steps))
    cs_train = run_results(_csharp("train", *train_args))
    py_train = run_results(_python("--python-train", *train_args))
    cs_fit, py_fit = _median(cs_train, "fit"), _median(py_train, "fit")
    fit_steps = args.epochs * SAMPLES // BATCH
    _line("whole fit", f"C# {cs_fit:.3f} s, Python {py_fit:.3f} s ({fit_steps} steps)", py_fit / cs_fit, ">= 0.98")
    cs_steps, py_steps = _median(cs_train, "steps"), _median(py_train, "steps")
    _line("per-step loop", f"C# {1e3 * cs_steps / args.steps:.3f} ms/step, Python "
          f"{1e3 * py_steps / args.steps:.3f} ms/step", py_steps / cs_steps, ">= 0.95")

    print()
    for r in run_results(_csharp("exchange", "7")):
        memcpy = r["memcpy_gbps"]
        print(f"array exchange n={r['n']:<9.0e} memcpy {memcpy:6.1f} GB/s | C#->numpy new {r['to_numpy_new_gbps']:5.1f}"
              f" into {r['to_numpy_existing_gbps']:5.1f} | numpy->C# into {r['from_numpy_into_gbps']:5.1f}"
              f" new {r['from_numpy_new_gbps']:5.1f} GB/s | reuse ratio "
              f"{min(r['to_numpy_existing_gbps'], r['from_numpy_into_gbps']) / memcpy:5.2f}"
              f" new-array ratio {min(r['to_numpy_new_gbps'], r['from_numpy_new_gbps']) / memcpy:5.2f}")
    print(f"{'':<22} target: reuse ratio >= 0.5 from n=1e5 (new arrays are bounded by allocation, see docs)\n")

    cs_start, py_start, disposals = [], [], []
    for _ in range(args.startups):
        seconds, results = time_to_first_step(_csharp("startup"))
        cs_start.append(seconds)
        disposals.extend(r for r in results if r["name"] == "startup")
        py_start.append(time_to_first_step(_python("--python-startup"))[0])
    _line("start to first step", f"C# {min(cs_start):.2f} s, Python {min(py_start):.2f} s (best of {args.startups})",
          min(cs_start) / min(py_start), "<= 1.3")
    dispose = statistics.median(r["dispose_s"] for r in disposals)
    shutdown = statistics.median(r["shutdown_s"] for r in disposals)
    print(f"{'dispose':<22} {dispose * 1e3:.0f} ms (of which Python shutdown {shutdown * 1e3:.0f} ms)"
          f"{'':<8} target < 1000 ms")

    rss = run_results(_csharp("rss", str(args.rss_steps)))[0]
    growth = rss["after_mb"] - rss["before_mb"]
    print(f"{'resident memory':<22} {rss['before_mb']:.0f} MB -> {rss['after_mb']:.0f} MB over {rss['steps']} steps: "
          f"{growth:+.1f} MB ({1e3 * rss['seconds'] / rss['steps']:.3f} ms/step)   target < 50 MB")


if __name__ == "__main__":
    main()
