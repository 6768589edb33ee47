"""The R examples run with Rscript through reticulate on this checkout; what they print is checked against the same
steps computed here in Python.

`make test` installs R and reticulate (`make r`); without Rscript these tests fail, they do not skip.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import keras
import numpy as np
import pytest

import tfnet_train
from tfnet_train.conformance import record
from tfnet_train.conformance.explain import diff_profiles
from tfnet_train.demo import digits_split
from tfnet_train.tolerances import ATOL, allclose

ROOT = Path(__file__).resolve().parents[1]
R_EXAMPLES = ROOT / "interop_examples" / "r"
NUMBER = r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?"
SEED = 0
STEPS = 3
BATCH = 32
EPOCHS = 2


def run_r_example(name: str, *args: str, timeout: float = 600) -> str:
    """Run ``interop_examples/r/<name>`` as its Run: line says; fail with its output if it fails.

    RETICULATE_PYTHON is removed so the script finds <repository>/.venv itself (when there is one); PYTHONPATH puts
    this checkout's sources first."""
    rscript = shutil.which("Rscript")
    if rscript is None:
        pytest.fail("Rscript is not on PATH: `make r` (part of `make test`) installs r-base-core and r-cran-reticulate")
    env = {k: v for k, v in os.environ.items() if k != "RETICULATE_PYTHON"}
    if not (ROOT / ".venv" / "bin" / "python").exists():  # a virtual environment made elsewhere: use this one
        env["RETICULATE_PYTHON"] = sys.executable
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "src"), env.get("PYTHONPATH", "")) if p)
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    proc = subprocess.run([rscript, str(R_EXAMPLES / name), *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env=env)
    assert proc.returncode == 0, f"{name} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def number(pattern: str, text: str) -> float:
    found = re.search(pattern, text, re.M)
    assert found is not None, f"no match for {pattern!r} in:\n{text}"
    return float(found.group(1))


def digits_model(seed: int) -> tfnet_train.Sequential:
    """The R scripts' 64-64-10 classifier, built after seeding Keras the way they do."""
    keras.utils.set_random_seed(seed)
    return tfnet_train.Sequential([keras.Input((64,)), keras.layers.Dense(64, activation="relu"),
                                   keras.layers.Dense(10, activation="softmax")])


def checksum(weights: list[np.ndarray]) -> float:
    return float(sum(np.abs(np.asarray(w, np.float64)).sum() for w in weights))


@pytest.fixture(scope="module")
def one_step_output() -> str:
    return run_r_example("one_training_step.R", "--steps", str(STEPS), "--seed", str(SEED))


@pytest.fixture(scope="module")
def fit_output() -> str:
    return run_r_example("fit_and_trace.R", "--epochs", str(EPOCHS), "--seed", str(SEED))


def test_r_examples_state_how_to_run_them() -> None:
    scripts = sorted(R_EXAMPLES.glob("*.R"))
    assert {p.name for p in scripts} >= {"one_training_step.R", "fit_and_trace.R"}
    for path in scripts:
        head = path.read_text().splitlines()[:5]
        assert any("Run:" in line for line in head), f"{path.name} has no 'Run:' line at its top"


def test_textbook_step_in_r_matches_the_engine(one_step_output: str) -> None:
    out = one_step_output
    x, y, _, _ = digits_split()
    model = digits_model(SEED)
    assert allclose(number(rf"^initial weights checksum \(sum of \|w\|\): ({NUMBER})$", out),
                    checksum(model.get_weights())), "R and Python start from the same seeded weights"
    model.compile(tfnet_train.optimizers.SGD(learning_rate=0.1), "sparse_categorical_crossentropy",
                  metrics=["accuracy"], semantics="keras")
    for step in range(1, STEPS + 1):
        rows = slice((step - 1) * BATCH, step * BATCH)
        loss = model.train_on_batch(x[rows], y[rows], return_dict=True)["loss"]
        line = re.search(rf"^step {step}: loss textbook ({NUMBER})  train_on_batch ({NUMBER})  "
                         rf"train_step_traced ({NUMBER})$", out, re.M)
        assert line is not None, out
        assert allclose([float(v) for v in line.groups()], [loss] * 3), (step, line.groups(), loss)
    final = re.search(rf"^final weights checksum: textbook ({NUMBER})  train_on_batch ({NUMBER})  "
                      rf"train_step_traced ({NUMBER})$", out, re.M)
    assert final is not None, out
    assert allclose([float(v) for v in final.groups()], [checksum(model.get_weights())] * 3)
    for engine in ("train_on_batch", "train_step_traced"):
        gap = number(rf"^weights after {STEPS} steps: max \|textbook - {engine}\| = ({NUMBER})  same$", out)
        assert gap <= ATOL * 10, (engine, gap)
    assert "result: same numbers" in out


def test_wrong_shape_from_r_is_an_r_error_and_the_session_continues(one_step_output: str) -> None:
    out = one_step_output
    x, y, _, _ = digits_split()
    model = digits_model(SEED)
    model.compile(tfnet_train.optimizers.SGD(learning_rate=0.1), "sparse_categorical_crossentropy",
                  metrics=["accuracy"], semantics="keras")
    for step in range(STEPS):
        model.train_on_batch(x[step * BATCH:(step + 1) * BATCH], y[step * BATCH:(step + 1) * BATCH])
    with pytest.raises(ValueError) as raised:
        model.train_on_batch(x[:BATCH, :63], y[:BATCH])
    assert f"wrong shape from R: R error: ValueError: {raised.value}\n" in out, out
    assert "weights unchanged after the error: yes" in out
    logs = model.train_on_batch(x[:BATCH], y[:BATCH], return_dict=True)
    line = re.search(rf"^session continues: train_on_batch loss ({NUMBER}) accuracy ({NUMBER})$", out, re.M)
    assert line is not None, out
    assert allclose([float(v) for v in line.groups()], [logs["loss"], logs["accuracy"]])


def _stage_rows(text: str) -> dict[str, tuple[int, float, float, str]]:
    rows = re.findall(rf"^(\w+)\s+(\d+)\s+({NUMBER})\s+({NUMBER})\s+(pass|FAIL)$", text, re.M)
    return {stage: (int(n), float(a), float(r), verdict) for stage, n, a, r, verdict in rows}


def test_fit_and_trace_from_r_matches_python(fit_output: str) -> None:
    from tfnet_train.demo import stage_table

    out = fit_output
    x, y, x_test, y_test = digits_split()
    initial = digits_model(SEED).get_weights()

    def compiled(semantics: str) -> tfnet_train.Sequential:
        model = tfnet_train.Sequential([keras.Input((64,)), keras.layers.Dense(64, activation="relu"),
                                        keras.layers.Dense(10, activation="softmax")])
        model.set_weights(initial)
        model.compile(tfnet_train.optimizers.SGD(learning_rate=0.1, momentum=0.9, clipnorm=0.5),
                      keras.losses.SparseCategoricalCrossentropy(), metrics=["accuracy"], semantics=semantics)
        return model

    history = {p: compiled(p).fit(x, y, batch_size=BATCH, epochs=EPOCHS, verbose=0, shuffle=False,
                                  validation_data=(x_test, y_test)).history for p in ("keras", "tfnet")}
    rows = re.findall(rf"^\s+(\d+)\s+({NUMBER})\s+({NUMBER})\s+({NUMBER})\s+({NUMBER})$", out, re.M)
    assert [int(r[0]) for r in rows] == list(range(1, EPOCHS + 1)), out
    printed = np.array([[float(v) for v in r[1:]] for r in rows])
    assert allclose(printed[:, :2], np.array([history["keras"]["loss"], history["tfnet"]["loss"]]).T)
    accuracy = np.array([history["keras"]["val_accuracy"], history["tfnet"]["val_accuracy"]]).T
    assert np.all(np.abs(printed[:, 2:] - accuracy) <= 5e-5 + 1e-9), (printed, accuracy)
    assert out.count(f"Epoch {EPOCHS}/{EPOCHS}") == 2, "fit showed its progress bar under both profiles"

    with tempfile.TemporaryDirectory() as folder:
        case = record(compiled("keras"), x, y, 1, Path(folder) / "digits_first_step.json", batch_size=BATCH)
        expected = _stage_rows(stage_table(diff_profiles(case, "keras", "tfnet", implementation="engine").comparison))
    got = _stage_rows(out)
    assert list(got) == list(expected), (list(got), list(expected))
    for stage, (n, max_abs, max_rel, verdict) in expected.items():
        # printed with four significant digits: compare at that precision
        assert got[stage][0] == n and got[stage][3] == verdict, (stage, got[stage], expected[stage])
        assert np.allclose(got[stage][1:3], (max_abs, max_rel), rtol=5e-3, atol=ATOL), (stage, got[stage])
    assert [s for s, row in got.items() if row[3] == "FAIL"][0] == "clipped_gradients"
    assert "clipnorm changes nothing under tfnet" in out
    assert "result: the profiles part on one step" in out
