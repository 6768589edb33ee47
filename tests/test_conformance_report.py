"""Suite runs, reports (table, report.json, HTML + PNG) and the ``tfnet-train conformance`` command line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tfnet_train.cli import main
from tfnet_train.conformance import implementations
from tfnet_train.conformance.numpy_reference import run_numpy
from tfnet_train.conformance.render import write_report
from tfnet_train.conformance.report import REPORT_SCHEMA, format_table, to_json
from tfnet_train.conformance.runner import run_suite

PATTERN = "keras_relu_mse_sgd*"  # three small cases


@pytest.fixture
def planted_numpy():
    """An extra implementation: the NumPy reference with another learning rate (a planted bug)."""
    implementations.register("numpy_lr", lambda case: run_numpy(case.with_optimizer(learning_rate=0.5)))
    yield "numpy_lr"
    implementations.IMPLEMENTATIONS.pop("numpy_lr")


@pytest.fixture(scope="module")
def passing():
    return run_suite("default", ["numpy", "keras"], case=PATTERN)


def test_passing_run_reports_every_case_and_pair(passing) -> None:
    assert passing.passed and passing.baseline == "numpy"
    assert [c.name for c in passing.cases] == [
        "keras_relu_mse_sgd", "keras_relu_mse_sgd_clipnorm", "keras_relu_mse_sgd_sample_weight"]
    assert all(p.verdict == "pass" and (p.a, p.b) == ("keras", "numpy") for c in passing.cases for p in c.pairs)
    table = format_table(passing)
    assert sum(" PASS " in line for line in table.splitlines()) == 3
    assert "3 cases, baseline numpy: 3 pass, 0 fail, 0 error, 0 n/a -> PASSED" in table


def test_report_files_exist_parse_and_reference_existing_pngs(passing, tmp_path: Path) -> None:
    paths = write_report(passing, tmp_path)
    doc = json.loads(paths["json"].read_text())
    assert doc["schema"] == REPORT_SCHEMA and doc["passed"] is True
    assert doc["summary"] == {"cases": 3, "pass": 3, "fail": 0, "error": 0, "n/a": 0}
    case = doc["cases"][0]
    assert case["runs"][0]["status"] == "ok" and len(case["runs"][0]["losses"]) == 3
    stages = [s["stage"] for s in case["pairs"][0]["stages"]]
    assert stages[:3] == ["inputs", "y_pred", "loss"] and "aggregated_gradients" not in stages  # keras lacks it
    page = paths["html"].read_text()
    sources = re.findall(r'<img src="([^"]+)"', page)
    assert len(sources) == 6
    for src in sources:
        png = tmp_path / src
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", src
    for case in doc["cases"]:
        for src in case["plots"].values():
            assert (tmp_path / src).is_file()


def test_failing_pair_reports_the_first_divergence(planted_numpy: str, tmp_path: Path) -> None:
    result = run_suite("default", ["numpy", planted_numpy], case="keras_relu_mse_sgd")
    assert not result.passed
    pair = result.cases[0].pairs[0]
    assert pair.verdict == "fail" and pair.message.startswith("step 0, stage weights, weights/")
    divergence = to_json(result)["cases"][0]["pairs"][0]["first_divergence"]
    assert {"step", "stage", "key", "index", "position", "a", "b", "abs_error", "allowed", "reason"} <= set(divergence)
    assert (divergence["step"], divergence["stage"], divergence["reason"]) == (0, "weights", "value")
    assert "FAIL" in format_table(result)
    write_report(result, tmp_path)
    assert "fail" in (tmp_path / "index.html").read_text()


def test_errors_and_not_applicable_cases() -> None:
    implementations.register("broken", lambda case: (_ for _ in ()).throw(RuntimeError("no trainer")))
    try:
        result = run_suite("default", ["numpy", "keras", "broken"], case="tfnet_relu_mse_sgd")
    finally:
        implementations.IMPLEMENTATIONS.pop("broken")
    verdicts = {p.a: p for p in result.cases[0].pairs}
    assert verdicts["keras"].verdict == "n/a" and "only semantics 'keras'" in verdicts["keras"].message
    assert verdicts["broken"].verdict == "error" and "RuntimeError: no trainer" in verdicts["broken"].message
    assert not result.passed


def test_cli_run_writes_a_report_and_exits_zero(tmp_path: Path, capsys) -> None:
    code = main(["conformance", "run", "--impl", "numpy,keras", "--case", "keras_relu_mse_sgd",
                 "--report", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0 and "keras vs numpy" in out and "PASSED" in out
    assert (tmp_path / "report.json").is_file() and (tmp_path / "index.html").is_file()


def test_cli_run_exits_one_on_failure(planted_numpy: str, capsys) -> None:
    code = main(["conformance", "run", "--impl", f"numpy,{planted_numpy}", "--case", "keras_relu_mse_sgd"])
    assert code == 1 and "FAILED" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "message"), [
    (["conformance", "run", "--impl", "numpy,pytorch"], "implementation must be one of"),
    (["conformance", "run", "--impl", "numpy"], "need at least two"),
    (["conformance", "run", "--impl", "numpy,keras", "--case", "no_such_case"], "case must name a case"),
    (["conformance", "run", "--impl", "numpy,keras", "--suite", "/no/such/dir"], "suite must be 'default'"),
])
def test_cli_bad_arguments_exit_two(argv: list[str], message: str, capsys) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_cli_list_and_diff(capsys) -> None:
    assert main(["conformance", "list"]) == 0
    assert len(capsys.readouterr().out.strip().splitlines()) >= 24
    assert main(["conformance", "diff", "keras_relu_mse_sgd_clipnorm", "--impl", "numpy"]) == 0
    out = capsys.readouterr().out
    assert "first divergence: step 0, stage clipped_gradients" in out
    assert "clipnorm changes nothing under tfnet: TF.NET's OptimizerV2 aggregate_gradients and clip_gradients" in out


def test_cli_build_suite(tmp_path: Path, capsys) -> None:
    assert main(["conformance", "build-suite", str(tmp_path)]) == 0
    assert len(list(tmp_path.glob("*.json"))) >= 24 and "wrote" in capsys.readouterr().out


def test_report_shows_the_layer_a_reference_lacks(tmp_path: Path) -> None:
    """A Keras-config case: the NumPy reference's run is n/a with the layer named, in report.json and the HTML page;
    the engine is compared with Keras instead."""
    result = run_suite("default", ["numpy", "engine", "keras"], case="keras_lstm_digits_rows")
    paths = write_report(result, tmp_path)
    doc = json.loads(paths["json"].read_text())
    assert doc["passed"] is True and doc["summary"] == {"cases": 1, "pass": 1, "fail": 0, "error": 0, "n/a": 1}
    case = doc["cases"][0]
    message = "layer LSTM (lstm) is not implemented by the NumPy reference"
    assert case["runs"][0] == {**case["runs"][0], "implementation": "numpy", "status": "n/a", "message": message,
                               "losses": []}
    assert [(p["a"], p["b"], p["verdict"], p["message"]) for p in case["pairs"]] == [
        ("numpy", "keras", "n/a", f"numpy: {message}"), ("engine", "keras", "pass", "")]
    page = paths["html"].read_text()
    assert '<td class="na">n/a</td>' in page and f"<td>{message}</td>" in page
    assert "<h3>numpy vs keras: n/a</h3>" in page and f"<code>numpy: {message}</code>" in page
    assert f"N/A      numpy: {message}" in format_table(result)


def _page_with_links(hrefs: list[str]) -> str:
    from tfnet_train.conformance.report import document_html

    summary = {"cases": 0, "pass": 0, "fail": 0, "error": 0, "n/a": 0}
    return document_html({"schema": REPORT_SCHEMA, "suite": "s", "implementations": ["a"], "baseline": "a",
                          "passed": True, "tolerance_rule": "r", "summary": summary, "cases": [],
                          "links": [{"href": h, "text": f"link {i}", "image": True} for i, h in enumerate(hrefs)]})


UNSAFE_HREFS = ["javascript:alert(1)", " JaVaScRiPt:alert(1)", "\tjavascript:alert(1)", "java\tscript:alert(1)",
                "java\nscript:alert(1)", "\x00javascript:alert(1)", "javascript\x01:alert(1)", "vbscript:msgbox(1)",
                "data:text/html,<script>alert(1)</script>", "DATA:image/svg+xml;base64,PHN2Zz4=",
                "file:///etc/passwd", "//evil.example/x.png", " //evil.example", "\\\\evil.example/x",
                "/\\evil.example/x", "blob:https://a/b", "jar:x"]


@pytest.mark.parametrize("href", UNSAFE_HREFS)
def test_report_links_of_other_schemes_are_text(href: str) -> None:
    """report.json comes from anyone: only relative and http(s) hrefs become links or images, whatever their
    case, spaces or control characters."""
    page = _page_with_links([href])
    assert "link 0" in page and "not a relative or http(s) link" in page
    assert re.findall(r'<(?:a href|img src)="([^"]*)"', page) == [], page


def test_report_links_relative_and_http_stay_links() -> None:
    hrefs = ["curves.png", "plots/a b.png", "../x/y.png", "#case", "?q=1", "dir/with:colon.png", "http://a.example/c",
             "HTTPS://a.example/c.png"]
    page = _page_with_links(hrefs)
    assert "not a relative or http(s) link" not in page
    linked = re.findall(r'<a href="([^"]*)"', page)
    assert linked == hrefs and re.findall(r'<img src="([^"]*)"', page) == hrefs
