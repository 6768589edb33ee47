"""Coverage-guided fuzzing of one reader with atheris (libFuzzer):

    python tests/fuzz/fuzz.py TARGET [CORPUS_DIR ...] [-runs=N] [-max_total_time=S] [-rss_limit_mb=MB]

TARGET is case, trace, keras, backup, weights, keras_h5, or every (all of them, the first byte choosing). A finding
(an exception other than the reader's typed error, a crash, a timeout, memory over -rss_limit_mb) stops the run and
writes the input to crash-*/timeout-*/oom-* in the current folder. docs/security.md gives the long runs' commands.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import atheris  # noqa: E402

with atheris.instrument_imports(include=["tfnet_train"]):
    import tfnet_train.archives  # noqa: F401
    import tfnet_train.callbacks.backup_and_restore  # noqa: F401
    import tfnet_train.conformance.case  # noqa: F401
    import tfnet_train.conformance.trace_files  # noqa: F401
    import tfnet_train.engine.h5_checks  # noqa: F401
    import tfnet_train.engine.legacy  # noqa: F401
    import tfnet_train.engine.load  # noqa: F401
    import tfnet_train.engine.save  # noqa: F401

import targets  # noqa: E402


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in (*targets.TARGETS, "every"):
        raise SystemExit(f"usage: fuzz.py {{{','.join([*targets.TARGETS, 'every'])}}} [libFuzzer options]")
    name = sys.argv.pop(1)
    target = targets.every if name == "every" else targets.TARGETS[name]
    atheris.Setup(sys.argv, target)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
