"""Draw the HTML report of a conformance run from its report.json document alone.

Any program that writes report.json (schema ``tfnet-train/conformance-report@1``) gets the same page as the
runner's ``--report``: ``render_report_dir(DIR)`` draws DIR/plots/<case>_loss.png and
<case>_errors.png for every case that loaded, fills each case's ``plots`` entry in DIR/report.json and writes
DIR/index.html.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

from tfnet_train.conformance.plots import case_plots, plot_name
from tfnet_train.conformance.report import REPORT_SCHEMA, document_html, to_json
from tfnet_train.conformance.runner import SuiteResult
from tfnet_train.extras import available


def write_document(doc: dict[str, Any], directory: str | Path) -> dict[str, Path]:
    """Draw the plots of ``doc`` under ``directory``, then write report.json (with ``plots`` filled) and index.html.

    A case that failed to load (``steps`` null) gets no plots, and no case does without matplotlib (a warning
    names the extra that brings it). Returns {"json": path, "html": path}.
    """
    if not isinstance(doc, dict) or doc.get("schema") != REPORT_SCHEMA:
        found = doc.get("schema") if isinstance(doc, dict) else type(doc).__name__
        raise ValueError(f"doc must be a report document with schema {REPORT_SCHEMA!r}, got {found!r}")
    for case in doc["cases"]:  # every case's plot path is checked before anything is written
        plot_name(case.get("name") if isinstance(case, dict) else case)
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    draw = available("matplotlib")
    if not draw:
        warnings.warn("the report is written without plots: matplotlib is missing (pip install "
                      "'tfnet-train[demo]')", stacklevel=2)
    cases = [{**case, "plots": None if case["steps"] is None or not draw else case_plots(case, out)}
             for case in doc["cases"]]
    doc = {**doc, "cases": cases}
    json_path = out / "report.json"
    json_path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    html_path = out / "index.html"
    html_path.write_text(document_html(doc), encoding="utf-8")
    return {"json": json_path, "html": html_path}


def render_report_dir(directory: str | Path) -> dict[str, Path]:
    """Read ``directory``/report.json and write its plots and index.html next to it; returns the two paths."""
    path = Path(directory) / "report.json"
    if not path.is_file():
        raise ValueError(f"directory must hold a report.json, got {str(directory)!r} without one")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ValueError(f"report.json in {str(directory)!r} must be JSON, got: {err}") from err
    return write_document(doc, directory)


def write_report(result: SuiteResult, directory: str | Path) -> dict[str, Path]:
    """Write report.json, index.html and the PNGs of a suite run under ``directory``; returns their paths."""
    return write_document(to_json(result), directory)
