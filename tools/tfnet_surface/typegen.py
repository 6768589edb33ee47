"""TF.NET's types as C#: interfaces and enums as declared, and `partial` classes whose instance members forward by
rule to the receiver's Python object.

For each type owner of the declarations (`Tensor`, `ILayer`, `TF_DataType`; rules.toml `[types]` decides for each):

- an **interface** is written with every member TF.NET declares (`ILayer`'s 20), its base interfaces that are
  generated too;
- an **enum** with its members and values as declared (`TF_DataType`'s 48 fields);
- a **class** with a Python twin (`Layer` -> `keras.layers.Layer`) as a `partial` class: a method calls the
  same-named attribute of the receiver's Python object (`layer.get_weights()` -> `obj.get_weights()`), a property
  reads the snake_case attribute (`TrainableVariables` -> `obj.trainable_variables`), with the function rule's
  arguments (required ones positionally, the rest by name, sentinels left out). Members of the interfaces it
  implements that it does not declare are written by the same rule; members a generated base class already has are
  inherited, not written again;
- a twin **interface** no generated class implements gets its TF.NET implementing class (`IDatasetV2` ->
  `DatasetV2`, from the declarations or `[types] implementation`), or else an internal `Python<Name>` class;
- **extension methods** of a twin type (TF_DataType's `is_floating()`, in TF.NET's static class `dtypes`) go into a
  `static partial` class of their declaring type, the receiver being their `this` parameter;
- `FaceTypes.g.cs` lists each generated class with its Python twin (subclasses first), for the codec to wrap a
  Python object as the most derived class that fits.

TF.NET's own types (`own` in `[types]`: Nest, Slice, the Args classes) are the face's to write; their members count
as hand-written. Bases that are not generated (`Trackable`, `IDisposable`) are left to the face's half of the class.
"""

from __future__ import annotations

import collections
import re
from dataclasses import dataclass, field, replace

from tools.tfnet_surface import declarations as decl_module
from tools.tfnet_surface.declarations import Declarations, Member
from tools.tfnet_surface.plan import GENERATED, Plan, csharp_id, plan_type_member, validate
from tools.tfnet_surface.rules import Rules

INDENT = "    "
#: C#'s value types by keyword or .NET name (a `?` after one of these stays: Nullable<T>).
VALUE_TYPES = frozenset("""bool byte sbyte char decimal double float int uint long ulong short ushort nint nuint
Boolean Byte SByte Char Decimal Double Single Int32 UInt32 Int64 UInt64 Int16 UInt16 IntPtr Complex""".split())
#: .NET types that TF.NET's signatures name outside System and System.Collections.Generic.
DOTNET_NAMESPACES = {"Complex": "System.Numerics", "Stream": "System.IO", "TextWriter": "System.IO",
                     "Task": "System.Threading.Tasks"}
#: C#'s spelling of the operators [operators] maps.
OPERATOR_SYMBOLS = {"op_Addition": "+", "op_Subtraction": "-", "op_Multiply": "*", "op_Division": "/",
                    "op_Modulus": "%", "op_GreaterThan": ">", "op_LessThan": "<", "op_GreaterThanOrEqual": ">=",
                    "op_LessThanOrEqual": "<=", "op_UnaryNegation": "-"}
#: System.Object's virtual members, written `override`.
OVERRIDES = {("ToString", ()), ("Equals", ("object",)), ("GetHashCode", ())}


@dataclass
class Slot:
    """One member as written in a type: its plan, and how it is declared there."""

    plan: Plan
    interface: str = ""  # an explicit implementation of this interface (simple name, with type arguments)
    new: bool = False  # hides a generated base class's member of the same signature and another return type
    accessors: tuple[str, ...] = ("get",)
    member: Member | None = None  # the member as written (an interface's type parameters substituted)

    @property
    def written(self) -> Member:
        return self.member or self.plan.member


@dataclass
class TypeUnit:
    """One C# type to write for TF.NET's types."""

    type_full: str
    kind: str  # "enum", "interface", "class" or "extensions" (a static class of extension methods)
    owner: str
    slots: list[Slot] = field(default_factory=list)
    bases: list[str] = field(default_factory=list)  # written (generated types)
    left_bases: list[str] = field(default_factory=list)  # TF.NET's other bases: the face's half declares them
    type_params: list[str] = field(default_factory=list)
    python: str = ""
    internal: bool = False
    hand_required: list[Slot] = field(default_factory=list)  # interface members the face's half must implement
    inherited: list[Plan] = field(default_factory=list)  # declared here, written once in a generated base class

    @property
    def simple(self) -> str:
        return self.type_full.rsplit(".", 1)[-1]


def is_entry(owner: str) -> bool:
    return owner.split(".")[0] in ("tf", "keras", "np")


def type_owners(decls: Declarations) -> list[str]:
    """The owners that are TF.NET types (not entry-point paths), in order."""
    return sorted({m.owner for m in decls.members if not is_entry(m.owner)})


def _interface_stem(name: str) -> str:
    """IInitializer -> Initializer (the I of an interface's name)."""
    return name[1:] if len(name) > 1 and name[0] == "I" and name[1].isupper() else name


def _simple(type_name: str) -> str:
    return type_name.strip().split("<")[0].rsplit(".", 1)[-1].rstrip("?")


def _generic_args(type_name: str) -> list[str]:
    """`INestStructure<long>` -> [long]."""
    if "<" not in type_name:
        return []
    inner = type_name[type_name.index("<") + 1: type_name.rindex(">")]
    items, depth, start = [], 0, 0
    for i, ch in enumerate(inner):
        depth += {"<": 1, "(": 1, ">": -1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            items.append(inner[start:i].strip())
            start = i + 1
    return items + [inner[start:].strip()]


def _substitute(text: str, mapping: dict[str, str]) -> str:
    if not mapping:
        return text
    return re.sub(r"\b[A-Za-z_]\w*\b", lambda m: mapping.get(m.group(0), m.group(0)), text)


def _signature(m: Member) -> tuple[str, tuple[str, ...], int]:
    return (m.name, tuple(p.type.replace(" ", "") for p in m.params), len(m.type_params))


class TypeModel:
    """The decisions and names every type unit needs: owners' types, twins, what the codec converts."""

    def __init__(self, decls: Declarations, rules: Rules) -> None:
        self.decls, self.rules = decls, rules
        owners = type_owners(decls)
        missing = [o for o in owners if o not in rules.types]
        if missing:
            raise ValueError(f"rules: [types] has no entry (python = its twin, or own = why none) for {missing}")
        unknown = [o for o in rules.types if o not in owners]
        if unknown:
            raise ValueError(f"rules: [types] names {unknown}, which are not type owners of the declarations")
        validate(rules, decls)
        self.members: dict[str, list[Member]] = collections.defaultdict(list)
        for m in decls.members:
            if not is_entry(m.owner):
                self.members[m.owner].append(m)
        self.owner_type = {o: ms[0].type_full for o, ms in self.members.items()}
        self.owner_kind = {o: ms[0].type_kind for o, ms in self.members.items()}
        self.owner_of = {t: o for o, t in self.owner_type.items()}
        self.tfnet = {full.rsplit(".", 1)[-1] for full in list(decls.types) + list(decls.referenced)
                      if full.startswith("Tensorflow")}  # Xla.Type is not the Type signatures name
        self.twins = {o for o in owners if rules.types[o].python}
        self.interfaces = [o for o in owners if self.owner_kind[o] == "interface"]
        self.enums = [o for o in owners if self.owner_kind[o] == "enum"]
        self.classes = [o for o in owners if self.owner_kind[o] == "class" and o in self.twins]
        self.simple_owner = {self.owner_type[o].rsplit(".", 1)[-1]: o for o in owners}
        self.implementation: dict[str, str] = {}  # twin interface owner -> implementing class full name
        for o in self.interfaces:
            if o not in self.twins:
                continue
            listed = [c for c in self.classes if self._lists(c, self._simple_of(o))]
            if listed:
                self.implementation[o] = self.owner_type[min(listed, key=self.depth)]
                continue
            name = rules.types[o].implementation or decls.implementations.get(self.owner_type[o], "")
            owner = self.owner_of.get(name)
            if owner and owner not in self.twins:
                name = ""  # an own class of TF.NET's (IKerasConfigable's InputSpec) is not the Python one
            namespace = self.owner_type[o].rsplit(".", 1)[0]
            self.implementation[o] = name or f"{namespace}.Python{_interface_stem(self._simple_of(o))}"
        self.extra_classes = {full: o for o, full in self.implementation.items() if full not in self.owner_of}
        self.convertible = ({self._simple_of(o) for o in self.classes} | {self._simple_of(o) for o in
                            self.implementation} | {full.rsplit(".", 1)[-1] for full in self.extra_classes}
                            | set(rules.codec_types))

    def _simple_of(self, owner: str) -> str:
        return self.owner_type[owner].rsplit(".", 1)[-1]

    def base_list(self, full: str) -> list[str]:
        return list(self.decls.types.get(full, {}).get("base_list", ()))

    def _lists(self, owner: str, interface: str) -> bool:
        return any(_simple(b) == interface for b in self.base_list(self.owner_type[owner]))

    def base_class(self, owner: str) -> str:
        """The generated class an owner's class derives from ('' if none)."""
        for b in self.base_list(self.owner_type[owner]):
            o = self.simple_owner.get(_simple(b))
            if o in self.classes:
                return o
        return ""

    def depth(self, owner: str) -> int:
        base, n = self.base_class(owner), 0
        while base:
            n, base = n + 1, self.base_class(base)
        return n

    def plan(self, m: Member) -> Plan:
        return plan_type_member(self.rules, m, self.tfnet, self.convertible)


def _interface_closure(model: TypeModel, bases: list[str]) -> list[tuple[str, dict[str, str]]]:
    """Generated interfaces reached from a base list (their bases too), with type-argument substitutions."""
    out: list[tuple[str, dict[str, str]]] = []
    todo = list(bases)
    while todo:
        base = todo.pop(0)
        owner = model.simple_owner.get(_simple(base))
        if owner not in model.interfaces or any(o == owner for o, _ in out):
            continue
        params = model.decls.types.get(model.owner_type[owner], {}).get("type_params", [])
        mapping = dict(zip(params, _generic_args(base), strict=False))
        out.append((owner, mapping))
        todo += [_substitute(b, mapping) for b in model.base_list(model.owner_type[owner])]
    return out


def _written(m: Member, mapping: dict[str, str]) -> Member:
    if not mapping:
        return m
    params = tuple(replace(p, type=_substitute(p.type, mapping)) for p in m.params)
    return replace(m, params=params, returns=_substitute(m.returns, mapping))


def _split_bases(model: TypeModel, full: str, kind: str) -> tuple[list[str], list[str]]:
    """(bases written, bases left to the face) of a type: generated classes and interfaces are written."""
    written, left = [], []
    for b in model.base_list(full):
        owner = model.simple_owner.get(_simple(b))
        if owner in model.interfaces or (kind == "class" and owner in model.classes):
            written.append(b)
        else:
            left.append(b)
    return written, left


def build_type_units(decls: Declarations, rules: Rules) -> list[TypeUnit]:
    """Every type unit: interfaces, enums, twin classes (with the implementing classes of twin interfaces), the
    static classes of their extension methods, in file order."""
    model = TypeModel(decls, rules)
    units: dict[str, TypeUnit] = {}
    for o in model.enums:
        full = model.owner_type[o]
        fields = sorted((m for m in model.members[o] if m.kind == "field" and not m.extension), key=lambda m: m.line)
        units[full] = TypeUnit(full, "enum", o, [Slot(model.plan(m)) for m in fields],
                               bases=model.base_list(full), python=rules.types[o].python)
    for o in model.interfaces:
        full = model.owner_type[o]
        bases, left = _split_bases(model, full, "interface")
        above = {_signature(_written(m, mapping)) for i, mapping in _interface_closure(model, bases)
                 for m in model.members[i]}
        seen: set[tuple] = set()
        slots = []
        for m in model.members[o]:
            if m.extension or m.kind in ("constructor", "operator", "indexer") or _signature(m) in seen:
                continue
            seen.add(_signature(m))
            slots.append(Slot(model.plan(m), accessors=m.accessors, new=_signature(m) in above))
        units[full] = TypeUnit(full, "interface", o, slots, bases, left,
                               decls.types.get(full, {}).get("type_params", []), rules.types[o].python)
    for o in sorted(model.classes, key=model.depth):
        full = model.owner_type[o]
        bases, left = _split_bases(model, full, "class")
        units[full] = _class_unit(model, units, o, full, bases, left, model.members[o])
    for full, o in sorted(model.extra_classes.items()):
        iface = model.owner_type[o]
        units[full] = _class_unit(model, units, o, full, [iface.rsplit(".", 1)[-1]], [], [],
                                  internal=full not in model.decls.implementations.values()
                                  and full != model.rules.types[o].implementation)
    by_declaring: dict[str, list[Member]] = collections.defaultdict(list)
    for o in sorted(model.twins):
        for m in model.members[o]:
            if m.extension:
                by_declaring[m.declaring_type_full].append(m)
    for full, members in sorted(by_declaring.items()):
        seen = set()
        slots = []
        for m in members:
            key = (_signature(m), m.receiver.type if m.receiver else "")
            plan = model.plan(m)
            if key not in seen and (plan.action in GENERATED or plan.action == "unsupported"):
                seen.add(key)
                slots.append(Slot(plan))
        if slots:
            units[full] = TypeUnit(full, "extensions", members[0].owner, slots)
    return list(units.values())


def _class_unit(model: TypeModel, units: dict[str, TypeUnit], owner: str, full: str, bases: list[str],
                left: list[str], declared_members: list[Member], internal: bool = False) -> TypeUnit:
    """A twin class: its declared instance members, the members of its interfaces it does not declare, less what a
    generated base class already writes."""
    unit = TypeUnit(full, "class", owner, bases=bases, left_bases=left, python=model.rules.types[owner].python,
                    internal=internal)
    base = model.base_class(owner) if owner in model.classes and model.owner_type[owner] == full else ""
    inherited: dict[tuple, Slot] = {}
    base_interfaces: set[str] = set()
    while base:
        base_unit = units[model.owner_type[base]]
        for s in base_unit.slots + base_unit.hand_required:
            inherited.setdefault(_signature(s.written), s)
        base_interfaces |= {o for o, _ in _interface_closure(model, base_unit.bases)}
        base = model.base_class(base)
    declared: dict[tuple, Slot] = {}
    for m in declared_members:
        if m.extension or m.kind in ("constructor", "indexer") or (m.static and m.kind not in ("method", "operator")):
            continue
        plan = model.plan(m)
        key = _signature(m)
        if key in declared:
            continue
        slot = Slot(plan, accessors=m.accessors)
        if key in inherited:
            if _same_type(inherited[key].written.returns, m.returns) and inherited[key].plan.action in GENERATED:
                unit.inherited.append(plan)
                continue
            slot.new = True
        declared[key] = slot
    implemented: dict[tuple, Slot] = {}
    required: set[tuple] = set()  # signatures of the interface members this class must implement
    for iface, mapping in _interface_closure(model, bases):
        if iface in base_interfaces:
            continue
        iface_unit = units[model.owner_type[iface]]
        name = iface_unit.simple + (f"<{', '.join(_generic_args(_find_base(bases, iface_unit.simple)))}>"
                                    if mapping else "")
        for s in iface_unit.slots:
            written = _written(s.plan.member, mapping)
            key = _signature(written)
            mine = declared.get(key)
            if mine is not None:
                required.add(key)
                if _same_type(mine.written.returns, written.returns):
                    mine.accessors = tuple(a for a in ("get", "set") if a in set(mine.accessors) | set(s.accessors))
                    continue
                slot = Slot(s.plan, interface=name, accessors=s.accessors, member=written)
            elif key in inherited and _same_type(inherited[key].written.returns, written.returns):
                continue
            else:
                required.add(key)
                plan = replace(s.plan, receiver=model.rules.types[owner].receiver or s.plan.receiver)
                slot = Slot(plan, accessors=s.accessors, member=written)
            implemented.setdefault(key + (slot.interface,), slot)
    for slot in list(declared.values()) + list(implemented.values()):
        if slot.plan.action in GENERATED or slot.plan.action == "unsupported":
            unit.slots.append(slot)
        elif slot.interface or _signature(slot.written) in required:
            unit.hand_required.append(slot)
    return unit


def _same_type(a: str, b: str) -> bool:
    return a.replace(" ", "").rstrip("?") == b.replace(" ", "").rstrip("?")


def _find_base(bases: list[str], simple: str) -> str:
    return next((b for b in bases if _simple(b) == simple), simple)


# ----------------------------------------------------------------------------------------------------------------
# C# text


def csharp_type(text: str, value_types: set[str]) -> str:
    """A declared type in C# 7.2: `?` stays after a value type (Nullable) and is dropped after a reference type or a
    type parameter (C# 8's nullable annotations)."""
    out = []
    for ch in text:
        if ch != "?":
            out.append(ch)
            continue
        before = "".join(out).rstrip()
        if before.endswith(")"):
            out.append(ch)
            continue
        if before.endswith(">"):
            depth, j = 0, len(before) - 1
            while j >= 0:
                depth += {">": 1, "<": -1}.get(before[j], 0)
                if depth == 0:
                    break
                j -= 1
            before = before[:j]
        word = re.search(r"(\w+)$", before)
        if word and word.group(1) in value_types:
            out.append(ch)
    return "".join(out)


class Writer:
    """C# text for type units."""

    def __init__(self, decls: Declarations, rules: Rules, units: list[TypeUnit]) -> None:
        self.decls, self.rules, self.units = decls, rules, units
        self.value_types = set(VALUE_TYPES) | {
            full.rsplit(".", 1)[-1] for full, t in list(decls.types.items()) + list(decls.referenced.items())
            if t.get("kind") in ("enum", "struct")}
        self.namespace_of: dict[str, set[str]] = collections.defaultdict(set)
        for full in list(decls.types) + [r for r in decls.referenced if r.startswith("Tensorflow")]:
            self.namespace_of[full.rsplit(".", 1)[-1]].add(self.split(full)[0])
        for u in units:
            self.namespace_of[u.simple].add(self.split(u.type_full)[0])

    def split(self, full: str) -> tuple[str, list[str]]:
        parts = full.split(".")
        chain = [parts.pop()]
        while parts and ".".join(parts) in self.decls.types:
            chain.insert(0, parts.pop())
        return ".".join(parts), chain

    def type(self, text: str) -> str:
        return csharp_type(text, self.value_types)

    def parameters(self, m: Member, defaults: bool = True) -> str:
        parts = []
        params = ((m.receiver,) if m.receiver else ()) + m.params
        for p in params:
            text = f"{self.type(p.type)} {csharp_id(p.name)}"
            if p.modifier in ("params", "out", "ref", "in", "this"):
                text = f"{p.modifier} {text}"
            default = self.rules.default_expression(p)
            if default is not None and defaults:
                text += f" = {default}"
            parts.append(text)
        return ", ".join(parts)

    def head(self, slot: Slot, unit: TypeUnit, interface: bool) -> str:
        """`public override string ToString()`, `Tensor ILayer.Apply(...)`, `int count_params()`."""
        m = slot.written
        generics = f"<{', '.join(m.type_params)}>" if m.type_params else ""
        returns = self.type(m.returns)
        if interface:
            modifiers = "new " if slot.new else ""
        elif slot.interface:
            name = f"{slot.interface}.{m.name}"
            if m.kind in ("property", "field"):
                return f"{returns} {name}"
            return f"{returns} {name}{generics}({self.parameters(m, defaults=False)})"
        else:
            modifiers = "public "
            if unit.kind == "extensions":
                modifiers += "static "
            elif (m.name, tuple(p.type for p in m.params)) in OVERRIDES:
                modifiers += "override "
            elif slot.new:
                modifiers += "new "
        if m.kind in ("property", "field"):
            return f"{modifiers}{returns} {m.name}"
        if m.kind == "operator":
            return f"public static {returns} operator {OPERATOR_SYMBOLS[m.name]}({self.parameters(m)})"
        return f"{modifiers}{returns} {m.name}{generics}({self.parameters(m)})"

    def member_lines(self, unit: TypeUnit, slot: Slot, fields: dict[tuple, str]) -> list[str]:
        plan, m = slot.plan, slot.written
        head = self.head(slot, unit, unit.kind == "interface")
        prop = m.kind in ("property", "field")
        if unit.kind == "interface":
            if prop:
                return [f"{head} {{ {' '.join(a + ';' for a in slot.accessors)} }}"]
            return [head + ";"]
        receiver = m.receiver.name if m.receiver else "this"
        if plan.action == "unsupported":
            throw = f"throw FaceBridge.NotSupported(\"{plan.member.key}\", {_quote(plan.reason)})"
            if prop and "set" in slot.accessors:
                return [f"{head} {{ get => {throw}; set => {throw}; }}"]
            return [f"/// <summary>Not supported: {_xml(plan.reason)}</summary>", f"{head} => {throw};"]
        call = fields[_field_key(plan)]
        returns = _value_tuples(self.type(m.returns))
        if plan.function:
            what = f"<c>{plan.path}</c> of the operands"
            return [f"/// <summary>Python's {what}.</summary>",
                    f"{head} => {call}.Call<{returns}>({', '.join(a.expression for a in plan.args)});"]
        values = ", ".join([receiver] + [a.expression for a in plan.args])
        if plan.action == "get":
            body = f"{call}.Get<{returns}>({receiver})"
        elif m.returns == "void":
            body = f"{call}.Run({values})"
        else:
            body = f"{call}.Call<{returns}>({values})"
        what = f"<c>{plan.path}</c> of the Python object" + (f" (via <c>{plan.receiver}</c>)" if plan.receiver else "")
        lines = [f"/// <summary>Python's {what}.</summary>"]
        if prop and "set" in slot.accessors:
            if plan.readonly:
                setter = f"throw FaceBridge.NotSupported(\"{plan.member.key}\", {_quote(plan.readonly)})"
            else:
                setter = f"{call}.Set({receiver}, value)"
            lines.append(f"{head} {{ get => {body}; set => {setter}; }}")
        else:
            lines.append(f"{head} => {body};")
        return lines

    def usings(self, unit: TypeUnit, extra: list[str], slots: list[Slot] | None = None) -> list[str]:
        """The using directives of the TF.NET namespaces a unit's members (or `slots`) and bases name."""
        words: set[str] = set()
        for s in unit.slots if slots is None else slots:
            m = s.written
            for text in [m.returns] + [p.type for p in m.params] + ([m.receiver.type] if m.receiver else []):
                words |= set(re.findall(r"[A-Za-z_]\w*", text))
            if s.interface:
                words.add(_simple(s.interface))
        for b in unit.bases:
            words |= set(re.findall(r"[A-Za-z_]\w*", b))
        found = {"System", "System.Collections.Generic"} | set(extra)
        found |= {DOTNET_NAMESPACES[w] for w in words if w in DOTNET_NAMESPACES}
        for w in words:
            if len(self.namespace_of.get(w, ())) == 1:
                found |= self.namespace_of[w]
        own = self.split(unit.type_full)[0]
        return [f"using {u};" for u in sorted(found - {own, ""})]

    def render(self, unit: TypeUnit, extra_usings: list[str] = ()) -> str:
        source = self.decls.source
        header = [
            "// <auto-generated>",
            f"// TensorFlow.NET's declarations (names and signatures) at {source.get('repo', decl_module.REPO)}@"
            f"{self.decls.commit},",
            f"// type {unit.owner}" + (f" ({unit.kind} of {unit.type_full})" if unit.kind == "extensions" else "")
            + (f"; implemented by rule over FaceBridge on its Python twin {unit.python}." if unit.python and unit.kind
               in ("class", "extensions") else "; declared as TF.NET declares it.") + " Written by",
            "// `python -m tools.tfnet_surface.generate` from tools/tfnet_surface/declarations.json and rules.toml:",
            "// change those and rerun, do not edit.",
            "// </auto-generated>",
            "#pragma warning disable 1591",
        ]
        lines = header + self.usings(unit, list(extra_usings)) + [""]
        ns, chain = self.split(unit.type_full)
        if unit.kind == "enum":
            base = f" : {', '.join(unit.bases)}" if unit.bases else ""
            body = [f"{s.plan.member.name}" + (f" = {s.plan.member.value}" if s.plan.member.value else "") + ","
                    for s in unit.slots]
            return "\n".join(lines + _wrap(ns, chain, self.kinds(ns, chain, "enum"), base, body, False)) + "\n"
        fields = _field_names(unit) if unit.kind != "interface" else {}
        body = [f"private static readonly FaceCall {name} = FaceBridge.Function({_quote(attr)}, {_quote(spec)});"
                if receiver == FUNCTION else
                f"private static readonly FaceMethod {name} = FaceBridge.Method({_quote(attr)}, {_quote(spec)}"
                + (f", {_quote(receiver)})" if receiver else ")") + ";"
                for (attr, spec, receiver), name in sorted(fields.items(), key=lambda kv: kv[1])]
        body += [""] if body else []
        for slot in unit.slots:
            body += self.member_lines(unit, slot, fields)
        kind = {"interface": "interface", "extensions": "static class"}.get(unit.kind, "class")
        if unit.internal:
            kind = "sealed class"
        generics = f"<{', '.join(unit.type_params)}>" if unit.type_params else ""
        bases = ", ".join(unit.bases)
        lines += _wrap(ns, chain[:-1] + [chain[-1] + generics], self.kinds(ns, chain, kind),
                       f" : {bases}" if bases else "", body, unit.internal)
        return "\n".join(lines) + "\n"

    def kinds(self, namespace: str, chain: list[str], last: str) -> list[str]:
        kinds = []
        for i in range(len(chain) - 1):
            full = ".".join([namespace] + chain[: i + 1])
            kinds.append("partial interface" if self.decls.types.get(full, {}).get("kind") == "interface"
                         else "partial class")
        return kinds + [last if last == "enum" else f"partial {last}".replace("partial static", "static partial")
                        .replace("partial sealed", "sealed partial")]

    def twins(self) -> str:
        """FaceTypes.g.cs: each generated class with its Python twin, subclasses first."""
        depth: dict[str, int] = {}
        by_simple = {u.simple: u for u in self.units if u.kind == "class"}

        def level(u: TypeUnit) -> int:
            if u.type_full not in depth:
                parent = next((by_simple[_simple(b)] for b in u.bases if _simple(b) in by_simple), None)
                depth[u.type_full] = 0 if parent is None else level(parent) + 1
            return depth[u.type_full]

        classes = sorted((u for u in self.units if u.kind == "class"), key=lambda u: (-level(u), u.type_full))
        lines = [
            "// <auto-generated>",
            f"// Each generated TF.NET class with its Python twin (rules.toml [types]) at "
            f"{self.decls.source.get('repo', decl_module.REPO)}@{self.decls.commit}:",
            "// (class, Python class, attribute holding the twin instance or null), subclasses first, so the codec",
            "// wraps a Python object as the first class it is an instance of that fits the type asked for. Written by",
            "// `python -m tools.tfnet_surface.generate`: do not edit.",
            "// </auto-generated>",
            "using System;",
            "using System.Collections.Generic;",
            "",
            "namespace Tensorflow",
            "{",
            INDENT + "internal static partial class FaceTypes",
            INDENT + "{",
            INDENT * 2 + "static partial void Twins(List<Tuple<Type, string, string>> twins)",
            INDENT * 2 + "{",
        ]
        for u in classes:
            for python, attribute in ((u.python, ""),) + self.rules.types[u.owner].alike:
                held = _quote(attribute) if attribute else "null"
                lines.append(INDENT * 3 + f"twins.Add(new Tuple<Type, string, string>(typeof(global::{u.type_full}), "
                             f"{_quote(python)}, {held}));")
        lines += [INDENT * 2 + "}", INDENT + "}", "}"]
        return "\n".join(lines) + "\n"


FUNCTION = "\0function"  # a field key's receiver slot for a FaceCall (operators), not a FaceMethod


def _field_key(plan: Plan) -> tuple[str, str, str]:
    return (plan.path, plan.signature if plan.action == "call" else "", FUNCTION if plan.function else plan.receiver)


def _field_names(unit: TypeUnit) -> dict[tuple[str, str, str], str]:
    names: dict[tuple[str, str, str], str] = {}
    used: set[str] = set()
    for slot in unit.slots:
        if slot.plan.action not in ("call", "get"):
            continue
        key = _field_key(slot.plan)
        if key in names:
            continue
        base = "__" + slot.plan.member.name.lstrip("@")
        name, k = base, 1
        while name in used:
            name, k = f"{base}_{k}", k + 1
        used.add(name)
        names[key] = name
    return names


def _value_tuples(type_name: str) -> str:
    from tools.tfnet_surface.generate import value_tuples

    return value_tuples(type_name)


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _wrap(namespace: str, chain: list[str], kinds: list[str], bases: str, body: list[str], internal: bool) -> list[str]:
    out = [f"namespace {namespace}", "{"]
    depth = 1
    for i, name in enumerate(chain):
        last = i == len(chain) - 1
        access = "internal" if internal and last else "public"
        out.append(INDENT * depth + f"{access} {kinds[i]} {name}{bases if last else ''}")
        out.append(INDENT * depth + "{")
        depth += 1
    out.extend(INDENT * depth + line if line else "" for line in body)
    for _ in chain:
        depth -= 1
        out.append(INDENT * depth + "}")
    out.append("}")
    return out


def file_names(units: list[TypeUnit], taken: set[str]) -> dict[str, TypeUnit]:
    """`<Simple>.g.cs` per unit (the full name where two share a simple name or an API file has it)."""
    count = collections.Counter(u.simple for u in units)
    out = {}
    for u in units:
        name = (u.simple if count[u.simple] == 1 and f"{u.simple}.g.cs" not in taken else u.type_full) + ".g.cs"
        out[name] = u
    return out


def generate_types(decls: Declarations, rules: Rules, taken: set[str] = frozenset(),
                   extra_usings: list[str] = ()) -> dict[str, str]:
    """File name -> C# source for TF.NET's types, and FaceTypes.g.cs."""
    units = build_type_units(decls, rules)
    writer = Writer(decls, rules, units)
    files = {name: writer.render(u, list(extra_usings)) for name, u in file_names(units, set(taken)).items()}
    files["FaceTypes.g.cs"] = writer.twins()
    return files



def type_coverage(decls: Declarations, rules: Rules, owners: list[str] | None = None
                  ) -> list[tuple[str, collections.Counter]]:
    """Per type owner: members (names, overloads together) by what the rule does — `rule` (every overload generated
    with no table entry; an enum member as declared), `mapped` (some overload needed a table entry), else the first
    other action of an overload (`unsupported`, `hand`, `skip`) — and overloads by action."""
    model = TypeModel(decls, rules)
    rows = []
    for owner in owners or type_owners(decls):
        if owner not in model.members:
            raise ValueError(f"{owner} is not a type owner of the declarations")
        counts: collections.Counter = collections.Counter()
        by_name: dict[str, list[Plan]] = collections.defaultdict(list)
        seen: set[tuple] = set()
        for m in model.members[owner]:
            key = (_signature(m), m.receiver.type if m.receiver else "")
            if key in seen:
                continue
            seen.add(key)
            plan = model.plan(m)
            by_name[m.name].append(plan)
            counts["overloads"] += 1
            counts[f"overloads_{plan.action}"] += 1
        for plans in by_name.values():
            counts["members"] += 1
            generated = [p for p in plans if p.action in GENERATED]
            if len(generated) == len(plans):
                counts["mapped" if any(p.mapped for p in plans) else "rule"] += 1
            else:
                counts[next(p.action for p in plans if p.action not in GENERATED)] += 1
        rows.append((owner, counts))
    return rows


def skip_reasons(decls: Declarations, rules: Rules) -> collections.Counter:
    """Why type members have no rule: reason -> overloads (a TF.NET type named is counted by the type)."""
    model = TypeModel(decls, rules)
    reasons: collections.Counter = collections.Counter()
    for members in model.members.values():
        for m in members:
            plan = model.plan(m)
            if plan.action == "skip":
                reasons[re.sub(r"C# delegate parameter \w+", "C# delegate parameter", plan.reason)] += 1
    return reasons
