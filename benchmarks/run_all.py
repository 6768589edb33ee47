"""Run every benchmark under benchmarks/ in turn, each as its own process, and print their tables.

Run: .venv/bin/python benchmarks/run_all.py [--quick]   (`make bench` runs it)
Each benchmark measures its ratios side by side in one run; nothing here compares runs against each other.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
QUICK_ARGS = {"bench_engine.py": ["--rounds", "1", "--skip-xor-keras"], "bench_bridge.py": ["--quick"],
              "bench_bridge_calls.py": ["--quick"], "bench_mirrored.py": ["--rounds", "1", "--steps", "40"],
              "bench_tfnet_face.py": ["--quick"], "bench_traced.py": ["--quick"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="one short round of each (a smoke run)")
    args = parser.parse_args()
    failed = []
    for script in sorted(HERE.glob("bench_*.py")):
        print(f"\n=== {script.name} ===", flush=True)
        extra = QUICK_ARGS.get(script.name, []) if args.quick else []
        if subprocess.run([sys.executable, str(script), *extra], check=False).returncode != 0:
            failed.append(script.name)
    if failed:
        print(f"\nfailed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
