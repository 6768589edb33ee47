"""The HTML report drawn from report.json alone (``tfnet-train conformance render``): the same page the Python runner
writes, for a document written by any runner."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tfnet_train.cli import main
from tfnet_train.conformance import implementations
from tfnet_train.conformance.numpy_reference import run_numpy
from tfnet_train.conformance.render import render_report_dir, write_report
from tfnet_train.conformance.report import to_json
from tfnet_train.conformance.runner import run_suite

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


class _PageOutline(HTMLParser):
    """The case sections (h2 ids, in order) and image sources of a report page."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: list[str] = []
        self.images: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "h2":
            self.sections.append(attributes["id"] or "")
        elif tag == "img":
            self.images.append(attributes["src"] or "")


def page_outline(page: str) -> _PageOutline:
    outline = _PageOutline()
    outline.feed(page)
    outline.close()
    return outline


def assert_page_references_existing_pngs(directory: Path) -> _PageOutline:
    """index.html parses, and every image it shows is a PNG file under ``directory``; returns its outline."""
    outline = page_outline((directory / "index.html").read_text(encoding="utf-8"))
    assert outline.images, "the page shows no plots"
    for src in outline.images:
        assert (directory / src).read_bytes()[:8] == PNG_MAGIC, src
    return outline


@pytest.fixture(scope="module")
def mixed_result():
    """Three cases; one pair fails (a planted learning rate), one pair is n/a under tfnet semantics."""
    implementations.register("numpy_lr", lambda case: run_numpy(case.with_optimizer(learning_rate=0.5)))
    try:
        yield run_suite("default", ["numpy", "keras", "numpy_lr"], case="*_relu_mse_sgd")
    finally:
        implementations.IMPLEMENTATIONS.pop("numpy_lr")


def test_rendering_a_plotless_report_json_gives_the_python_runners_page(mixed_result, tmp_path: Path) -> None:
    written = write_report(mixed_result, tmp_path / "runner")
    plotless = tmp_path / "plotless"
    plotless.mkdir()
    (plotless / "report.json").write_text(json.dumps(to_json(mixed_result)))  # as another program writes it, plots null
    rendered = render_report_dir(plotless)
    assert rendered == {"json": plotless / "report.json", "html": plotless / "index.html"}
    expected = written["html"].read_text(encoding="utf-8")
    assert rendered["html"].read_text(encoding="utf-8") == expected
    assert json.loads(rendered["json"].read_text()) == json.loads(written["json"].read_text())
    outline = assert_page_references_existing_pngs(plotless)
    assert outline.sections == [c.name for c in mixed_result.cases] == ["keras_relu_mse_sgd", "tfnet_relu_mse_sgd"]
    assert len(outline.images) == 4
    for case in json.loads(rendered["json"].read_text())["cases"]:
        assert case["plots"] == {"loss": f"plots/{case['name']}_loss.png", "errors": f"plots/{case['name']}_errors.png"}
        for src in case["plots"].values():
            assert (plotless / src).read_bytes() == (tmp_path / "runner" / src).read_bytes(), src


def test_a_case_that_failed_to_load_gets_a_section_without_plots(mixed_result, tmp_path: Path) -> None:
    doc = to_json(mixed_result)
    broken = {**doc["cases"][0], "name": "broken", "description": "", "semantics": None, "steps": None,
              "tolerance": None, "passed": False, "error": "schema must be 'tfnet-train/case@1'", "runs": [],
              "pairs": []}
    doc["cases"].insert(0, broken)
    (tmp_path / "report.json").write_text(json.dumps(doc))
    render_report_dir(tmp_path)
    outline = assert_page_references_existing_pngs(tmp_path)
    assert outline.sections[0] == "broken" and not any("broken" in src for src in outline.images)
    assert json.loads((tmp_path / "report.json").read_text())["cases"][0]["plots"] is None
    assert "schema must be &#x27;tfnet-train/case@1&#x27;" in (tmp_path / "index.html").read_text()


def test_cli_render(mixed_result, tmp_path: Path, capsys) -> None:
    (tmp_path / "report.json").write_text(json.dumps(to_json(mixed_result)))
    assert main(["conformance", "render", str(tmp_path)]) == 0
    assert f"{tmp_path / 'index.html'}" in capsys.readouterr().out
    assert_page_references_existing_pngs(tmp_path)


@pytest.mark.parametrize(("content", "message"), [
    (None, "directory must hold a report.json"),
    ("{not json", "report.json in"),
    ('{"schema": "tfnet-train/conformance-report@0"}', "doc must be a report document with schema"),
])
def test_render_refuses_a_folder_without_a_report(tmp_path: Path, content: str | None, message: str, capsys) -> None:
    if content is not None:
        (tmp_path / "report.json").write_text(content)
    with pytest.raises(ValueError, match=message):
        render_report_dir(tmp_path)
    assert main(["conformance", "render", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "index.html").exists()
