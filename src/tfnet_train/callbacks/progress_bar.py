"""`ProgressBar`: the text progress display `ProgbarLogger` draws on standard output.

Display rules:
- verbose=1 on a terminal (stdout is a TTY): the line is redrawn in place with a carriage return, at most
  once per `interval` seconds, and always for the final step; while running it shows the step counter, a bar
  and the ETA, and at the end the elapsed time and the time per step. Metrics follow as `name: value`.
- verbose=1 when stdout is not a terminal (a file, a pipe, a CI log, pytest's capture): no carriage-return
  redraws at all; only the final line of each epoch/run is written, so logs stay one line per epoch.
- verbose=2: only the final line, without a bar.
- verbose=0: nothing.
Values are shown as Keras shows them: 4 decimals when |v| > 1e-3, otherwise scientific with 4 decimals.
With an unknown number of steps (`target=None`) the counter reads `n/Unknown` and there is no bar until the
final update fixes the target.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable
from typing import Any


def format_value(value: Any) -> str:
    """Format a metric value: `0.6931`, `1.0000e-04`; non-numbers as `str(value)`."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    return f"{number:.4f}" if abs(number) > 1e-3 else f"{number:.4e}"


def format_time_per_unit(seconds: float, unit: str) -> str:
    """`3s/step`, `25ms/step` or `40us/step` (whole numbers)."""
    if seconds >= 1 or seconds == 0:
        return f"{seconds:.0f}s/{unit}"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.0f}ms/{unit}"
    return f"{seconds * 1e6:.0f}us/{unit}"


def format_eta(seconds: float) -> str:
    """`h:mm:ss` above an hour, `m:ss` above a minute, else `Ns`."""
    if seconds > 3600:
        return f"{int(seconds // 3600)}:{int(seconds % 3600 // 60):02d}:{int(seconds % 60):02d}"
    if seconds > 60:
        return f"{int(seconds // 60)}:{int(seconds % 60):02d}"
    return f"{int(seconds)}s"


def stdout_is_terminal() -> bool:
    """True when the current `sys.stdout` is an interactive terminal."""
    isatty = getattr(sys.stdout, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # closed stream
        return False


class ProgressBar:
    """One progress line for one epoch (or one evaluate/predict run).

    Args:
        target: total number of steps, or None when unknown.
        verbose: 0, 1 or 2 (see the module docstring).
        width: characters inside the bar's brackets.
        interval: minimum seconds between two redraws on a terminal.
        unit: name of a step in the time-per-step figure.
        clock: time source in seconds (monotonic).
    """

    def __init__(
        self,
        target: int | None,
        verbose: int = 1,
        *,
        width: int = 30,
        interval: float = 0.05,
        unit: str = "step",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.target = target
        self.verbose = verbose
        self.width = width
        self.interval = interval
        self.unit = unit
        self._clock = clock
        self.dynamic = stdout_is_terminal()
        self.values: dict[str, Any] = {}
        self.current = 0
        self._start = clock()
        self._time_after_first_step: float | None = None
        self._last_draw: float | None = None
        self._drawn_width = 0
        self.finalized = False

    @property
    def wants_every_step(self) -> bool:
        """True when `update` must be called each step (terminal redraws or an unknown target to count)."""
        return self.verbose != 0 and ((self.verbose == 1 and self.dynamic) or self.target is None)

    def update(self, current: int, values: Iterable[tuple[str, Any]] | None = None, finalize: bool = False) -> None:
        """Record progress `current` (steps done) and the latest metric values; draw if due."""
        now = self._clock()
        step_time = self._time_per_step(current, now)
        self.current = current
        for name, value in values or ():
            self.values[name] = value
        if finalize:
            self.finalized = True
        if self.verbose == 1:
            if self.dynamic:
                due = self._last_draw is None or now - self._last_draw >= self.interval
                if finalize or due:
                    self._redraw(self._line(now, step_time, finalize), finalize)
                    self._last_draw = now
            elif finalize:
                sys.stdout.write(self._line(now, step_time, True) + "\n")
                sys.stdout.flush()
        elif self.verbose == 2 and finalize:
            sys.stdout.write(self._summary_line(now, step_time) + "\n")
            sys.stdout.flush()

    def _time_per_step(self, current: int, now: float) -> float:
        # The first step (tracing, warm-up) is left out of the estimate once later steps exist.
        if current <= 0:
            return 0.0
        if self._time_after_first_step is not None and current > 1:
            per_step = (now - self._time_after_first_step) / (current - 1)
        else:
            per_step = (now - self._start) / current
        if current == 1:
            self._time_after_first_step = now
        return per_step

    def _counter(self) -> str:
        if self.target is None:
            return f"{self.current:7d}/Unknown"
        digits = len(str(self.target))
        return f"{self.current:{digits}d}/{self.target}"

    def _bar(self) -> str:
        fraction = min(max(self.current / self.target, 0.0), 1.0) if self.target else 1.0
        filled = int(self.width * fraction)
        if filled >= self.width:
            return "[" + "=" * self.width + "]"
        arrow = "=" * max(filled - 1, 0) + (">" if filled > 0 else "")
        return "[" + arrow + "." * (self.width - len(arrow)) + "]"

    def _metrics(self) -> str:
        return "".join(f" - {name}: {format_value(value)}" for name, value in self.values.items())

    def _line(self, now: float, step_time: float, finalize: bool) -> str:
        if self.target is None:
            timing = f"{now - self._start:.0f}s {format_time_per_unit(step_time, self.unit)}"
            return f"{self._counter()} - {timing}{self._metrics()}"
        if finalize:
            timing = f"{now - self._start:.0f}s {format_time_per_unit(step_time, self.unit)}"
        else:
            timing = f"ETA: {format_eta(step_time * max(self.target - self.current, 0))}"
        return f"{self._counter()} {self._bar()} - {timing}{self._metrics()}"

    def _summary_line(self, now: float, step_time: float) -> str:
        timing = f"{now - self._start:.0f}s - {format_time_per_unit(step_time, self.unit)}"
        return f"{self._counter()} - {timing}{self._metrics()}"

    def _redraw(self, line: str, finalize: bool) -> None:
        padding = " " * max(self._drawn_width - len(line), 0)
        sys.stdout.write("\r" + line + padding + ("\n" if finalize else ""))
        sys.stdout.flush()
        self._drawn_width = len(line)
