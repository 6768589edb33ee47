"""The demo's Python side: the digits split, the conformance case and report it produces, and its launcher."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_digits

from tfnet_train import demo
from tfnet_train.conformance.engine_runner import run_engine
from tfnet_train.engine.trace import STAGES


def test_digits_split_is_fixed_stratified_and_complete() -> None:
    x_train, y_train, x_test, y_test = demo.digits_split(test_fraction=0.25, seed=0)
    assert x_train.shape == (1347, 64) and x_test.shape == (450, 64)
    assert x_train.dtype == np.float32 and y_train.dtype == np.int32
    assert all(a.flags.c_contiguous for a in (x_train, y_train, x_test, y_test))
    assert 0.0 <= x_train.min() and x_train.max() <= 1.0
    digits = load_digits()
    every_image = np.concatenate([x_train, x_test]) * 16.0
    assert np.array_equal(np.sort(every_image, axis=0), np.sort(digits.data, axis=0))
    assert set(np.unique(y_test)) == set(range(10))
    again = demo.digits_split(test_fraction=0.25, seed=0)
    assert np.array_equal(again[0], x_train) and np.array_equal(again[3], y_test)
    other = demo.digits_split(test_fraction=0.25, seed=1)
    assert not np.array_equal(other[0], x_train)


@pytest.mark.parametrize("fraction", [0.0, 1.0, -0.5])
def test_digits_split_rejects_bad_fraction(fraction: float) -> None:
    with pytest.raises(ValueError, match="test_fraction must be between 0 and 1"):
        demo.digits_split(test_fraction=fraction)


def _digits_model() -> object:
    import keras

    import tfnet_train

    keras.utils.set_random_seed(0)
    model = tfnet_train.Sequential([keras.Input((64,)), keras.layers.Dense(16, activation="relu"),
                                    keras.layers.Dense(10)])
    model.compile(tfnet_train.optimizers.Adam(learning_rate=0.005),
                  keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    return model


def _write_other_traces(traces: list[dict[str, np.ndarray]], path: Path) -> None:
    """Traces in the C# reference's npz layout (step<i>/<key>)."""
    np.savez(path, **{f"step{i}/{k}": v for i, trace in enumerate(traces) for k, v in trace.items()})


def test_record_first_steps_writes_a_case_of_the_first_batches(tmp_path: Path) -> None:
    x, y, _, _ = demo.digits_split()
    model = _digits_model()
    path = demo.record_first_steps(model, x, y, steps=3, batch_size=8, directory=tmp_path)
    case = json.loads(open(path).read())
    assert case["steps"] == 3 and case["batch_size"] == 8
    assert [layer["units"] for layer in case["model"]["layers"]] == [16, 10]
    with np.load(path.replace(".json", ".npz")) as arrays:
        assert np.array_equal(arrays["x"], x[:24])
        assert np.array_equal(arrays["weights/0"], model.get_weights()[0])
    with pytest.raises(ValueError, match="at least steps \\* batch_size = 4000 rows"):
        demo.record_first_steps(model, x, y, steps=4, batch_size=1000, directory=tmp_path)


def test_conformance_report_passes_on_agreeing_traces_and_names_a_planted_divergence(tmp_path: Path) -> None:
    from tfnet_train.conformance import load

    x, y, _, _ = demo.digits_split()
    path = demo.record_first_steps(_digits_model(), x, y, steps=2, batch_size=8, directory=tmp_path / "case")
    traces = run_engine(load(path))  # a second, independent run of the engine stands in for the C# side

    _write_other_traces(traces, tmp_path / "same.npz")
    report = demo.conformance_report(path, tmp_path / "same.npz", 0.01, tmp_path / "pass")
    assert report["passed"] is True
    for stage in STAGES:
        assert f"\n{stage} " in report["table"], stage
    assert report["table"].rstrip().endswith("verdict: PASS")
    saved = json.loads(open(report["json"]).read())
    assert saved["passed"] is True
    assert "digits_first_steps" in open(report["html"]).read()

    traces[1]["gradients/2"] = traces[1]["gradients/2"] + np.float32(1e-3)
    _write_other_traces(traces, tmp_path / "planted.npz")
    report = demo.conformance_report(path, tmp_path / "planted.npz", 0.01, tmp_path / "fail")
    assert report["passed"] is False
    assert "first divergence: step 1, stage gradients, gradients/2" in report["table"]
    assert report["table"].rstrip().endswith("verdict: FAIL")


def test_launcher_says_how_to_build_when_the_demo_is_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(demo.DOTNET_BIN_ENV, str(tmp_path))
    assert demo.main(["--epochs", "1"]) == 2
    err = capsys.readouterr().err
    assert str(tmp_path / demo.DEMO_EXE) in err and "make build" in err


def test_make_demo_entry_point_trains_compares_and_reports(dotnet_bin: Path, tmp_path: Path) -> None:
    """`python -m tfnet_train.demo` (what `make demo` runs) with fewer epochs."""
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    env.setdefault(demo.DOTNET_BIN_ENV, str(dotnet_bin))
    report_dir = tmp_path / "report"
    proc = subprocess.run([sys.executable, "-m", "tfnet_train.demo", "--epochs", "10", "--report-dir", str(report_dir)],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)
    out = proc.stdout
    assert proc.returncode == 0, f"demo exited {proc.returncode}\n{out}\n{proc.stderr[-3000:]}"
    assert "1797 handwritten 8x8 digits from scikit-learn: 1347 for training, 450 for testing" in out
    epochs = re.findall(r"^epoch\s+\d+/10 \[#{30}\] 43/43  loss (\S+)  accuracy (\S+)", out, re.M)
    assert len(epochs) == 10, "the C# progress bar ends every epoch with a full bar"
    assert float(epochs[-1][0]) < float(epochs[0][0])
    accuracy = float(re.search(r"^test accuracy: (\S+) .* reached$", out, re.M).group(1))
    assert accuracy >= 0.95
    for stage in STAGES:
        assert re.search(rf"^{stage}\s+\d+\s+\S+\s+\S+\s+pass$", out, re.M), f"no passing row for {stage}"
    assert "verdict: PASS" in out
    html = Path(re.search(r"^report: (\S+)$", out, re.M).group(1))
    assert html == report_dir / "index.html" and html.is_file()
    report = json.loads((report_dir / "report.json").read_text())
    assert report["passed"] is True
    assert [c["name"] for c in report["cases"]] == [demo.CASE_NAME]
    curves = Path(re.search(r"^curves: (\S+)$", out, re.M).group(1))
    assert curves == report_dir / demo.CURVES_FILE and curves.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f'<a href="{demo.CURVES_FILE}">' in html.read_text()
    assert report["links"][0]["href"] == demo.CURVES_FILE
    assert re.search(r"^demo passed in [\d.]+s$", out, re.M)


def test_training_curves_draw_loss_and_accuracy_per_epoch(tmp_path: Path) -> None:
    from matplotlib.image import imread

    history = {"loss": [1.2, 0.6, 0.4], "accuracy": [0.5, 0.8, 0.9], "val_loss": [1.0, 0.7, 0.6],
               "val_accuracy": [0.6, 0.7, 0.8]}
    path = Path(demo.write_training_curves(history, tmp_path / "r"))
    assert path == (tmp_path / "r" / demo.CURVES_FILE).resolve()
    image = imread(path)
    assert image.shape[:2] == (306, 810)  # 9 x 3.4 inches at 90 dpi: the two panels
    assert [p.name for p in path.parent.iterdir()] == [demo.CURVES_FILE]  # no partial file left
    loss_only = Path(demo.write_training_curves({"loss": [1.0, 0.5]}, tmp_path / "l"))
    assert imread(loss_only).shape[:2] == (306, 810)


@pytest.mark.parametrize("history", [{}, {"accuracy": [0.5]}, {"loss": [1.0, 0.5], "val_loss": [1.0]}])
def test_training_curves_refuse_histories_without_one_loss_per_epoch(tmp_path: Path, history: dict) -> None:
    with pytest.raises(ValueError, match="history must"):
        demo.write_training_curves(history, tmp_path)
    assert not (tmp_path / demo.CURVES_FILE).exists()


def test_conformance_report_links_the_curves_beside_it(tmp_path: Path) -> None:
    from tfnet_train.conformance.report import document_html

    page = document_html({"schema": "x", "suite": "s", "implementations": ["a"], "baseline": "a", "passed": True,
                          "tolerance_rule": "r", "summary": {"cases": 0, "pass": 0, "fail": 0, "error": 0, "n/a": 0},
                          "cases": [], "links": [{"href": "c.png", "text": "curves <1>", "image": True}]})
    assert '<a href="c.png">curves &lt;1&gt;</a>' in page and '<img src="c.png"' in page
