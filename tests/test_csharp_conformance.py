"""TfNetTrain.Conformance.exe: the conformance suite run from C# (a front over Python's runner in the embedded
interpreter: the Python engine against the in-process C# reference), its table, report.json and HTML page, planted
divergences in trace files found where they were planted, and cases recorded from a live bridged model with
``CaseRecorder.Record`` (one call to ``tfnet_train.conformance.record.record``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from test_conformance_render import assert_page_references_existing_pngs

from tfnet_train.conformance.case import load
from tfnet_train.conformance.compare import Divergence
from tfnet_train.conformance.engine_runner import engine_model
from tfnet_train.conformance.numpy_reference import run_numpy
from tfnet_train.conformance.record import record
from tfnet_train.conformance.report import REPORT_SCHEMA, to_json
from tfnet_train.conformance.runner import case_paths, run_suite
from tfnet_train.engine.trace import STAGES
from tfnet_train.tolerances import ATOL, RTOL, assert_close

ROOT = Path(__file__).resolve().parents[1]
DOTNET_BIN = ROOT / "dotnet" / "bin"
EXE = "TfNetTrain.Conformance.exe"
PLANT_CASE = "keras_relu_mse_sgd"
SAME_AS_PYTHON = "keras_relu_mse_sgd*"  # three small cases, also run by the Python runner below


def run_exe(dotnet_bin: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(["mono", str(dotnet_bin / EXE), *args], capture_output=True, text=True, timeout=timeout,
                          cwd=ROOT, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})


@pytest.fixture(scope="module")
def default_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess, dict, Path]:
    """The whole default suite, engine against csharp, with a report (document and folder)."""
    if not (DOTNET_BIN / EXE).exists():
        raise RuntimeError(f"{EXE} missing in {DOTNET_BIN}: run `PYTHON=.venv/bin/python bash dotnet/build.sh`")
    report = tmp_path_factory.mktemp("report")
    proc = run_exe(DOTNET_BIN, "run", "--suite", "default", "--impl", "engine,csharp", "--report", str(report))
    assert (report / "report.json").is_file(), proc.stdout + proc.stderr
    return proc, json.loads((report / "report.json").read_text()), report


def _without_timing(case: dict) -> dict:
    return {**case, "plots": None, "runs": [{**run, "seconds": 0} for run in case["runs"]]}


def test_default_suite_passes_engine_against_csharp(default_run) -> None:
    proc, doc, _ = default_run
    assert proc.returncode == 0, proc.stdout + proc.stderr
    names = [p.stem for p in case_paths("default")]
    models = {name for name in names if load(case_paths("default", name)[0]).has_keras_model}
    assert len(models) == 2  # the conv and LSTM cases: the C# reference runs the Dense form only
    assert doc["schema"] == REPORT_SCHEMA and doc["passed"] is True
    assert (doc["implementations"], doc["baseline"]) == (["engine", "csharp"], "csharp")
    assert Path(doc["suite"]).resolve() == case_paths("default")[0].parent.resolve()
    assert doc["summary"] == {"cases": len(names), "pass": len(names) - 2, "fail": 0, "error": 0, "n/a": 2}
    assert [c["name"] for c in doc["cases"]] == names
    for case in doc["cases"]:
        loaded = load(case_paths("default", case["name"])[0])
        assert case["passed"] is True and case["error"] is None, case["name"]
        assert case["tolerance"] == {"rtol": loaded.tolerance.rtol, "atol": loaded.tolerance.atol}
        if case["name"] in models:
            layer = loaded.model.top_layers()[1]
            message = f"layer {layer[0]} ({layer[1]}) is not implemented by the C# reference"
            assert [(r["implementation"], r["status"], r["message"]) for r in case["runs"]] == [
                ("engine", "ok", ""), ("csharp", "n/a", message)]
            (pair,) = case["pairs"]
            assert (pair["a"], pair["b"], pair["verdict"], pair["message"]) == (
                "csharp", "engine", "n/a", f"csharp: {message}")
            continue
        assert [(r["implementation"], r["status"], len(r["losses"])) for r in case["runs"]] == [
            ("engine", "ok", loaded.steps), ("csharp", "ok", loaded.steps)]
        (pair,) = case["pairs"]
        assert (pair["a"], pair["b"], pair["verdict"], pair["first_divergence"]) == ("engine", "csharp", "pass", None)
        stages = [s["stage"] for s in pair["stages"]]
        assert stages == [s for s in STAGES if s in stages] and {"loss", "gradients", "weights"} <= set(stages)
        assert pair["steps_compared"] == loaded.steps
        assert pair["values_compared"] == sum(s["compared"] for s in pair["stages"]) > 0
        assert all(s["passed"] for s in pair["stages"]) and pair["only_in_a"] == pair["only_in_b"] == []
    rows = [line for line in proc.stdout.splitlines() if " engine vs csharp " in line]
    assert len(rows) == len(names) - 2 and all(" PASS" in row for row in rows)
    assert sum(" csharp vs engine  N/A " in line for line in proc.stdout.splitlines()) == 2
    assert (f"{len(names)} cases, baseline csharp: {len(names) - 2} pass, 0 fail, 0 error, 2 n/a -> PASSED"
            in proc.stdout)


def test_csharp_report_equals_the_python_runners_report(default_run) -> None:
    """Same cases, same implementations: the Python runner's comparison and report agree with the C# ones."""
    _, doc, _ = default_run
    python = to_json(run_suite("default", ["engine", "csharp"], case=SAME_AS_PYTHON))
    expected = [_without_timing(c) for c in python["cases"]]
    actual = [_without_timing(c) for c in doc["cases"] if c["name"] in {e["name"] for e in expected}]
    assert len(expected) == 3 and actual == expected


def test_csharp_run_writes_the_html_page_with_a_section_and_plots_per_case(default_run) -> None:
    proc, doc, report = default_run
    assert f"report: {report / 'report.json'} and {report / 'index.html'}" in proc.stdout
    outline = assert_page_references_existing_pngs(report)
    names = [c["name"] for c in doc["cases"]]
    assert outline.sections == names and len(outline.images) == 2 * len(names)
    for case in doc["cases"]:
        assert case["plots"] == {"loss": f"plots/{case['name']}_loss.png", "errors": f"plots/{case['name']}_errors.png"}
        assert {(report / src).is_file() for src in case["plots"].values()} == {True}


def test_without_python_the_front_says_why_and_writes_nothing(dotnet_bin: Path, tmp_path: Path) -> None:
    proc = subprocess.run(["mono", str(dotnet_bin / EXE), "run", "--suite", str(case_paths("default")[0]),
                           "--report", str(tmp_path / "report")],
                          capture_output=True, text=True, timeout=300, cwd=ROOT,
                          env={**os.environ, "TFNET_TRAIN_VENV": str(tmp_path / "no_venv")})
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "TfNetTrain.Conformance: Python did not start: TfNetTrainStartupException: TFNET_TRAIN_VENV" \
        in proc.stderr
    assert not (tmp_path / "report").exists()


def _write_traces(traces: list[dict[str, np.ndarray]], folder: Path) -> None:
    folder.mkdir()
    np.savez(folder / f"{PLANT_CASE}.npz",
             **{f"step{i}/{key}": value for i, trace in enumerate(traces) for key, value in trace.items()})


def test_planted_divergences_are_reported_where_they_were_planted(dotnet_bin: Path, tmp_path: Path) -> None:
    case = load(case_paths("default", PLANT_CASE)[0])
    honest = run_numpy(case)
    grad = [dict(t) for t in honest]
    grad[1]["gradients/2"] = grad[1]["gradients/2"].copy()
    grad[1]["gradients/2"].flat[3] += 1e-3
    lr = run_numpy(case.with_optimizer(learning_rate=case.optimizer["learning_rate"] * 3))
    short = honest[:-1]
    shape = [dict(t) for t in honest]
    shape[0]["y_pred/0"] = shape[0]["y_pred/0"].reshape(-1)
    for name, traces in (("grad", grad), ("lr", lr), ("short", short), ("shape", shape)):
        _write_traces(traces, tmp_path / name)
    suite = tmp_path / "suite"
    suite.mkdir()
    for suffix in (".json", ".npz"):
        shutil.copy(case.path.with_suffix(suffix), suite)
    broken = {**case.to_json(), "name": "broken", "schema": "tfnet-train/case@0"}
    (suite / "broken.json").write_text(json.dumps(broken))
    impl = ",".join(["engine", "csharp"] + [f"{n}={tmp_path / n}" for n in ("grad", "lr", "short", "shape")])
    proc = run_exe(dotnet_bin, "run", "--suite", str(suite), "--impl", impl, "--report", str(tmp_path / "report"))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    doc = json.loads((tmp_path / "report" / "report.json").read_text())
    outline = assert_page_references_existing_pngs(tmp_path / "report")
    assert outline.sections == ["broken", PLANT_CASE] and len(outline.images) == 2  # a case that did not load: none
    assert doc["passed"] is False and doc["summary"] == {"cases": 2, "pass": 1, "fail": 4, "error": 1, "n/a": 0}
    failed_load, planted = doc["cases"]
    assert failed_load["name"] == "broken" and failed_load["passed"] is False and failed_load["pairs"] == []
    assert "schema" in failed_load["error"] and "tfnet-train/case@0" in failed_load["error"]
    pairs = {p["a"]: p for p in planted["pairs"]}
    assert pairs["engine"]["verdict"] == "pass"
    assert "2 cases, baseline csharp: 1 pass, 4 fail, 1 error, 0 n/a -> FAILED" in proc.stdout

    d = pairs["grad"]["first_divergence"]
    assert (d["step"], d["stage"], d["key"], d["reason"], d["index"], d["position"]) == (
        1, "gradients", "gradients/2", "value", 3, [3, 0])
    assert d["a"] == float(grad[1]["gradients/2"].flat[3])
    assert_close(d["b"], honest[1]["gradients/2"].flat[3], what="baseline value at the planted index")
    assert d["abs_error"] > d["allowed"] == pytest.approx(ATOL + RTOL * abs(d["b"]))
    described = Divergence(**{**d, "position": tuple(d["position"])}).describe("grad", "csharp")
    assert pairs["grad"]["message"] == described and described in proc.stdout

    d = pairs["lr"]["first_divergence"]
    assert (d["step"], d["stage"], d["key"], d["reason"]) == (0, "weights", "weights/0", "value")
    assert d["a"] == float(lr[0]["weights/0"].flat[d["index"]]) and d["abs_error"] > d["allowed"]

    d = pairs["short"]["first_divergence"]
    assert (d["step"], d["stage"], d["key"], d["reason"]) == (case.steps - 1, "steps", "", "missing_step")
    assert d["detail"] == f"short has {case.steps - 1} steps, the other {case.steps}"

    d = pairs["shape"]["first_divergence"]
    assert (d["step"], d["stage"], d["key"], d["reason"]) == (0, "y_pred", "y_pred/0", "shape")
    assert d["detail"] == f"shape ({case.batch_size},) in shape vs ({case.batch_size}, 1) in csharp"


def test_list_and_bad_arguments(dotnet_bin: Path) -> None:
    folder = case_paths("default")[0].parent
    listed = run_exe(dotnet_bin, "list", "--suite", str(folder))
    assert listed.returncode == 0, listed.stderr
    assert [line.split()[0] for line in listed.stdout.splitlines()] == [p.stem for p in case_paths("default")]
    for args, message in (
        (["run", "--suite", str(folder), "--impl", "engine"], "need at least two to compare"),
        (["run", "--suite", str(folder), "--impl", "engine,tfnet"], "implementation must be one of"),
        (["run", "--suite", str(folder), "--case", "no_such_case"], "case must name a case of the suite"),
        (["run", "--suite", str(folder / "missing")], "suite must be 'default', a folder of cases"),
        (["run", "--suite", str(folder), "--baseline", "keras"], "baseline must be one of the implementations"),
        (["run", "--frobnicate"], "unrecognized arguments: --frobnicate"),
    ):
        proc = run_exe(dotnet_bin, *args)
        assert proc.returncode == 2 and message in proc.stderr, (args, proc.stderr)


RECORDER = r"""
using System;
using TfNetTrain;
using TfNetTrain.Conformance;
using Reference = TfNetTrain.Reference;

public static class RecordFromCSharp
{
    static Model Compiled(string semantics, params LayerSpec[] layers)
    {
        var model = Keras.Sequential(layers);
        model.Compile(Optimizers.Adam(0.02f, clipNorm: 0.5f), Losses.BinaryCrossentropy(), new[] { "acc", "mae" },
                      semantics: semantics);
        return model;
    }

    // Fixed starting weights: the recorded numbers, and how well-conditioned each step is, are the same every run.
    static void FixWeights(Model model)
    {
        var weights = model.GetWeights();
        foreach (var w in weights)
        {
            float[] d = w.GetData<float>();
            for (int i = 0; i < d.Length; i++) d[i] = (float)Math.Sin(0.7 * i + d.Length);
        }
        model.SetWeights(weights);
    }

    static void Fail(string what, Action record)
    {
        try { record(); Console.WriteLine(what + ": no error"); }
        catch (TfNetTrainArgumentException e) { Console.WriteLine(what + ": " + e.PythonMessage); }
    }

    public static int Main(string[] args)
    {
        using (var python = PythonRuntime.Start())
        {
            int n = 12;
            var x = new float[n * 3]; var y = new double[n]; var sw = new float[n];
            for (int i = 0; i < n; i++)
            {
                for (int j = 0; j < 3; j++) x[i * 3 + j] = (float)Math.Cos(i + 0.5 * j);
                y[i] = x[i * 3] > 0 ? 1 : 0;
                sw[i] = 0.5f + i / 12f;
            }
            NDArray nx = new NDArray(x, n, 3), ny = new NDArray(y), nsw = new NDArray(sw);
            foreach (string semantics in new[] { "keras", "tfnet" })
            {
                var model = Compiled(semantics, Layers.Input(3), Layers.Dense(5, activation: "tanh"),
                                     Layers.Dense(1, activation: "sigmoid"));
                FixWeights(model);
                string path = args[0] + "/" + semantics + "_case.json";
                var c = CaseRecorder.Record(model, nx, ny, 3, 4, path, nsw);
                Console.WriteLine("recorded " + c.Name + ": " + c.Steps + " steps of " + c.BatchSize);
            }
            // A conv net with BatchNormalization and Dropout: written as its Keras config, all weights included.
            var images = new float[n * 36];
            for (int i = 0; i < images.Length; i++) images[i] = (float)Math.Sin(0.37 * i);
            var conv = Keras.Sequential(Layers.Input(6, 6, 1), Layers.Conv2D(2, 3, activation: "relu", name: "conv"),
                                        Layers.BatchNormalization(name: "norm"), Layers.Dropout(0.25f, name: "drop"),
                                        Layers.Flatten(), Layers.Dense(1, activation: "sigmoid"));
            conv.Compile(Optimizers.SGD(0.1f, momentum: 0.5f), Losses.BinaryCrossentropy(), new[] { "acc" });
            FixWeights(conv);
            var pixels = new NDArray(images, n, 6, 6, 1);
            var recordedConv = CaseRecorder.Record(conv, pixels, ny, 3, 4, args[0] + "/conv_case");
            Console.WriteLine("recorded " + recordedConv.Name + ": " + recordedConv.UnsupportedLayer + ", " +
                              recordedConv.Weights.Count + " weights");
            try { new Reference.ReferenceTrainer(recordedConv); Console.WriteLine("conv trainer: no error"); }
            catch (Reference.UnsupportedModelException e) { Console.WriteLine("conv trainer: " + e.Message); }
            var l2 = Compiled("keras", Layers.Input(3),
                              Layers.Dense(4, activation: "relu", kernelRegularizer: Regularizers.L2(0.05f)),
                              Layers.Dense(1, activation: "sigmoid"));
            FixWeights(l2);
            Console.WriteLine("recorded " + CaseRecorder.Record(l2, nx, ny, 2, 6, args[0] + "/l2_case").Name);
            Fail("l1", () => CaseRecorder.Record(Compiled("keras", Layers.Input(3),
                Layers.Dense(1, kernelRegularizer: Regularizers.L1(0.1f))), nx, ny, 3, 4, args[0] + "/l1_case"));
            Fail("bias", () => CaseRecorder.Record(Compiled("keras", Layers.Input(3),
                Layers.Dense(1, biasRegularizer: Regularizers.L2(0.1f))), nx, ny, 3, 4, args[0] + "/bias_case"));
            var used = Compiled("keras", Layers.Input(3), Layers.Dense(1, activation: "sigmoid"));
            used.TrainOnBatch(nx, ny);
            Fail("used", () => CaseRecorder.Record(used, nx, ny, 3, 4, args[0] + "/never"));
            Fail("rows", () => CaseRecorder.Record(Compiled("keras", Layers.Input(3), Layers.Dense(1)), nx, ny, 4, 4,
                args[0] + "/never"));
            // A host with Python running calls the runner in its own runtime, which stays running.
            int status = Program.Main(new[] { "run", "--suite", args[0] + "/keras_case.json",
                                              "--impl", "engine,numpy,csharp" });
            Console.WriteLine("runner status " + status + ", runtime running: " + (PythonRuntime.Current == python));
            var after = Compiled("keras", Layers.Input(3), Layers.Dense(1));
            Console.WriteLine("after the runner: " + after.GetWeights().Count + " weights");
        }
        return 0;
    }
}
"""


def _compile_recorder(dotnet_bin: Path, folder: Path) -> Path:
    source = folder / "RecordFromCSharp.cs"
    source.write_text(RECORDER)
    facades = Path(shutil.which("mono")).resolve().parent.parent / "lib" / "mono" / "4.5" / "Facades"
    exe = folder / "RecordFromCSharp.exe"
    refs = [f"-r:{dotnet_bin / name}" for name in (
        "Python.Runtime.dll", "TfNetTrain.dll", "TfNetTrain.Reference.dll", "TfNetTrain.Conformance.exe")]
    proc = subprocess.run(["mcs", "-nologo", "-langversion:7.2", "-target:exe", f"-out:{exe}", "-r:System.dll",
                           "-r:System.Core.dll", f"-r:{facades / 'netstandard.dll'}", *refs, str(source)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return exe


def test_case_recorded_from_csharp_loads_in_python_and_replays(dotnet_bin: Path, tmp_path: Path) -> None:
    exe = _compile_recorder(dotnet_bin, tmp_path)
    cases = tmp_path / "cases"
    proc = subprocess.run(["mono", str(exe), str(cases)], capture_output=True, text=True,
                          timeout=300, cwd=ROOT,
                          env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "MONO_PATH": str(dotnet_bin)})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert "recorded keras_case: 3 steps of 4" in lines and "recorded tfnet_case: 3 steps of 4" in lines
    refused = ("used", "rows")
    errors = dict(line.split(": ", 1) for line in lines if line.split(":")[0] in refused)
    assert "recorded l2_case" in lines and set(errors) == set(refused)
    # Penalties the Dense form cannot express keep the model in its Keras form (no refusal any more).
    assert "l1: no error" in lines and "bias: no error" in lines
    assert "recorded conv_case: layer Conv2D (conv), 8 weights" in lines
    assert "conv trainer: layer Conv2D (conv) is not implemented by the C# reference" in lines
    assert errors["used"].startswith("model:") and "fresh (0 iterations) to start a case, got 1" in errors["used"]
    assert errors["rows"] == "x: expected at least steps * batch_size = 4 * 4 = 16 rows, got 12"
    assert not (cases / "never.json").exists()
    assert "runner status 0, runtime running: True" in lines and "after the runner: 2 weights" in lines
    assert "1 cases, baseline numpy: 2 pass, 0 fail, 0 error, 0 n/a -> PASSED" in lines

    conv = load(cases / "conv_case.json")
    assert conv.has_keras_model and conv.arrays.x.shape == (12, 6, 6, 1) and len(conv.arrays.weights) == 8
    result = run_suite(conv.path, ["engine", "keras", "csharp"])
    assert result.passed and [(p.a, p.b, p.verdict) for p in result.cases[0].pairs] == [
        ("engine", "keras", "pass"), ("csharp", "keras", "n/a")]
    assert result.cases[0].pairs[1].message == "csharp: layer Conv2D (conv) is not implemented by the C# reference"

    regularized = load(cases / "l2_case.json")
    assert [layer.kernel_l2 for layer in regularized.model.layers] == [0.05, None]
    assert (regularized.steps, regularized.batch_size) == (2, 6)
    for w in regularized.arrays.weights:
        np.testing.assert_array_equal(w.ravel(), np.sin(0.7 * np.arange(w.size) + w.size).astype(np.float32))
    result = run_suite(regularized.path, ["engine", "numpy"])
    assert result.passed, result.cases[0].pairs[0].message

    i = np.arange(12)[:, None]
    x = np.cos(i + 0.5 * np.arange(3)).astype(np.float32)
    for semantics, metrics in (("keras", ("acc", "mae")), ("tfnet", ("accuracy", "mae"))):
        case = load(cases / f"{semantics}_case.json")
        assert (case.semantics, case.metrics, case.batch_size, case.steps) == (semantics, metrics, 4, 3)
        assert [(layer.units, layer.activation, layer.use_bias) for layer in case.model.layers] == [
            (5, "tanh", True), (1, "sigmoid", True)]
        assert (case.model.input_dim, case.loss.name, case.loss.from_logits) == (3, "binary_crossentropy", False)
        assert case.optimizer.name == "adam" and case.optimizer["clipnorm"] == 0.5
        assert case.optimizer["learning_rate"] == float(np.float32(0.02))
        np.testing.assert_array_equal(case.arrays.x, x)
        np.testing.assert_array_equal(case.arrays.y, (x[:, 0] > 0).astype(np.float32))
        np.testing.assert_array_equal(case.arrays.sample_weight,
                                      np.float32(0.5) + np.arange(12, dtype=np.float32) / np.float32(12))
        for w in case.arrays.weights:
            np.testing.assert_array_equal(w.ravel(), np.sin(0.7 * np.arange(w.size) + w.size).astype(np.float32))
        result = run_suite(case.path, ["engine", "numpy"])
        assert result.passed, result.cases[0].pairs[0].message

        # Python's own recorder, given the same live model and data, writes the same case.
        again = record(engine_model(case), case.arrays.x, case.arrays.y, 3, tmp_path / "python" / case.name,
                       sample_weight=case.arrays.sample_weight, batch_size=4)
        assert {**again.to_json(), "description": ""} == {**case.to_json(), "description": ""}
