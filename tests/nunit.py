"""Runs an NUnit 2.6 test assembly with nunit-console and reads its XML result."""

from __future__ import annotations

import os
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class NUnitResult:
    total: int
    failures: list[str] = field(default_factory=list)
    output: str = ""
    #: every case that ran, by full name: None when it passed, else its message
    cases: dict[str, str | None] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.total > 0 and not self.failures


def run_nunit(assembly: Path, timeout: float = 900, env: dict[str, str] | None = None,
              fixtures: list[str] | None = None) -> NUnitResult:
    """Run every test in ``assembly`` (only those of ``fixtures``, full names, when given); failures are
    'Name: message' strings."""
    xml_path = assembly.with_suffix(".TestResult.xml")
    if xml_path.exists():
        xml_path.unlink()
    proc = subprocess.run(
        ["nunit-console", str(assembly), "-nologo", f"-xml={xml_path}",
         *([f"-run={','.join(fixtures)}"] if fixtures else [])],
        capture_output=True, text=True, timeout=timeout, env={**os.environ, **(env or {})},
        cwd=assembly.parent,
    )
    output = proc.stdout + proc.stderr
    if not xml_path.exists():
        return NUnitResult(0, [f"nunit-console wrote no result (exit {proc.returncode})"], output)
    root = ET.parse(xml_path).getroot()
    total = 0
    failures = []
    cases: dict[str, str | None] = {}
    for case in root.iter("test-case"):
        if case.get("executed") != "True":
            failures.append(f"{case.get('name')}: not executed")
            cases[str(case.get("name"))] = "not executed"
            continue
        total += 1
        outcome = None
        if case.get("success") != "True":
            message = case.findtext("./failure/message") or case.findtext("./reason/message") or ""
            failures.append(f"{case.get('name')}: {message.strip()}")
            outcome = message.strip() or "failed"
        cases[str(case.get("name"))] = outcome
    return NUnitResult(total, failures, output, cases)
