"""What the generator does with each TF.NET member: the rule's plan, before any C# is written.

Per overload one `Plan`: `call` (a method forwarding to one Python function), `accessor` (a property handing out
another generated API object: `tf.linalg`), `get` (a property reading a Python attribute: `tf.float32`),
`unsupported` (throws NotSupportedException, rules.toml says why), `hand` (the face writes it), or `skip` (no rule
applies; `reason` says which part). A member of a TF.NET type calls or reads an attribute of the receiver's Python
object (`path` is then the attribute: `get_weights`, `trainable_variables`); an enum member is `enum` (its value).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tools.tfnet_surface.declarations import Declarations, Member, Param
from tools.tfnet_surface.rules import Rules

ACTIONS = ("call", "accessor", "get", "enum", "unsupported", "hand", "skip")
GENERATED = ("call", "accessor", "get", "enum")
#: Parameter types the codec cannot carry: C# code that Python would call back (HostCode's business).
_DELEGATE = re.compile(r"^(Func|Action|Predicate)\b|^(Activation|Func<.*>)$")


#: C# keywords: a TF.NET parameter so named is written `@name` (TF.NET's `string @uint`).
KEYWORDS = frozenset("""abstract as base bool break byte case catch char checked class const continue decimal default
delegate do double else enum event explicit extern false finally fixed float for foreach goto if implicit in int
interface internal is lock long namespace new null object operator out override params private protected public
readonly ref return sbyte sealed short sizeof stackalloc static string struct switch this throw true try typeof uint
ulong unchecked unsafe ushort using virtual void volatile while""".split())


def csharp_id(name: str) -> str:
    """A C# identifier for a declared name (keywords escaped)."""
    bare = name.lstrip("@")
    return "@" + bare if bare in KEYWORDS else bare


@dataclass(frozen=True)
class Arg:
    """One argument of a call: the C# expression, and how Python receives it."""

    expression: str  # C#: `num_rows`, `num_columns == -1 ? null : (object)num_columns`
    python: str  # the keyword, or the TF.NET name when positional
    how: str  # "positional", "star" or "keyword"
    cast: str = ""  # "int" or "float": the Python type the value is converted to
    omittable: bool = False  # a keyword left out when it has TF.NET's sentinel default


@dataclass(frozen=True)
class Plan:
    """The rule applied to one overload."""

    member: Member
    action: str
    path: str = ""
    args: tuple[Arg, ...] = ()
    reason: str = ""
    mapped: bool = False  # a [members] entry of rules.toml was needed
    receiver: str = ""  # for a type member: the Python function making the receiver from the codec's value
    readonly: str = ""  # for a settable property Python cannot set: what the setter's NotSupportedException says
    function: bool = False  # a type member that calls a Python function (`path`), not an attribute: operators

    @property
    def signature(self) -> str:
        """FaceCall's argument spec: names before `/` go positionally (`*x` spread), the rest by keyword; `x:int`
        converts the value to a Python int first."""

        def entry(a: Arg) -> str:
            return ("*" if a.how == "star" else "") + a.python + (f":{a.cast}" if a.cast else "")

        head = [entry(a) for a in self.args if a.how != "keyword"]
        tail = [entry(a) for a in self.args if a.how == "keyword"]
        return ", ".join(head + (["/"] + tail if tail else []))

    @property
    def positional(self) -> int:
        return sum(1 for a in self.args if a.how == "positional")


def _argument(rules: Rules, m: Member, p: Param, how: str) -> Arg:
    name = csharp_id(p.name)
    expression = name
    if how == "keyword" and rules.is_sentinel(p, m) and p.default not in ("null", "default"):
        # A value-typed sentinel: left out when it has TF.NET's default, so Python's default applies.
        expression = f"{name} == {p.default} ? null : (object){name}"
    cast = rules.member(m).get("cast", {}).get(p.name, "")
    omittable = how == "keyword" and rules.is_sentinel(p, m)
    return Arg(expression, rules.python_name(m, p) if how == "keyword" else p.name.lstrip("@"), how, cast, omittable)


def plan_member(rules: Rules, m: Member, owner_types: set[str]) -> Plan:
    """The plan for one overload; `owner_types` are the simple names of the API types generated in this run."""
    exception = rules.exception(m)
    if exception is not None:
        return Plan(m, exception.kind, reason=exception.reason)
    entry = rules.member(m)
    path = rules.python_path(m)
    if m.extension:
        return Plan(m, "skip", reason="extension method")
    if m.kind in ("property", "field"):
        if _simple(m.returns) in owner_types:
            return Plan(m, "accessor")
        return Plan(m, "get", path=path, mapped=bool(entry))
    if m.kind != "method":
        return Plan(m, "skip", reason=f"no rule for a {m.kind}")
    for p in m.params:
        if p.modifier in ("out", "ref", "in", "this"):
            return Plan(m, "skip", reason=f"{p.modifier} parameter {p.name}")
        if _DELEGATE.search(p.type):
            return Plan(m, "skip", reason=f"C# delegate parameter {p.name} ({p.type})")
    return Plan(m, "call", path=path, args=_arguments(rules, m), mapped=bool(entry))


def _arguments(rules: Rules, m: Member) -> tuple[Arg, ...]:
    """The rule's arguments of a method: leading required parameters positionally, the rest by name."""
    entry = rules.member(m)
    star, keywords = entry.get("star"), bool(entry.get("keywords"))
    renames, drop = entry.get("rename", {}), set(entry.get("drop", ()))
    args: list[Arg] = []
    leading = not keywords
    for p in m.params:
        if p.name in drop:
            continue
        if p.name == star:
            args.append(_argument(rules, m, p, "star"))
            continue
        leading = leading and p.default is None and p.name not in renames
        args.append(_argument(rules, m, p, "positional" if leading else "keyword"))
    return tuple(args)


def _unconverted(m: Member, tfnet_types: set[str], convertible: set[str]) -> str:
    """The first TF.NET type a member's signature names that the codec cannot carry ('' if none)."""
    for text in [m.returns] + [p.type for p in m.params]:
        for word in re.findall(r"[A-Za-z_]\w*", text):
            if word in tfnet_types and word not in convertible:
                return word
    return ""


def plan_type_member(rules: Rules, m: Member, tfnet_types: set[str], convertible: set[str]) -> Plan:
    """The plan for one overload of a TF.NET type's member: the same-named attribute of the receiver's Python object
    (properties by their snake_case name), called for a method, read for a property. `tfnet_types` are the simple
    names of TF.NET's types, `convertible` those the codec carries (generated twins, enums, `[codec] types`)."""
    if m.type_kind == "enum" and m.kind == "field" and not m.extension:
        return Plan(m, "enum")
    exception = rules.exception(m)
    if exception is not None:
        return Plan(m, exception.kind, reason=exception.reason)
    decision = rules.types.get(m.owner)
    if decision is None or decision.own:
        return Plan(m, "hand", reason=decision.own if decision else "no [types] entry")
    if m.kind == "operator":
        function = rules.operators.get(m.name)
        if not function:
            return Plan(m, "skip", reason=f"no rule for the operator {m.name} ([operators])")
        unconverted = _unconverted(m, tfnet_types, convertible)
        if unconverted:
            return Plan(m, "skip", reason=f"names {unconverted}, a TF.NET type with no Python twin or codec rule")
        args = tuple(Arg(csharp_id(p.name), p.name.lstrip("@"), "positional") for p in m.params)
        return Plan(m, "call", path=function, args=args, function=True)
    if m.kind not in ("method", "property", "field"):
        return Plan(m, "skip", reason=f"no rule for a {m.kind}")
    if m.static and not m.extension:
        return Plan(m, "skip", reason=f"static {m.kind} of a type")
    for p in m.params:
        if p.modifier in ("out", "ref", "in"):
            return Plan(m, "skip", reason=f"{p.modifier} parameter {p.name}")
        if _DELEGATE.search(p.type):
            return Plan(m, "skip", reason=f"C# delegate parameter {p.name} ({p.type})")
    if _DELEGATE.search(m.returns):
        return Plan(m, "skip", reason=f"returns a C# delegate ({m.returns})")
    unconverted = _unconverted(m, tfnet_types, convertible)
    if unconverted:
        return Plan(m, "skip", reason=f"names {unconverted}, a TF.NET type with no Python twin or codec rule")
    entry = rules.member(m)
    attribute = rules.python_attribute(m)
    mapped = bool(entry) or m.name.lstrip("@") in rules.attributes
    receiver = decision.receiver
    is_property = m.kind in ("property", "field")
    if (is_property and not entry.get("call")) or (not is_property and entry.get("get")):
        if m.params:
            return Plan(m, "skip", reason="reads an attribute but takes parameters")
        return Plan(m, "get", path=attribute, mapped=mapped, receiver=receiver, readonly=entry.get("readonly", ""))
    return Plan(m, "call", path=attribute, args=_arguments(rules, m), mapped=mapped, receiver=receiver)


def validate(rules: Rules, decls: Declarations) -> None:
    """A ValueError for a rules.toml entry that names a member or parameter the declarations lack (an entry applies
    to every overload; each parameter it names must be one of some overload's)."""
    params: dict[str, set[str]] = {}
    for m in decls.members:
        params.setdefault(m.key, set()).update(p.name for p in m.params)
    for key in list(rules.members) + [k.split("(")[0] for k in rules.exceptions]:
        if key not in params:
            raise ValueError(f"rules: {key!r} is not a member of the declarations")
    for key, entry in rules.members.items():
        named = set(entry.get("rename", {})) | set(entry.get("drop", ())) | set(entry.get("cast", {})) | set(
            entry.get("pass", ()))
        named |= {entry["star"]} if "star" in entry else set()
        unknown = named - params[key]
        if unknown:
            raise ValueError(f"rules: members.{key!r} names parameters {sorted(unknown)} that no overload of {key} "
                             f"has (it has {sorted(params[key])})")


def _simple(type_name: str) -> str:
    return type_name.split("<")[0].rsplit(".", 1)[-1].rstrip("?")


def owner_types(decls: Declarations, owners: list[str]) -> dict[str, str]:
    """Simple type name -> owner, for the owners generated (an interface owner counts under its implementation's
    name too)."""
    found: dict[str, str] = {}
    for m in decls.members:
        if m.owner in owners:
            found.setdefault(_simple(m.type_full), m.owner)
            impl = decls.implementations.get(m.type_full)
            if impl:
                found.setdefault(_simple(impl), m.owner)
    return found
