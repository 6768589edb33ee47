"""Why an implementation produced no traces for a case."""

from __future__ import annotations


class NotApplicable(Exception):
    """The implementation does not run this kind of case by design (e.g. Keras 3 on a "tfnet" case)."""


class ImplementationUnavailable(RuntimeError):
    """The implementation cannot run here at all (not built, not importable, runtime missing)."""
