"""Fuzzing the readers of untrusted bytes, bounded to seconds: property tests (hypothesis) and a short
coverage-guided run (atheris) over every target from the seed corpus. docs/security.md gives the long runs."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
import targets
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tfnet_train import archives
from tfnet_train.callbacks.backup_and_restore import parse_metadata
from tfnet_train.conformance import case as case_module
from tfnet_train.conformance.plots import plot_name

HERE = Path(__file__).resolve().parent
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20)

arrays = hnp.arrays(dtype=st.sampled_from([np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_]),
                    shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))


@FAST
@given(st.dictionaries(st.from_regex(r"[a-z][a-z0-9_/]{0,10}", fullmatch=True), arrays, max_size=4),
       st.booleans())
def test_load_npz_gives_back_what_numpy_saved(tmp_path_factory: pytest.TempPathFactory, content: dict,
                                              compressed: bool) -> None:
    path = tmp_path_factory.mktemp("npz") / "a.npz"
    (np.savez_compressed if compressed else np.savez)(path, **content)
    loaded = archives.load_npz(path)
    assert sorted(loaded) == sorted(content)
    for key, value in content.items():
        np.testing.assert_array_equal(loaded[key], value)
        assert loaded[key].dtype == value.dtype


def _seed(target: str) -> bytes:
    return targets.seeds()[target][0]


@FAST
@given(st.data())
def test_mutated_npz_bytes_load_or_raise_value_error(data: st.DataObject) -> None:
    seed = bytearray(_seed("trace"))
    for _ in range(data.draw(st.integers(1, 6))):
        at = data.draw(st.integers(0, len(seed) - 1))
        seed[at] = data.draw(st.integers(0, 255))
    targets.trace(bytes(seed))  # raises only on a finding


@FAST
@given(st.binary(max_size=600))
def test_any_bytes_as_a_keras_archive_are_opened_or_refused(data: bytes) -> None:
    targets.keras(data)


@FAST
@given(json_values)
def test_any_json_as_a_case_document_is_parsed_or_named(doc: object) -> None:
    try:
        case_module.parse(doc)
    except case_module.CaseError as error:
        assert str(error)


@FAST
@given(st.dictionaries(st.sampled_from(["epoch", "batch", "steps_done", "generation", "weights", "x"]), json_values))
def test_backup_metadata_either_names_a_file_inside_the_folder_or_is_refused(doc: dict) -> None:
    try:
        metadata = parse_metadata(json.dumps(doc), "m.json")
    except ValueError as error:
        assert "m.json" in str(error)
        return
    weights = metadata.get("weights")
    assert weights is None or (Path(weights).name == weights and not weights.startswith("."))


@FAST
@given(st.text(max_size=30))
def test_a_plot_name_is_one_path_component_or_refused(name: str) -> None:
    try:
        checked = plot_name(name)
    except ValueError:
        return
    assert Path(checked).name == checked and ".." not in checked and "/" not in checked and "\\" not in checked


def test_a_deflate_bomb_in_a_keras_archive_is_refused_by_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("config.json", '{"module": "keras", "class_name": "Sequential", "config": {}}')
        archive.writestr("model.weights.h5", bytes(8 << 20))  # 8 MiB of zeros, a few KiB compressed
    monkeypatch.setattr(archives, "MAX_KERAS_BYTES", 1 << 20)
    with pytest.raises(ValueError, match=r"model\.weights\.h5.*past the limit of 1\.0 MiB"):
        from tfnet_train.engine.load import _as_engine_file

        path = targets._write("bomb.keras", buffer.getvalue())
        with _as_engine_file(path):
            pass


def test_the_seed_corpus_is_current() -> None:
    """tests/fuzz/corpus holds what targets.seeds() writes (regenerate with `python tests/fuzz/targets.py`)."""
    for name, items in targets.seeds().items():
        for i, item in enumerate(items):
            assert (HERE / "corpus" / name / f"seed{i}_{name}").read_bytes() == item, name


def test_a_bounded_coverage_guided_run_finds_nothing(tmp_path: Path) -> None:
    """atheris over every target from the seed corpus, a few thousand inputs (seconds); any finding fails. The
    mutations are seeded (TFNET_FUZZ_SEED, default 1) so the suite repeats; the long runs in docs/security.md are
    where new findings come from."""
    corpus = tmp_path / "corpus"
    shutil.copytree(HERE / "corpus" / "every", corpus)
    runs = os.environ.get("TFNET_FUZZ_RUNS", "1000")
    path = os.pathsep.join([str(HERE.parents[1] / "src"), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PYTHONPATH": path, "TF_CPP_MIN_LOG_LEVEL": "3"}
    run = subprocess.run([sys.executable, str(HERE / "fuzz.py"), "every", str(corpus), f"-runs={runs}",
                          "-max_len=32768", "-rss_limit_mb=4096", "-timeout=20",
                          f"-seed={os.environ.get('TFNET_FUZZ_SEED', '1')}"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-4000:]
    assert f"Done {runs} runs" in run.stderr
    assert not list(tmp_path.glob("crash-*")) and not list(tmp_path.glob("timeout-*"))
