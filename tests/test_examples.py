"""Every interop example runs as a user would run it (shortened where it trains); its printed results are checked."""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
from sklearn.datasets import load_digits

from tfnet_train.tolerances import allclose

ROOT = Path(__file__).resolve().parents[1]
PY_EXAMPLES = ROOT / "interop_examples" / "python"
NUMBER = r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?"


def run_python_example(name: str, *args: str, timeout: float = 240) -> str:
    """Run ``interop_examples/python/<name>`` with the project's interpreter; fail with its output if it fails."""
    proc = subprocess.run(
        [sys.executable, str(PY_EXAMPLES / name), *args],
        capture_output=True, text=True, timeout=timeout, cwd=ROOT,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
    )
    assert proc.returncode == 0, f"{name} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def test_examples_state_how_to_run_them() -> None:
    for path in sorted((ROOT / "interop_examples").rglob("*")):
        if path.suffix in (".py", ".cs"):
            head = path.read_text().splitlines()[:12]
            assert any("Run:" in line for line in head), f"{path.name} has no 'Run:' line at its top"


def test_one_training_step_matches_textbook_step() -> None:
    out = run_python_example("one_training_step.py")
    labels = load_digits().target[:8].tolist()
    assert f"labels {labels}" in out
    loss = float(re.search(rf"sparse categorical cross-entropy: ({NUMBER})", out).group(1))
    assert abs(loss - math.log(10)) < 0.5, "a fresh 10-class network starts near chance level"
    assert "update w - 0.1 * g applied: yes" in out
    for stage in ("predictions", "loss", "gradients", "weights after update"):
        assert re.search(rf"^{stage}\s+max \|engine - textbook\| = {NUMBER}\s+same$", out, re.M), stage
    engine_loss = float(re.search(rf"engine step 0: loss ({NUMBER})", out).group(1))
    assert allclose(engine_loss, loss)
    assert "result: same numbers" in out


def test_custom_loop_matches_fit() -> None:
    out = run_python_example("custom_loop_vs_fit.py", "--epochs", "2")
    rows = {
        kind: [(float(a), float(b)) for a, b in re.findall(
            rf"^{kind}\s+epoch \d+: loss ({NUMBER})\s+accuracy ({NUMBER})$", out, re.M)]
        for kind in ("loop", "fit")
    }
    assert len(rows["loop"]) == len(rows["fit"]) == 2
    assert allclose(np.array(rows["fit"]), np.array(rows["loop"]))
    assert rows["loop"][1][0] < rows["loop"][0][0], "loss falls from epoch 1 to epoch 2"
    assert "logs per epoch: same" in out
    assert "final weights: same" in out
    assert "result: same weights and logs" in out


def test_xor_profiles_locates_the_divergence() -> None:
    out = run_python_example("xor_profiles.py", "--epochs", "30")
    solved = dict(re.findall(r"^(keras|tfnet): predictions .* -> (XOR solved|XOR NOT solved)", out, re.M))
    final = {k: float(v) for k, v in re.findall(rf"^(keras|tfnet): predictions .*final loss ({NUMBER})\)$", out, re.M)}
    assert solved["keras"] == "XOR solved"
    assert final["keras"] < 0.01 < final["tfnet"], final
    rows = re.findall(rf"^\s+(\d+)\s+({NUMBER})\s+({NUMBER})$", out, re.M)
    assert rows[0][1] == rows[0][2], "both profiles start from the same weights and batch"
    divergence = re.search(r"first divergence: step (\d+), stage (\w+), (\S+)", out)
    assert divergence is not None, out
    assert divergence.group(2) == "clipped_gradients"
    assert 0 < int(divergence.group(1)) < 10, "the recorded steps hold the divergence, after some identical steps"
    reason = re.search(r"explained by .*clipped_gradients.*\n\s+- (.*)", out)
    assert reason is not None, out
    assert "clipnorm" in reason.group(1) and "OptimizerV2.cs" in reason.group(1)


# ----- C# examples (built into dotnet/bin by dotnet/build.sh) -----------------------------------------------------

def run_csharp_example(dotnet_bin: Path, name: str, *args: str, timeout: float = 300) -> str:
    """Run ``dotnet/bin/<name>.exe`` on Mono (or from $TFNET_TRAIN_DOTNET_BIN) embedding this test's venv."""
    folder = Path(os.environ.get("TFNET_TRAIN_DOTNET_BIN", dotnet_bin))
    exe = folder / f"{name}.exe"
    assert exe.is_file(), f"{exe} missing: build with `make build` (dotnet/build.sh)"
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    if sys.prefix != sys.base_prefix:
        env["TFNET_TRAIN_VENV"] = sys.prefix
    proc = subprocess.run(["mono", "--debug", str(exe), *args], capture_output=True, text=True, timeout=timeout,
                          cwd=folder, env=env)
    assert proc.returncode == 0, f"{name} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr[-3000:]}"
    return proc.stdout


def test_csharp_digits_training(dotnet_bin: Path) -> None:
    from tfnet_train.demo import digits_split

    out = run_csharp_example(dotnet_bin, "DigitsTraining", "--epochs", "3")
    epochs = [(float(a), float(b)) for a, b in re.findall(
        rf"^epoch \d+/3: loss ({NUMBER})\s+accuracy ({NUMBER})$", out, re.M)]
    assert len(epochs) == 3, "the C# callback prints every epoch"
    assert epochs[2][0] < epochs[0][0]
    test_accuracy = float(re.search(rf"^test: loss {NUMBER}\s+accuracy ({NUMBER})$", out, re.M).group(1))
    assert test_accuracy > 0.85
    shown = [(int(a), int(b)) for a, b in re.findall(r"^test image \d+: label (\d), predicted (\d)$", out, re.M)]
    assert [label for label, _ in shown] == digits_split()[3][:5].tolist()
    assert "loaded into a new model: identical predictions" in out


def test_csharp_step_parity(dotnet_bin: Path) -> None:
    out = run_csharp_example(dotnet_bin, "StepParity", "--steps", "2")
    assert "tolerance: |C# - Python| <= 1e-06 + 1e-05 * |Python|" in out
    losses = [(float(a), float(b)) for a, b in re.findall(rf"^step \d+: loss C# ({NUMBER})\s+Python ({NUMBER})$",
                                                          out, re.M)]
    assert len(losses) == 2 and losses[1][0] < losses[0][0], "the second step starts from the updated weights"
    stages = re.findall(r"^\s+(\w+)\s+max \|C# - Python\| = \S+\s+(\w+)$", out, re.M)
    assert [s for s, _ in stages] == ["y_pred", "loss", "gradients", "weights"] * 2
    assert all(verdict == "match" for _, verdict in stages), stages
    assert "result: the C# numbers match the Python engine at every stage of 2 steps" in out


def test_csharp_custom_loop_stops_early(dotnet_bin: Path) -> None:
    out = run_csharp_example(dotnet_bin, "CustomLoop", "--max-epochs", "12", "--target", "0.93")
    epochs = re.findall(rf"^epoch (\d+): train loss ({NUMBER})\s+test loss {NUMBER}\s+test accuracy ({NUMBER})$",
                        out, re.M)
    stop = re.search(r"^stopped early after epoch (\d+) of 12: (.*)$", out, re.M)
    assert stop is not None, out
    assert int(stop.group(1)) == len(epochs) < 12
    assert float(epochs[-1][2]) >= 0.93 and "target" in stop.group(2)
    assert all(float(acc) < 0.93 for _, _, acc in epochs[:-1]), "it stops at the first epoch that reaches the target"
    steps = re.search(r"^steps: (\d+) in C#, model.TrainCounter (\d+)$", out, re.M)
    assert steps.group(1) == steps.group(2) == str(len(epochs) * 43), "43 batches of 32 per epoch"


def test_csharp_tfnet_mnist_mlp(dotnet_bin: Path) -> None:
    out = run_csharp_example(dotnet_bin, "TfNetMnistMlp", "--epochs", "3")
    assert "dense (Dense)" in out and "Total params: 4,810" in out, "model.summary() prints Keras's table"
    epochs = [float(v) for v in re.findall(rf"^epoch \d+/3: loss ({NUMBER})", out, re.M)]
    assert len(epochs) == 3 and epochs[2] < epochs[0]
    test_accuracy = float(re.search(rf"^test: loss {NUMBER}\s+accuracy ({NUMBER})$", out, re.M).group(1))
    predict_accuracy = float(re.search(rf"^predict: \d+/450 correct, accuracy ({NUMBER})$", out, re.M).group(1))
    assert test_accuracy > 0.85
    assert predict_accuracy == test_accuracy, "tf.argmax over model.predict agrees with evaluate's accuracy"


def test_csharp_tfnet_gradient_tape_loop(dotnet_bin: Path) -> None:
    out = run_csharp_example(dotnet_bin, "TfNetGradientTape", "--epochs", "3")
    rows = [(float(a), float(b)) for a, b in re.findall(
        rf"^epoch \d+/3: mean loss ({NUMBER})\s+accuracy ({NUMBER})$", out, re.M)]
    assert len(rows) == 3
    assert rows[2][0] < rows[1][0] < rows[0][0], "the tape's gradients lower the loss every epoch"
    assert rows[2][1] > rows[0][1], "the metric object is reset per epoch and rises"
    argmax, metric = (float(v) for v in re.search(
        rf"^test: accuracy ({NUMBER}) \(argmax\), ({NUMBER}) \(metric object\)$", out, re.M).groups())
    assert argmax == metric and argmax > 0.85
