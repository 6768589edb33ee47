"""The C# suites, one pytest item per NUnit fixture and runtime: Mono (nunit-console) and .NET 8 (the project's
runner), the same sources built twice by dotnet/build.sh. Each suite runs once per session, for the fixtures
selected (``-k HostCodeTests`` runs that fixture alone); an item fails naming its failed C# tests, and when a test
its source declares did not run."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from csharp_fixtures import RUNTIMES, SUITES, Fixture, cases_of, fixtures, method_of, run

FIXTURES = [fixture for suite in SUITES for fixture in fixtures(suite)]
_RUNS: dict[tuple[str, str], tuple[dict[str, str | None], str]] = {}


def test_every_suite_has_fixtures() -> None:
    for suite in SUITES:
        assert len(fixtures(suite)) >= 5, f"{suite}: the fixtures were not found in its sources"
        assert all(f.tests or f.sourced for f in fixtures(suite)), f"{suite}: a fixture with no test found"
    gradients = next(f for f in fixtures("TfNetTrain.Reference.Tests") if f.name.endswith(".GradientTests"))
    assert gradients.sourced == {"AnalyticGradientsMatchCentralDifferences"} and not gradients.tests


@pytest.fixture(scope="session")
def suite_run(request: pytest.FixtureRequest) -> Callable[[str, str], tuple[dict[str, str | None], str]]:
    """One run per runtime and suite, of the fixtures this session selected."""

    def get(runtime: str, suite: str) -> tuple[dict[str, str | None], str]:
        if (runtime, suite) not in _RUNS:
            selected = sorted({item.callspec.params["fixture"].name for item in request.session.items
                               if getattr(item, "originalname", "") == "test_csharp_fixture"
                               and item.callspec.params["runtime"] == runtime
                               and item.callspec.params["fixture"].suite == suite})
            every = len(selected) == len(fixtures(suite))
            _RUNS[runtime, suite] = run(runtime, suite, None if every else selected)
        return _RUNS[runtime, suite]

    return get


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda f: f.name)
@pytest.mark.parametrize("runtime", RUNTIMES)
def test_csharp_fixture(runtime: str, fixture: Fixture,
                        suite_run: Callable[[str, str], tuple[dict[str, str | None], str]]) -> None:
    cases, output = suite_run(runtime, fixture.suite)
    mine = cases_of(cases, fixture.name)
    assert mine, f"no test of {fixture.name} ran on {runtime}:\n{output[-3000:]}"
    failed = {name: message for name, message in mine.items() if message is not None}
    assert not failed, f"C# failures on {runtime}:\n" + "\n".join(f"{n}: {m}" for n, m in failed.items())
    missing = fixture.tests - {method_of(name, fixture.name) for name in mine}
    assert not missing, f"declared in {fixture.name} but not run on {runtime}: {sorted(missing)}"
    assert len(mine) >= len(fixture.tests) + len(fixture.sourced), f"{fixture.name}: fewer cases ran than declared"
