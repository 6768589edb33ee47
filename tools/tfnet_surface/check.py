"""Checks the generator's plans against the installed TensorFlow, Keras and NumPy: every Python function a
generated member calls exists and accepts its arguments as the member passes them (positional count, keyword names),
and every member of a TF.NET type reaches an attribute its Python twin has, of the right kind.

    python -m tools.tfnet_surface.check [--owners tf.linalg,...] [--types | --no-types]

Prints one line per overload that fails and a count; exit 1 when any fails. For functions: `missing` (no such Python
function), `binds` (the arguments do not fit its signature). For type members, looked up on a sample instance of the
twin (`SAMPLES`: a built Dense layer for keras.layers.Layer, `tf.constant` for tf.Tensor) or else on its class:
`missing` (no such attribute), `kind` (a method read as an attribute or an attribute called), `binds`, `raises` (the
attribute raises on the sample: Tensor.name under eager execution), `readonly` (TF.NET sets it, Python's attribute
cannot be set). Functions without an inspectable signature are counted apart (`unchecked`).
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import os
import sys
from dataclasses import dataclass, replace
from typing import Any

from tools.tfnet_surface import declarations as decl_module
from tools.tfnet_surface import rules as rules_module
from tools.tfnet_surface.generate import build_units
from tools.tfnet_surface.plan import Plan
from tools.tfnet_surface.typegen import build_type_units

_MISSING = object()


@dataclass(frozen=True)
class Finding:
    """One overload's result: ok, missing, binds (arguments do not fit) or unchecked (no signature)."""

    plan: Plan
    status: str
    detail: str = ""
    where: str = ""  # for a type member: the Python twin it was checked on


def resolve(path: str, roots: dict[str, str]) -> Any:
    """The Python object at a dotted path whose first segment is a root (`tf.linalg.eye`); AttributeError if none."""
    head, *rest = path.split(".")
    if head not in roots:
        raise AttributeError(f"{path}: the first segment must be one of {sorted(roots)}")
    obj: Any = importlib.import_module(roots[head])
    for part in rest:
        obj = getattr(obj, part)
    return obj


def check_plan(plan: Plan, roots: dict[str, str]) -> Finding:
    """Resolves a plan's Python function and binds its arguments (placeholders) to the signature."""
    try:
        target = resolve(plan.path, roots)
    except (AttributeError, ImportError) as error:
        return Finding(plan, "missing", str(error))
    if plan.action == "get":
        return Finding(plan, "ok")
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):
        return Finding(plan, "unchecked", "no signature")
    positional = [object() for a in plan.args if a.how in ("positional", "star")]
    keywords = {a.python: object() for a in plan.args if a.how == "keyword"}
    given = {a.python: object() for a in plan.args if a.how == "keyword" and not a.omittable}
    for kwargs, when in ((keywords, ""), (given, " with the sentinel defaults left out")):
        try:
            signature.bind(*positional, **kwargs)
        except TypeError as error:
            return Finding(plan, "binds", f"{error}{when} (signature {signature})")
    return Finding(plan, "ok")


def samples() -> dict[str, Any]:
    """A maker of one instance per Python twin, to look instance attributes up on (Keras sets many in __init__)."""
    import io

    import keras
    import numpy as np
    import tensorflow as tf

    def dense() -> Any:
        layer = keras.layers.Dense(3)
        layer(keras.Input((2,)))
        return layer

    def functional() -> Any:
        inputs = keras.Input((2,))
        model = keras.Model(inputs, keras.layers.Dense(3)(inputs))
        model.compile(optimizer="adam", loss="mse")
        return model

    def sequential() -> Any:
        model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3)])
        model.compile(optimizer="adam", loss="mse")
        return model

    def npz() -> Any:
        buffer = io.BytesIO()
        np.savez(buffer, a=np.zeros(2))
        buffer.seek(0)
        return np.load(buffer)

    return {
        "tf.Tensor": lambda: tf.constant([[1.0, 2.0]]),
        "tf.TensorShape": lambda: tf.TensorShape([2, 3]),
        "np.ndarray": lambda: np.zeros((2, 3), np.float32),
        "tf.dtypes.DType": lambda: tf.float32,
        "keras.layers.Layer": dense,
        "keras.layers.Dense": dense,
        "keras.Model": functional,
        "keras.Sequential": sequential,
        "tf.Variable": lambda: tf.Variable([1.0, 2.0]),
        "keras.Variable": lambda: keras.Variable([1.0, 2.0]),
        "tf.data.Dataset": lambda: tf.data.Dataset.range(3),
        "tf.data.Iterator": lambda: iter(tf.data.Dataset.range(3)),
        "keras.optimizers.Optimizer": lambda: keras.optimizers.Adam(),
        "keras.optimizers.Adam": lambda: keras.optimizers.Adam(),
        "keras.callbacks.Callback": lambda: keras.callbacks.Callback(),
        "keras.callbacks.EarlyStopping": lambda: keras.callbacks.EarlyStopping(),
        "keras.metrics.Metric": lambda: keras.metrics.MeanSquaredError(),
        "keras.losses.Loss": lambda: keras.losses.MeanSquaredError(),
        "keras.initializers.Initializer": lambda: keras.initializers.GlorotUniform(),
        "keras.regularizers.Regularizer": lambda: keras.regularizers.L2(),
        "tf.GradientTape": lambda: tf.GradientTape(),
        "tf.TensorArray": lambda: tf.TensorArray(tf.float32, size=2),
        "tf.RaggedTensor": lambda: tf.ragged.constant([[1], [2, 3]]),
        "tf.sparse.SparseTensor": lambda: tf.sparse.SparseTensor([[0, 0]], [1.0], [2, 2]),
        "tf.IndexedSlices": lambda: tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0]), tf.constant([2, 1])),
        "tf.TensorSpec": lambda: tf.TensorSpec([2], tf.float32),
        "tf.DeviceSpec": lambda: tf.DeviceSpec(job="worker"),
        "tf.config.PhysicalDevice": lambda: tf.config.list_physical_devices("CPU")[0],
        "keras.layers.InputSpec": lambda: keras.layers.InputSpec(ndim=2),
        "keras.KerasTensor": lambda: keras.Input((2,)),
        "np.lib.npyio.NpzFile": npz,
        "tf.queue.QueueBase": lambda: tf.queue.FIFOQueue(2, tf.float32),
        "tf.queue.FIFOQueue": lambda: tf.queue.FIFOQueue(2, tf.float32),
        "tf.queue.PaddingFIFOQueue": lambda: tf.queue.PaddingFIFOQueue(2, tf.float32, shapes=[[None]]),
        "tf.queue.PriorityQueue": lambda: tf.queue.PriorityQueue(2, tf.float32, shapes=[[]]),
        "tf.queue.RandomShuffleQueue": lambda: tf.queue.RandomShuffleQueue(2, 0, tf.float32),
    }


def _kind(cls: type, obj: Any, name: str) -> str:
    """How the twin holds `name`: method, property (read-only: `property-ro`), value (an instance attribute) or ''."""
    static = inspect.getattr_static(cls, name, _MISSING)
    if static is _MISSING:
        if obj is not None and hasattr(obj, name):
            value = getattr(obj, name)
            return "method" if inspect.ismethod(value) or inspect.isbuiltin(value) else "value"
        return ""
    if isinstance(static, property):
        return "property" if static.fset is not None else "property-ro"
    if inspect.isroutine(static) or isinstance(static, (staticmethod, classmethod)):
        return "method"
    if inspect.isdatadescriptor(static) or inspect.isgetsetdescriptor(static) or inspect.ismemberdescriptor(static):
        return "property"
    return "value"


def check_type_plan(plan: Plan, python: str, accessors: tuple[str, ...], roots: dict[str, str],
                    made: dict[str, Any]) -> Finding:
    """A type member's plan against its twin `python` (a class path): the attribute exists on a sample instance
    (`made`, built from SAMPLES once) or the class, is a method when called and not one when read, binds the
    arguments, reads without raising, and can be set when TF.NET sets it."""
    try:
        cls = resolve(python, roots)
    except (AttributeError, ImportError) as error:
        return Finding(plan, "missing", f"twin {python}: {error}", python)
    obj = made.get(python)
    *parents, name = plan.path.split(".")  # a dotted path reads attributes first: output.shape
    if parents and obj is None:
        return Finding(plan, "unchecked", f"{plan.path}: a dotted attribute needs a sample of {python}", python)
    try:
        for part in parents:
            obj = getattr(obj, part)
    except Exception as error:  # the attribute's own error
        return Finding(plan, "raises", f"{type(error).__name__}: {error}", python)
    if parents:
        cls = type(obj)
    kind = _kind(cls, obj, name)
    where = python + ("" if obj is not None else " (class only: no sample)")
    if not kind:
        return Finding(plan, "missing", f"{python} has no attribute {plan.path!r}", where)
    if plan.action == "get":
        if kind == "method":
            return Finding(plan, "kind", f"{python}.{plan.path} is a method; the member reads it", where)
        if obj is not None:
            try:
                getattr(obj, name)
            except Exception as error:  # the attribute's own error, e.g. Tensor.name when eager
                return Finding(plan, "raises", f"{type(error).__name__}: {error}", where)
        if "set" in accessors and not plan.readonly and kind == "property-ro":
            return Finding(plan, "readonly", f"{python}.{plan.path} cannot be set; TF.NET's setter can", where)
        return Finding(plan, "ok", where=where)
    if kind != "method":
        target = getattr(obj, name, None) if obj is not None else None
        if not callable(target):
            return Finding(plan, "kind", f"{python}.{plan.path} is not a method ({kind}); the member calls it", where)
    try:
        if obj is not None:
            signature = inspect.signature(getattr(obj, name))
            positional = []
        else:
            signature = inspect.signature(getattr(cls, name))
            positional = [object()]  # self
    except (TypeError, ValueError):
        return Finding(plan, "unchecked", "no signature", where)
    positional += [object() for a in plan.args if a.how in ("positional", "star")]
    keywords = {a.python: object() for a in plan.args if a.how == "keyword"}
    given = {a.python: object() for a in plan.args if a.how == "keyword" and not a.omittable}
    for kwargs, when in ((keywords, ""), (given, " with the sentinel defaults left out")):
        try:
            signature.bind(*positional, **kwargs)
        except TypeError as error:
            return Finding(plan, "binds", f"{error}{when} (signature {signature})", where)
    return Finding(plan, "ok", where=where)


def check_types(decls: decl_module.Declarations | None = None,
                rules: rules_module.Rules | None = None) -> list[Finding]:
    """Findings for every generated member of TF.NET's types, each on the twin of the class writing it."""
    decls = decls or decl_module.load()
    rules = rules or rules_module.load()
    makers = samples()
    made: dict[str, Any] = {}
    findings, seen = [], set()
    for unit in build_type_units(decls, rules):
        if unit.kind not in ("class", "extensions"):
            continue
        for slot in unit.slots:
            plan = slot.plan
            if plan.action not in ("call", "get"):
                continue
            python = unit.python if unit.kind == "class" else rules.types[plan.member.owner].python
            key = (python, plan.member.key, plan.path, plan.signature, plan.action)
            if key in seen:
                continue
            seen.add(key)
            if plan.function:  # an operator: a Python function of the operands
                findings.append(replace(check_plan(plan, rules.roots), where=plan.path))
                continue
            if python not in made and python in makers:
                made[python] = makers[python]()
            findings.append(check_type_plan(plan, python, slot.accessors, rules.roots, made))
    for owner, entry in sorted(rules.types.items()):
        for python, attribute in entry.alike:  # wrapped through the twin instance they hold
            plan = Plan(next(m for m in decls.members if m.owner == owner), "get", path=attribute)
            try:
                held = getattr(makers[python](), attribute)
                twin = resolve(entry.python, rules.roots)
            except Exception as error:  # a missing class, sample or attribute
                findings.append(Finding(plan, "missing", f"{python}.{attribute}: {error}", python))
                continue
            ok = isinstance(held, twin)
            findings.append(Finding(plan, "ok" if ok else "kind", "" if ok else
                                    f"{python}.{attribute} is a {type(held).__name__}, not a {entry.python}", python))
    return findings


def check(owners: list[str], decls: decl_module.Declarations | None = None,
          rules: rules_module.Rules | None = None) -> list[Finding]:
    """Findings for every generated call and attribute of `owners`."""
    decls = decls or decl_module.load()
    rules = rules or rules_module.load()
    findings = []
    for unit in build_units(decls, rules, owners):
        for plan in unit.plans:
            if plan.action in ("call", "get"):
                findings.append(check_plan(plan, rules.roots))
    return findings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.tfnet_surface.check", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--owners", help="comma-separated owners (default: rules.toml's [generate] owners)")
    parser.add_argument("--types", action=argparse.BooleanOptionalAction, default=True,
                        help="check the members of TF.NET's types too (default: yes)")
    args = parser.parse_args(argv)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    rules = rules_module.load()
    owners = args.owners.split(",") if args.owners else rules.owners_generated
    failed = False
    for label, findings in (("calls", check(owners, rules=rules)),
                            ("type members", check_types(rules=rules) if args.types else None)):
        if findings is None:
            continue
        bad = [f for f in findings if f.status not in ("ok", "unchecked")]
        failed = failed or bool(bad)
        for f in bad:
            m = f.plan.member
            print(f"{f.status:8} {m.key}({', '.join(p.name for p in m.params)}) -> {f.plan.path}({f.plan.signature})"
                  f"{' on ' + f.where if f.where else ''}: {f.detail}")
        statuses = ("ok", "missing", "binds", "kind", "raises", "readonly", "unchecked")
        counts = {s: sum(1 for f in findings if f.status == s) for s in statuses}
        print(f"{len(findings)} {label}: " + ", ".join(f"{k} {v}" for k, v in counts.items() if v or k == "ok"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
