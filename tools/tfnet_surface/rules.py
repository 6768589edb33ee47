"""The generator's tables (rules.toml): where the rule needs a word, and which members it leaves to the face.

The rule: a TF.NET member on `owner` calls the Python function `<python path of owner>.<name>`; its leading
parameters without a default go positionally, the rest by TF.NET's parameter name; an argument equal to a sentinel
default is left out (Python's own default applies). The tables say only where that is not so:

- `[owners]`: an owner whose Python path is not its TF.NET path (`tf.gfile` -> `tf.io.gfile`);
- `[members."owner.name"]`: `python` (another function), `rename` (TF.NET parameter name -> Python's), `star` (a
  parameter spread as *args), `keywords` (every argument by name: tf.raw_ops), `drop` (TF.NET parameters Python's
  function lacks, not passed: a `name` that only names a graph node), `cast` (a parameter Python wants as
  another type: TF.NET's `float filter_size = 11f` is an int in Python);
- `[exceptions]`: `hand` (written by hand in the face: not generated) or `unsupported` (generated to throw
  NotSupportedException with `reason`); keyed `owner.name` or, for one overload, `owner.name(type, type)`;
- `[sentinels]`, `[defaults]`: which TF.NET defaults mean "not given", and the values of TF.NET constants that a
  default names.

For TF.NET's types (owners that are not entry-point paths: `Tensor`, `ILayer`, `TF_DataType`):

- `[types."Owner"]`: every type owner's decision — `python` (its Python twin, the class whose instances it wraps:
  `keras.layers.Layer`; `alike`, other classes it wraps through the twin instance an attribute of theirs holds:
  Keras 3's keras.Variable is no tf.Variable, its `value` is),
  optionally `receiver` (a Python function that makes the receiver from the codec's value:
  a Shape converts to a tuple, `tf.TensorShape` makes it a TensorShape) and `implementation` (the TF.NET class that
  implements a twin interface when no generated class lists it); or `own` (TF.NET's own type with no Python twin:
  the face writes it; the reason says why);
- `[attributes]`: TF.NET member names whose Python attribute is not their snake_case (`DType` -> `dtype`);
- `[members."Owner.name"]` for a type member: `python` (the attribute), `get` (a method that reads a Python
  attribute: TF.NET's `dtype.is_floating()` is Python's `dtype.is_floating`), `call` (a property that calls a Python
  method with no arguments), `readonly` (a TF.NET setter Python's attribute lacks: the setter throws, this says what
  to use), `pass` (parameters whose sentinel default is a value Python needs: TF.NET's `prefetch(buffer_size = -1)`
  is tf.data.AUTOTUNE), and `rename`, `drop`, `star`, `cast` as for functions; `python` may be dotted
  (`output.shape`: the attributes are read in turn);
- `[codec] types`: TF.NET's own types that the codec converts (Tensors, Axis): members naming any other TF.NET type
  that is neither generated nor converted have no rule;
- `[operators]`: TF.NET's C# operators by CLR name -> the Python function of the same operation (`op_Addition` ->
  `operator.add`), called with the operands in order.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tools.tfnet_surface.declarations import Member, Param

DEFAULT_PATH = Path(__file__).resolve().parent / "rules.toml"

EXCEPTION_KINDS = ("hand", "unsupported")
MEMBER_KEYS = {"python", "rename", "star", "keywords", "drop", "cast", "get", "call", "readonly", "pass"}
TYPE_KEYS = {"python", "alike", "receiver", "implementation", "own"}
CASTS = ("int", "float")


@dataclass(frozen=True)
class ExceptionEntry:
    """A member the rule does not implement."""

    kind: str
    reason: str


@dataclass(frozen=True)
class TypeEntry:
    """A type owner's decision: its Python twin (and receiver function, implementing class) or `own` (the reason)."""

    python: str = ""
    receiver: str = ""
    implementation: str = ""
    own: str = ""
    alike: tuple[tuple[str, str], ...] = ()  # (class, attribute): other classes wrapped through the twin they hold


def snake_case(name: str) -> str:
    """TF.NET's PascalCase name as Python's snake_case: TrainableVariables -> trainable_variables, IsFullyDefined
    -> is_fully_defined, OutputShape -> output_shape (names already snake_case unchanged)."""
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name.lstrip("@"))
    text = re.sub(r"(?<=[A-Z])(?=[A-Z][a-z])", "_", text)
    return re.sub(r"_+", "_", text).lower()


@dataclass
class Rules:
    """rules.toml, checked."""

    owners_generated: list[str] = field(default_factory=list)
    generate_types: bool = False
    roots: dict[str, str] = field(default_factory=dict)
    owners: dict[str, str] = field(default_factory=dict)
    members: dict[str, dict[str, Any]] = field(default_factory=dict)
    exceptions: dict[str, ExceptionEntry] = field(default_factory=dict)
    sentinels: tuple[str, ...] = ("null", "default", "TF_DataType.DtInvalid", "-1")
    value_params: tuple[str, ...] = ("axis", "dim")
    defaults: dict[str, str] = field(default_factory=dict)
    types: dict[str, TypeEntry] = field(default_factory=dict)
    attributes: dict[str, str] = field(default_factory=dict)
    codec_types: tuple[str, ...] = ()
    operators: dict[str, str] = field(default_factory=dict)

    def python_attribute(self, m: Member) -> str:
        """The Python attribute a type member reaches: its `[members]` python, else `[attributes]`, else its
        snake_case name."""
        entry = self.member(m)
        return entry.get("python") or self.attributes.get(m.name.lstrip("@")) or snake_case(m.name)

    def python_owner(self, owner: str) -> str:
        """The Python path of an owner (its TF.NET path unless `[owners]` says otherwise)."""
        return self.owners.get(owner, owner)

    def member(self, m: Member) -> dict[str, Any]:
        """The `[members]` entry of a member (empty when the rule needs no word)."""
        return self.members.get(m.key, {})

    def python_path(self, m: Member) -> str:
        """The Python function a member calls."""
        entry = self.member(m)
        return entry.get("python") or f"{self.python_owner(m.owner)}.{m.name.lstrip('@')}"

    def python_name(self, m: Member, p: Param) -> str:
        """The Python keyword for a TF.NET parameter."""
        return self.member(m).get("rename", {}).get(p.name, p.name.lstrip("@"))

    def exception(self, m: Member) -> ExceptionEntry | None:
        """The exception entry for one overload (`owner.name(types)`) or for every overload (`owner.name`)."""
        overload = f"{m.key}({', '.join(p.type for p in m.params)})"
        return self.exceptions.get(overload) or self.exceptions.get(m.key)

    def is_sentinel(self, p: Param, m: Member | None = None) -> bool:
        """True when TF.NET's default means "not given" (null, DtInvalid, -1 but for an axis...)."""
        if p.default is None or (m is not None and p.name in self.member(m).get("pass", ())):
            return False
        if p.default == "-1" and p.name in self.value_params:
            return False
        return p.default in self.sentinels

    def default_expression(self, p: Param) -> str | None:
        """The C# default written in the declaration (a TF.NET constant replaced by its value)."""
        return None if p.default is None else self.defaults.get(p.default, p.default)


def load(path: Path = DEFAULT_PATH) -> Rules:
    """Reads and checks rules.toml (or a fixture of the same form)."""
    with open(path, "rb") as handle:
        return from_dict(tomllib.load(handle))


def from_dict(data: dict[str, Any]) -> Rules:
    """Rules from their TOML form; a ValueError names a malformed entry."""
    rules = Rules()
    rules.owners_generated = list(data.get("generate", {}).get("owners", []))
    rules.generate_types = bool(data.get("generate", {}).get("types", False))
    rules.roots = dict(data.get("python", {}).get("roots", {"tf": "tensorflow", "keras": "keras", "np": "numpy"}))
    rules.owners = dict(data.get("owners", {}))
    for key, entry in data.get("members", {}).items():
        unknown = set(entry) - MEMBER_KEYS
        if unknown:
            raise ValueError(f"rules: members.{key!r} has unknown keys {sorted(unknown)} "
                             f"(expected {sorted(MEMBER_KEYS)})")
        bad = {k: v for k, v in entry.get("cast", {}).items() if v not in CASTS}
        if bad:
            raise ValueError(f"rules: members.{key!r}: cast to one of {CASTS}, not {bad}")
        rules.members[key] = dict(entry)
    for key, entry in data.get("exceptions", {}).items():
        kind = entry.get("kind")
        if kind not in EXCEPTION_KINDS:
            raise ValueError(f"rules: exceptions.{key!r}: kind must be one of {EXCEPTION_KINDS}, got {kind!r}")
        reason = entry.get("reason", "")
        if kind == "unsupported" and not reason:
            raise ValueError(f"rules: exceptions.{key!r}: an unsupported member needs a reason (what to use instead)")
        rules.exceptions[key] = ExceptionEntry(kind, reason)
    sentinels = data.get("sentinels", {})
    rules.sentinels = tuple(sentinels.get("values", rules.sentinels))
    rules.value_params = tuple(sentinels.get("value_params", rules.value_params))
    rules.defaults = dict(data.get("defaults", {}))
    for owner, entry in data.get("types", {}).items():
        unknown = set(entry) - TYPE_KEYS
        if unknown:
            raise ValueError(f"rules: types.{owner!r} has unknown keys {sorted(unknown)} "
                             f"(expected {sorted(TYPE_KEYS)})")
        if bool(entry.get("python")) == bool(entry.get("own")):
            raise ValueError(f"rules: types.{owner!r} needs either python (its Python twin) or own (why it has none)")
        rules.types[owner] = TypeEntry(**{k: tuple(sorted(v.items())) if k == "alike" else str(v)
                                          for k, v in entry.items()})
    rules.attributes = dict(data.get("attributes", {}))
    rules.codec_types = tuple(data.get("codec", {}).get("types", ()))
    rules.operators = dict(data.get("operators", {}))
    return rules
