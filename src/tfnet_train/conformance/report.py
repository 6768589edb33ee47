"""Reports of a suite run: a terminal table, ``report.json`` (schema below) and a static HTML page with PNGs.

report.json, schema ``tfnet-train/conformance-report@1``::

    {"schema", "suite", "implementations": [names], "baseline", "passed": bool,
     "tolerance_rule": "|a - b| <= atol + rtol * |b| (b = baseline)",
     "summary": {"cases", "pass", "fail", "error", "n/a"},           # counts of pair verdicts
     "cases": [{"name", "description", "semantics", "steps", "tolerance": {"rtol", "atol"},
                "passed": bool, "error": str | null,                   # error: the case failed to load
                "runs": [{"implementation", "status": "ok"|"error"|"n/a", "message", "seconds", "losses": [..]}],
                "pairs": [{"a", "b", "verdict": "pass"|"fail"|"error"|"n/a", "message",
                           "steps_compared", "values_compared",
                           "stages": [{"stage", "compared", "max_abs", "max_rel", "passed"}],  # STAGES order
                           "first_divergence": null | {"step", "stage", "key", "reason", "index", "position",
                                                       "a", "b", "abs_error", "allowed", "detail"},
                           "only_in_a": [keys], "only_in_b": [keys]}],
                "plots": {"loss": "plots/<name>_loss.png", "errors": "plots/<name>_errors.png"} | null}],
     "links": [{"href", "text", "image": bool}]}                      # optional: files shown beside the report

Non-finite numbers are written as the strings "inf", "-inf" and "nan".
"""

from __future__ import annotations

import html
import math
import re
from collections import Counter
from dataclasses import asdict
from typing import Any

from tfnet_train.conformance.runner import CaseResult, PairResult, SuiteResult

REPORT_SCHEMA = "tfnet-train/conformance-report@1"
TOLERANCE_RULE = "|a - b| <= atol + rtol * |b| (b = baseline)"


def _number(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def _clean(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_clean(v) for v in obj]
    return _number(obj)


def verdict_counts(result: SuiteResult) -> dict[str, int]:
    counts = Counter(p.verdict for c in result.cases for p in c.pairs)
    counts["error"] += sum(1 for c in result.cases if c.error)
    return {"cases": len(result.cases), **{k: counts.get(k, 0) for k in ("pass", "fail", "error", "n/a")}}


def _pair_json(pair: PairResult) -> dict[str, Any]:
    c = pair.comparison
    return {
        "a": pair.a, "b": pair.b, "verdict": pair.verdict, "message": pair.message,
        "steps_compared": c.steps_compared if c else 0,
        "values_compared": c.compared if c else 0,
        "stages": [asdict(s) for s in c.stages] if c else [],
        "first_divergence": asdict(c.first_divergence) if c and c.first_divergence else None,
        "only_in_a": c.only_in_a if c else [], "only_in_b": c.only_in_b if c else [],
    }


def _case_json(result: CaseResult, plots: dict[str, str] | None) -> dict[str, Any]:
    case = result.case
    return {
        "name": result.name,
        "description": case.description if case else "",
        "semantics": case.semantics if case else None,
        "steps": case.steps if case else None,
        "tolerance": {"rtol": case.tolerance.rtol, "atol": case.tolerance.atol} if case else None,
        "passed": result.passed,
        "error": result.error or None,
        "runs": [{"implementation": r.name, "status": r.status, "message": r.message,
                  "seconds": round(r.seconds, 4), "losses": r.losses} for r in result.runs.values()],
        "pairs": [_pair_json(p) for p in result.pairs],
        "plots": plots,
    }


def to_json(result: SuiteResult, plots: dict[str, dict[str, str]] | None = None) -> dict[str, Any]:
    """The report.json document (see the module docstring)."""
    plots = plots or {}
    return _clean({
        "schema": REPORT_SCHEMA,
        "suite": result.suite,
        "implementations": result.implementations,
        "baseline": result.baseline,
        "passed": result.passed,
        "tolerance_rule": TOLERANCE_RULE,
        "summary": verdict_counts(result),
        "cases": [_case_json(c, plots.get(c.name)) for c in result.cases],
    })


def format_table(result: SuiteResult) -> str:
    """Case x pair x verdict, with the first divergence (or the reason) per row, and a summary line."""
    rows = [("case", "pair", "verdict", "first divergence / note")]
    for case in result.cases:
        if case.error:
            rows.append((case.name, "-", "ERROR", case.error))
        for pair in case.pairs:
            rows.append((case.name, f"{pair.a} vs {pair.b}", pair.verdict.upper(), pair.message))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = []
    for i, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row[:3], widths, strict=True)) + "  " + row[3])
        if i == 0:
            lines.append("  ".join("-" * w for w in widths) + "  " + "-" * len(rows[0][3]))
    counts = verdict_counts(result)
    lines.append("")
    lines.append(f"{counts['cases']} cases, baseline {result.baseline}: {counts['pass']} pass, {counts['fail']} fail, "
                 f"{counts['error']} error, {counts['n/a']} n/a -> {'PASSED' if result.passed else 'FAILED'}")
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------- HTML

_STYLE = """
body { font-family: sans-serif; margin: 1.5em; }
table { border-collapse: collapse; margin: 0.5em 0; }
td, th { border: 1px solid #ccc; padding: 2px 8px; font-size: 13px; text-align: left; }
.pass { background: #d8f5d8; } .fail { background: #f9d0d0; } .error { background: #f5e0a8; }
.na { background: #e8e8e8; } code { font-size: 12px; } img { margin-right: 1em; }
"""


def _verdict_cell(verdict: str, css: str | None = None) -> str:
    css = css or {"pass": "pass", "ok": "pass", "fail": "fail", "error": "error"}.get(verdict, "na")
    return f'<td class="{css}">{html.escape(verdict)}</td>'


def _fmt(value: float | str) -> str:
    return f"{float(value):.3g}"  # float() also reads report.json's "inf", "-inf" and "nan"


def _case_html(case: dict[str, Any]) -> str:
    """One case of report.json: its runs, a stage table per pair, and its plots."""
    esc = html.escape
    name = case["name"]
    parts = [f'<h2 id="{esc(name)}">{esc(name)}</h2>']
    if case["semantics"] is not None:
        tolerance = case["tolerance"]
        parts.append(f"<p>{esc(case['description'])} &mdash; semantics <b>{esc(case['semantics'])}</b>, "
                     f"{case['steps']} steps, rtol {tolerance['rtol']:g}, atol {tolerance['atol']:g}</p>")
    if case["error"]:
        parts.append(f'<p class="error">{esc(case["error"])}</p>')
    if case["runs"]:
        parts.append("<table><tr><th>implementation</th><th>status</th><th>seconds</th><th>message</th></tr>")
        for run in case["runs"]:
            parts.append(f"<tr><td>{esc(run['implementation'])}</td>{_verdict_cell(run['status'])}"
                         f"<td>{run['seconds']:.2f}</td><td>{esc(run['message'])}</td></tr>")
        parts.append("</table>")
    for pair in case["pairs"]:
        parts.append(f"<h3>{esc(pair['a'])} vs {esc(pair['b'])}: {esc(pair['verdict'])}</h3>")
        if pair["message"]:
            parts.append(f"<p><code>{esc(pair['message'])}</code></p>")
        if pair["stages"]:
            parts.append("<table><tr><th>stage</th><th>values</th><th>max abs error</th>"
                         "<th>max rel error</th><th>verdict</th></tr>")
            for s in pair["stages"]:
                parts.append(f"<tr><td>{esc(s['stage'])}</td><td>{s['compared']}</td><td>{_fmt(s['max_abs'])}</td>"
                             f"<td>{_fmt(s['max_rel'])}</td>{_verdict_cell('pass' if s['passed'] else 'fail')}</tr>")
            parts.append("</table>")
    if case["plots"]:
        parts.append("<p>" + "".join(f'<img src="{esc(src)}" alt="{esc(kind)} plot of {esc(name)}">'
                                     for kind, src in case["plots"].items()) + "</p>")
    return "\n".join(parts)


def document_html(doc: dict[str, Any]) -> str:
    """The static page of a report.json document: summary table, then per case its runs, stage tables and plots."""
    esc = html.escape
    counts = doc["summary"]
    rows = []
    for case in doc["cases"]:
        for pair in case["pairs"]:
            rows.append(f'<tr><td><a href="#{esc(case["name"])}">{esc(case["name"])}</a></td>'
                        f"<td>{esc(pair['a'])} vs {esc(pair['b'])}</td>{_verdict_cell(pair['verdict'])}"
                        f"<td><code>{esc(pair['message'])}</code></td></tr>")
        if case["error"]:
            rows.append(f"<tr><td>{esc(case['name'])}</td><td>-</td>{_verdict_cell('error')}"
                        f"<td>{esc(case['error'])}</td></tr>")
    body = [
        "<!DOCTYPE html>", '<html><head><meta charset="utf-8"><title>tfnet-train conformance</title>',
        f"<style>{_STYLE}</style></head><body>",
        "<h1>tfnet-train conformance</h1>",
        f"<p>suite <code>{esc(doc['suite'])}</code>; implementations {esc(', '.join(doc['implementations']))}; "
        f"baseline <b>{esc(doc['baseline'])}</b>; rule <code>{esc(doc['tolerance_rule'])}</code></p>",
        f"<p><b>{'PASSED' if doc['passed'] else 'FAILED'}</b>: {counts['cases']} cases, {counts['pass']} pass, "
        f"{counts['fail']} fail, {counts['error']} error, {counts['n/a']} n/a</p>",
        *_links_html(doc.get("links") or []),
        "<table><tr><th>case</th><th>pair</th><th>verdict</th><th>first divergence / note</th></tr>",
        *rows, "</table>",
        *(_case_html(c) for c in doc["cases"]),
        "</body></html>",
    ]
    return "\n".join(body)


#: Schemes a report's ``links`` may use; any other (``javascript:``, ``data:``, ``file:``, ...) is shown as text.
LINK_SCHEMES = frozenset({"http", "https"})
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")


def safe_href(href: str) -> bool:
    """Whether ``href`` is a relative reference or an http(s) URL as a browser reads it (WHATWG URL parsing strips
    leading and trailing spaces and controls, drops tabs and newlines anywhere, reads ``\\`` as ``/``). Any
    control character is refused outright (``java\\tscript:`` is ``javascript:`` to a browser), so are a
    protocol-relative ``//host`` and every scheme but http and https, in any case."""
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in href):
        return False
    cleaned = href.strip(" ").replace("\\", "/")
    if cleaned.startswith("//"):
        return False
    scheme = _SCHEME.match(cleaned)
    return scheme is None or scheme.group()[:-1].lower() in LINK_SCHEMES


def _links_html(links: list[dict[str, Any]]) -> list[str]:
    """Files shown beside the report (report.json's optional ``links``: href, text, and image to draw it). Only
    relative and http(s) hrefs become links and images (:func:`safe_href`); any other is shown as text."""
    esc = html.escape
    out = []
    for link in links:
        raw = str(link["href"])
        text = esc(str(link.get("text") or raw))
        if not safe_href(raw):
            out.append(f"<p>{text} (<code>{esc(raw)}</code>: not a relative or http(s) link)</p>")
            continue
        href = esc(raw, quote=True)
        out.append(f'<p><a href="{href}">{text}</a></p>')
        if link.get("image"):
            out.append(f'<p><img src="{href}" alt="{esc(str(link.get("text") or ""), quote=True)}"></p>')
    return out
