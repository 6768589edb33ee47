"""The ``tfnet-train`` command line.

    tfnet-train conformance run [--suite default|PATH] [--impl engine,keras,numpy,csharp] [--baseline NAME]
                                [--report DIR] [--case NAME]
    tfnet-train conformance diff CASE [--a keras] [--b tfnet] [--impl engine] [--suite default|PATH]
    tfnet-train conformance render DIR
    tfnet-train conformance list [--suite default|PATH]
    tfnet-train conformance build-suite [DIR]
    tfnet-train dotnet [--path] [--runtime mono|coreclr]
    tfnet-train launch --workers N [--no-netns] [--timeout S] [--collective-timeout S] -- CMD...
    tfnet-train launch --hosts HOST:PORT,... --print-tf-config

Exit status: 0 when everything passed, 1 when a comparison failed or errored, 2 for bad arguments; `launch` exits with
the first failing worker's status (124 on its timeout).
"""

from __future__ import annotations

import argparse
import atexit
import logging
import os
import sys
from collections.abc import Sequence


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tfnet-train", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    conformance = commands.add_parser("conformance", help="cross-implementation conformance cases")
    sub = conformance.add_subparsers(dest="action", required=True)

    run = sub.add_parser("run", help="run a suite through several implementations and compare them")
    run.add_argument("--suite", default="default", help="'default' or a folder of case files (or one .json)")
    run.add_argument("--impl", default="engine,keras,numpy,csharp",
                     help="comma-separated implementations (default: engine,keras,numpy,csharp); NAME=PATH reads "
                     "traces another program wrote (a folder of <case>.npz or one .npz, keys step<i>/<trace key>)")
    run.add_argument("--baseline", default=None, help="implementation the others are compared with "
                     "(default: numpy when listed)")
    run.add_argument("--report", default=None, help="folder for report.json, index.html and plots")
    run.add_argument("--case", default=None, help="only the case with this name (glob patterns allowed)")

    diff = sub.add_parser("diff", help="run one case under two semantics profiles and explain the divergence")
    diff.add_argument("case", help="case name in the suite, or path to a case .json")
    diff.add_argument("--a", default="keras", choices=("keras", "tfnet"), help="first profile (default keras)")
    diff.add_argument("--b", default="tfnet", choices=("keras", "tfnet"), help="second profile (default tfnet)")
    diff.add_argument("--impl", default="engine", help="implementation to run (default engine)")
    diff.add_argument("--suite", default="default", help="suite to look the case name up in")

    render = sub.add_parser("render", help="draw index.html and plots from DIR/report.json (e.g. of an earlier "
                            "run)")
    render.add_argument("directory", help="folder holding report.json")

    listing = sub.add_parser("list", help="list the cases of a suite")
    listing.add_argument("--suite", default="default")

    build = sub.add_parser("build-suite", help="write the default suite's cases into a folder")
    build.add_argument("directory", nargs="?", default=None, help="target folder (default: the packaged suite)")

    dotnet = commands.add_parser("dotnet", help="where the C# bridge's assemblies are, one folder per .NET runtime")
    dotnet.add_argument("--path", action="store_true", help="print only the folder(s), one per line")
    dotnet.add_argument("--runtime", choices=("mono", "coreclr"), default=None,
                        help="only this runtime's folder (default: both)")
    dotnet.set_defaults(action="dotnet")

    from tfnet_train.launch import add_arguments

    launch = commands.add_parser("launch", help="run a command as N local MultiWorkerMirroredStrategy workers on "
                                 "127.0.0.1, each with its TF_CONFIG (confined to loopback where possible)")
    add_arguments(launch)
    launch.set_defaults(action="launch")
    return parser


def _run(args: argparse.Namespace) -> int:
    from tfnet_train.conformance.render import write_report
    from tfnet_train.conformance.report import format_table
    from tfnet_train.conformance.runner import run_suite

    names = [n.strip() for n in args.impl.split(",") if n.strip()]
    result = run_suite(args.suite, names, case=args.case, baseline=args.baseline)
    print(format_table(result))
    if args.report:
        paths = write_report(result, args.report)
        print(f"report: {paths['json']} and {paths['html']}")
    return 0 if result.passed else 1


def _diff(args: argparse.Namespace) -> int:
    from tfnet_train.conformance.explain import diff_profiles
    from tfnet_train.conformance.runner import find_case

    result = diff_profiles(find_case(args.case, args.suite), args.a, args.b, args.impl)
    print(result.explain())
    return 0 if result.comparison is not None else 1


def _render(args: argparse.Namespace) -> int:
    from tfnet_train.conformance.render import render_report_dir

    paths = render_report_dir(args.directory)
    print(f"report: {paths['json']} and {paths['html']}")
    return 0


def _list(args: argparse.Namespace) -> int:
    from tfnet_train.conformance.case import load
    from tfnet_train.conformance.runner import case_paths

    for path in case_paths(args.suite):
        case = load(path)
        print(f"{case.name:48s} {case.semantics:6s} {case.description}")
    return 0


def _build(args: argparse.Namespace) -> int:
    from tfnet_train.conformance.suite_builder import DEFAULT_SUITE, build_suite

    paths = build_suite(args.directory or DEFAULT_SUITE)
    print(f"wrote {len(paths)} cases to {paths[0].parent}")
    return 0


def _dotnet(args: argparse.Namespace) -> int:
    from tfnet_train import dotnet

    runtimes = [args.runtime] if args.runtime else list(dotnet.RUNTIMES)
    missing = [r for r in runtimes if not dotnet.is_built(r)]
    if missing:
        for runtime in missing:
            print(f"tfnet-train: error: no {runtime} build in {dotnet.build_dir(runtime)}: build it with "
                  "dotnet/build.sh (`make build`) before packaging", file=sys.stderr)
        return 1
    if args.path:
        for runtime in runtimes:
            print(dotnet.build_dir(runtime))
        return 0
    for runtime in runtimes:
        folder = dotnet.build_dir(runtime)
        libraries = ", ".join(name for name in dotnet.LIBRARIES if (folder / name).is_file())
        print(f"{runtime:8s} {folder}  ({libraries}; for {dotnet.RUNTIMES[runtime]})")
    runtime_dll = dotnet.python_runtime_dll()
    print(f"pythonnet {runtime_dll or 'Python.Runtime.dll not found: pip install pythonnet'}  (reference it too)")
    return 0


def _launch(args: argparse.Namespace) -> int:
    from tfnet_train.launch import run_cli

    return run_cli(args)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tfnet-train`` console script."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    logging.getLogger("tensorflow").setLevel(logging.ERROR)  # retracing notices are not results
    args = _parser().parse_args(argv)
    handlers = {"run": _run, "diff": _diff, "render": _render, "list": _list, "build-suite": _build,
                "dotnet": _dotnet, "launch": _launch}
    try:
        code = handlers[args.action](args)
    except ValueError as err:
        print(f"tfnet-train: error: {err}", file=sys.stderr)
        code = 2
    sys.stdout.flush()
    atexit.register(_skip_exit_collections)  # registered last, so it runs before pythonnet's shutdown hook
    return code


def host_main(argv: Sequence[str]) -> int:
    """``main`` for a program that embeds Python (``TfNetTrain.Conformance.exe``): argparse's exit (bad arguments,
    ``--help``) becomes the returned status instead of ending the host."""
    try:
        return main(argv)
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else int(exit_.code is not None)


def _skip_exit_collections() -> None:
    """With TensorFlow (and Mono) loaded, the full GC passes at exit take seconds; skip them."""
    import gc

    gc.disable()
    gc.freeze()


if __name__ == "__main__":
    raise SystemExit(main())
