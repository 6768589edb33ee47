"""Writes TF.NET's API classes as C# source, one file per class, each member implemented by rule over FaceBridge.

    python -m tools.tfnet_surface.generate OUT_DIR [--owners tf.linalg,tf.image] [--using NS ...] [--check]
    python -m tools.tfnet_surface.generate --report [--owners ...]

OUT_DIR receives `<Class>.g.cs` for each owner (tf.linalg -> LinalgApi.g.cs) and for the classes handing them out
(tf -> tensorflow.g.cs with the `linalg` property), and, when rules.toml's `[generate] types` is true, the files of
TF.NET's types (typegen.py: ILayer.g.cs, Layer.g.cs, TF_DataType.g.cs, ..., FaceTypes.g.cs). Owners default to
`[generate] owners`. `--check` compares with OUT_DIR instead of writing (exit 1 on a difference). `--report` prints
what the rule covers: the entry-point owners asked for, and the type owners (all of them, or those in --owners).
"""

from __future__ import annotations

import argparse
import collections
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tools.tfnet_surface import declarations as decl_module
from tools.tfnet_surface import rules as rules_module
from tools.tfnet_surface.declarations import Declarations, Member
from tools.tfnet_surface.plan import Plan, _simple, csharp_id, owner_types, plan_member, validate
from tools.tfnet_surface.rules import Rules
from tools.tfnet_surface.typegen import generate_types, skip_reasons, type_coverage, type_owners

INDENT = "    "


@dataclass
class Unit:
    """One C# type to write: an owner's class (or interface with its implementing class)."""

    type_full: str
    kind: str  # "class" or "interface"
    owner: str
    implementation: str = ""  # for an interface: the implementing class's full name
    plans: list[Plan] = field(default_factory=list)
    accessors_only: bool = False


def _is_entry(owner: str) -> bool:
    return owner.split(".")[0] in ("tf", "keras", "np")


def _ancestors(owner: str) -> list[tuple[str, str]]:
    """(parent owner, attribute) pairs from the root down: keras.preprocessing.sequence -> (keras, preprocessing),
    (keras.preprocessing, sequence)."""
    parts = owner.split(".")
    return [(".".join(parts[:i]), parts[i]) for i in range(1, len(parts))]


def build_units(decls: Declarations, rules: Rules, owners: list[str]) -> list[Unit]:
    """The types to write for `owners`, each with the plan of every overload; the owners' parents get the
    properties that hand the owners out."""
    known = {m.owner for m in decls.members}
    missing = [o for o in owners if o not in known]
    if missing:
        raise ValueError(f"owners not in the declarations: {missing}")
    not_entry = [o for o in owners if not _is_entry(o)]
    if not_entry:
        raise ValueError(f"only entry-point owners (tf.*, keras.*, np.*) are generated so far, not {not_entry}")
    validate(rules, decls)
    by_owner: dict[str, list[Member]] = collections.defaultdict(list)
    for m in decls.members:
        by_owner[m.owner].append(m)
    wanted: dict[str, set[str] | None] = {o: None for o in owners}  # None: every member
    for o in owners:
        for parent, attribute in _ancestors(o):
            if parent in known and wanted.get(parent, set()) is not None:
                wanted.setdefault(parent, set()).add(attribute)
    types = owner_types(decls, list(wanted))
    units: list[Unit] = []
    for owner in sorted(wanted):
        names = wanted[owner]
        members = [m for m in by_owner[owner] if names is None or m.name in names]
        if not members:
            continue
        first = members[0]
        impl = decls.implementations.get(first.type_full, "") if first.type_kind == "interface" else ""
        if first.type_kind == "interface" and not impl:
            raise ValueError(f"{owner} is the interface {first.type_full} and the declarations name no class "
                             "implementing it")
        unit = Unit(first.type_full, first.type_kind, owner, impl, accessors_only=names is not None)
        seen: set[tuple[str, tuple[str, ...]]] = set()
        for m in members:
            signature = (m.name, tuple(p.type for p in m.params))
            if signature in seen:  # the same overload declared twice (#if branches)
                continue
            seen.add(signature)
            unit.plans.append(plan_member(rules, m, set(types)))
        units.append(unit)
    return units


# ----------------------------------------------------------------------------------------------------------------
# C# text


def _split(decls: Declarations, full: str) -> tuple[str, list[str]]:
    """Namespace and the chain of type names: Tensorflow.tensorflow.LinalgApi -> (Tensorflow, [tensorflow,
    LinalgApi]) — a prefix is a type when the declarations know it as one."""
    parts = full.split(".")
    chain = [parts.pop()]
    while parts and ".".join(parts) in decls.types:
        chain.insert(0, parts.pop())
    return ".".join(parts), chain


def _namespaces(decls: Declarations, units: list[Unit], unit: Unit) -> set[str]:
    """The namespaces of the TF.NET types a unit's signatures name (simple names the declarations know once)."""
    by_simple: dict[str, set[str]] = collections.defaultdict(set)
    for full in decls.types:
        by_simple[full.rsplit(".", 1)[-1]].add(_split(decls, full)[0])
    for u in units:
        for full in (u.type_full, u.implementation):
            if full:
                by_simple[full.rsplit(".", 1)[-1]].add(_split(decls, full)[0])
    words: set[str] = set()
    for plan in unit.plans:
        m = plan.member
        for text in [m.returns] + [p.type for p in m.params]:
            words.update(w for w in _identifiers(text))
    found = set()
    for w in words:
        if len(by_simple.get(w, ())) == 1:
            found |= by_simple[w]
    return found


def _identifiers(text: str) -> list[str]:
    out, word = [], ""
    for ch in text + " ":
        if ch.isalnum() or ch == "_":
            word += ch
        else:
            if word:
                out.append(word)
            word = ""
    return out


def _parameters(rules: Rules, m: Member) -> str:
    parts = []
    for p in m.params:
        text = f"{p.type} {csharp_id(p.name)}"
        if p.modifier in ("params", "out", "ref", "in", "this"):
            text = f"{p.modifier} {text}"
        default = rules.default_expression(p)
        if default is not None:
            text += f" = {default}"
        parts.append(text)
    return ", ".join(parts)


def _generics(m: Member) -> str:
    return f"<{', '.join(m.type_params)}>" if m.type_params else ""


def _field_names(unit: Unit) -> dict[tuple[str, str], str]:
    """One static FaceCall per distinct (Python path, argument spec): __eye, __eye_1, ..."""
    names: dict[tuple[str, str], str] = {}
    used: set[str] = set()
    for plan in unit.plans:
        if plan.action not in ("call", "get"):
            continue
        key = (plan.path, plan.signature)
        if key in names:
            continue
        base = "__" + plan.member.name.lstrip("@")
        name, k = base, 1
        while name in used:
            name, k = f"{base}_{k}", k + 1
        used.add(name)
        names[key] = name
    return names


def _class_of(decls: Declarations, units: list[Unit], type_name: str) -> str:
    """The class an accessor instantiates: the owner type itself, or the class implementing an interface."""
    for u in units:
        if u.type_full.rsplit(".", 1)[-1] == _simple(type_name):
            return (u.implementation or u.type_full).rsplit(".", 1)[-1]
    raise ValueError(f"no generated type for accessor type {type_name}")


def _member_lines(decls: Declarations, rules: Rules, units: list[Unit], unit: Unit, fields: dict[tuple[str, str], str],
                  interface: bool) -> list[str]:
    lines: list[str] = []
    for plan in unit.plans:
        m = plan.member
        if plan.action == "skip" or (plan.action == "hand" and not interface):
            continue
        static = "static " if m.static and not interface else ""
        public = "" if interface else "public "
        if m.kind in ("property", "field"):
            head = f"{public}{static}{m.returns} {m.name}"
            if interface:
                lines.append(f"{head} {{ get; }}")
            elif plan.action == "accessor":
                lines.append(f"{head} {{ get; }} = new {_class_of(decls, units, m.returns)}();")
            elif plan.action == "get":
                lines.append(f"/// <summary>Python's <c>{plan.path}</c>.</summary>")
                lines.append(f"{head} => {fields[(plan.path, plan.signature)]}.Get<{m.returns}>();")
            elif plan.action == "unsupported":
                lines.append(f"{head} => throw FaceBridge.NotSupported(\"{m.key}\", {_quote(plan.reason)});")
            continue
        head = f"{public}{static}{m.returns} {m.name}{_generics(m)}({_parameters(rules, m)})"
        if interface:
            lines.append(head + ";")
        elif plan.action == "unsupported":
            lines.append(f"/// <summary>Not supported: {_xml(plan.reason)}</summary>")
            lines.append(f"{head} => throw FaceBridge.NotSupported(\"{m.key}\", {_quote(plan.reason)});")
        else:
            call = fields[(plan.path, plan.signature)]
            values = ", ".join(a.expression for a in plan.args)
            if len(plan.args) == 1 and plan.args[0].how != "keyword" and plan.member.params[0].type.endswith("[]"):
                values = f"(object){values}"  # one array argument is one value, not the params array
            lines.append(f"/// <summary>Python's <c>{plan.path}</c>.</summary>")
            if m.returns == "void":
                lines.append(f"{head} => {call}.Run({values});")
            else:
                lines.append(f"{head} => {call}.Call<{value_tuples(m.returns)}>({values});")
    return lines


def value_tuples(type_name: str) -> str:
    """A type with tuple syntax spelt as System.ValueTuple<...>: mcs cannot read `(string, string[])` as a generic
    argument inside an expression."""
    out, i = [], 0
    while i < len(type_name):
        ch = type_name[i]
        if ch != "(":
            out.append(ch)
            i += 1
            continue
        depth, j = 1, i + 1
        while depth:
            depth += {"(": 1, ")": -1}.get(type_name[j], 0)
            j += 1
        items, depth, start = [], 0, i + 1
        for k in range(i + 1, j - 1):
            c = type_name[k]
            depth += {"(": 1, "<": 1, ")": -1, ">": -1}.get(c, 0)
            if c == "," and depth == 0:
                items.append(type_name[start:k])
                start = k + 1
        items.append(type_name[start: j - 1])
        if len(items) > 7:
            raise ValueError(f"tuple of {len(items)} items in {type_name}: not written")
        out.append("System.ValueTuple<" + ", ".join(value_tuples(t.strip()) for t in items) + ">")
        i = j
    return "".join(out)


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _wrap(namespace: str, chain: list[str], kinds: list[str], bases: str, body: list[str]) -> list[str]:
    """`namespace N { public partial class A { public partial class B : bases { body } } }`."""
    out = [f"namespace {namespace}", "{"]
    depth = 1
    for i, name in enumerate(chain):
        suffix = f" : {bases}" if bases and i == len(chain) - 1 else ""
        out.append(INDENT * depth + f"public partial {kinds[i]} {name}{suffix}")
        out.append(INDENT * depth + "{")
        depth += 1
    innermost = INDENT * depth
    out.extend(innermost + line if line else "" for line in body)
    for _ in chain:
        depth -= 1
        out.append(INDENT * depth + "}")
    out.append("}")
    return out


def _kinds(decls: Declarations, namespace: str, chain: list[str], last: str) -> list[str]:
    kinds = []
    for i in range(len(chain) - 1):
        full = ".".join([namespace] + chain[: i + 1])
        kinds.append("interface" if decls.types.get(full, {}).get("kind") == "interface" else "class")
    return kinds + [last]


def render(decls: Declarations, rules: Rules, units: list[Unit], unit: Unit, extra_usings: list[str]) -> str:
    """The C# source of one unit."""
    source = decls.source
    header = [
        "// <auto-generated>",
        f"// TensorFlow.NET's declarations (names and signatures) at {source.get('repo', decl_module.REPO)}@"
        f"{decls.commit},",
        f"// owner {unit.owner}; implemented by rule over FaceBridge. Written by",
        "// `python -m tools.tfnet_surface.generate` from tools/tfnet_surface/declarations.json and rules.toml:",
        "// change those and rerun, do not edit.",
        "// </auto-generated>",
        "#pragma warning disable 1591",
    ]
    usings = {"System", "System.Collections.Generic"} | _namespaces(decls, units, unit) | set(extra_usings)
    own = {_split(decls, unit.type_full)[0], _split(decls, unit.implementation)[0] if unit.implementation else ""}
    lines = header + [f"using {u};" for u in sorted(usings - own - {""})] + [""]
    fields = _field_names(unit)
    field_lines = [f"private static readonly FaceCall {name} = FaceBridge.Function({_quote(path)}, {_quote(sig)});"
                   for (path, sig), name in sorted(fields.items(), key=lambda kv: kv[1])]
    if unit.kind == "interface":
        ns, chain = _split(decls, unit.type_full)
        body = _member_lines(decls, rules, units, unit, fields, interface=True)
        lines += _wrap(ns, chain, _kinds(decls, ns, chain, "interface"), "", body) + [""]
        ins, ichain = _split(decls, unit.implementation)
        body = field_lines + ([""] if field_lines else []) + _member_lines(decls, rules, units, unit, fields, False)
        lines += _wrap(ins, ichain, _kinds(decls, ins, ichain, "class"), unit.type_full.rsplit(".", 1)[-1], body)
    else:
        ns, chain = _split(decls, unit.type_full)
        body = field_lines + ([""] if field_lines else []) + _member_lines(decls, rules, units, unit, fields, False)
        lines += _wrap(ns, chain, _kinds(decls, ns, chain, "class"), "", body)
    return "\n".join(lines) + "\n"


def file_name(decls: Declarations, unit: Unit, units: list[Unit]) -> str:
    simple = unit.type_full.rsplit(".", 1)[-1]
    clash = sum(1 for u in units if u.type_full.rsplit(".", 1)[-1] == simple) > 1
    return (unit.type_full if clash else simple) + ".g.cs"


def generate(decls: Declarations, rules: Rules, owners: list[str], extra_usings: list[str] = ()) -> dict[str, str]:
    """File name -> C# source for `owners`."""
    units = build_units(decls, rules, owners)
    return {file_name(decls, u, units): render(decls, rules, units, u, list(extra_usings)) for u in units}


# ----------------------------------------------------------------------------------------------------------------
# Coverage


def generate_all(decls: Declarations, rules: Rules, owners: list[str], extra_usings: list[str] = (),
                 types: bool = True) -> dict[str, str]:
    """The API owners' files and, with `types`, those of TF.NET's types."""
    files = generate(decls, rules, owners, extra_usings)
    if types:
        files.update(generate_types(decls, rules, set(files), extra_usings))
    return files


def coverage(decls: Declarations, rules: Rules, owners: list[str]) -> list[tuple[str, collections.Counter]]:
    """Per owner (the owners asked for, not their parents): counts of members (names, overloads together) and of
    overloads by what the rule does. A member counts `rule` when every overload is generated with no [members] entry,
    `mapped` when some needed one, else by its first non-generated action."""
    rows = []
    for unit in build_units(decls, rules, owners):
        if unit.accessors_only:
            continue
        counts: collections.Counter = collections.Counter()
        by_name: dict[str, list[Plan]] = collections.defaultdict(list)
        for plan in unit.plans:
            by_name[plan.member.name].append(plan)
            counts["overloads"] += 1
            counts[f"overloads_{plan.action}"] += 1
        for plans in by_name.values():
            counts["members"] += 1
            generated = [p for p in plans if p.action in ("call", "accessor", "get")]
            if len(generated) == len(plans):
                counts["mapped" if any(p.mapped for p in plans) else "rule"] += 1
            else:
                counts[next(p.action for p in plans if p.action not in ("call", "accessor", "get"))] += 1
        rows.append((unit.owner, counts))
    return rows


def format_coverage(rows: list[tuple[str, collections.Counter]], label: str = "owner") -> str:
    cols = ("members", "rule", "mapped", "unsupported", "hand", "skip", "overloads")
    out = [f"{label:32}" + "".join(f"{c:>12}" for c in cols)]
    total: collections.Counter = collections.Counter()
    for owner, counts in rows:
        total.update(counts)
        out.append(f"{owner:32}" + "".join(f"{counts[c]:>12}" for c in cols))
    out.append(f"{'total':32}" + "".join(f"{total[c]:>12}" for c in cols))
    done = total["rule"] + total["mapped"]
    out.append(f"by rule: {done}/{total['members']} members ({100.0 * done / max(1, total['members']):.1f}%), "
               f"{total['rule']} with no table entry; throwing {total['unsupported']}, by hand {total['hand']}, "
               f"no rule {total['skip']}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.tfnet_surface.generate", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", nargs="?", type=Path, help="folder to write the .g.cs files to")
    parser.add_argument("--owners", help="comma-separated owners (default: rules.toml's [generate] owners)")
    parser.add_argument("--using", action="append", default=[], help="an extra using directive in every file")
    parser.add_argument("--declarations", type=Path, default=decl_module.DEFAULT_PATH)
    parser.add_argument("--rules", type=Path, default=rules_module.DEFAULT_PATH)
    parser.add_argument("--check", action="store_true", help="compare with OUT instead of writing")
    parser.add_argument("--report", action="store_true", help="print the coverage of the owners")
    args = parser.parse_args(argv)
    decls = decl_module.load(args.declarations)
    rules = rules_module.load(args.rules)
    asked = args.owners.split(",") if args.owners else None
    kinds = set(type_owners(decls))
    owners = [o for o in asked if o not in kinds] if asked else rules.owners_generated
    if args.report:
        if owners:
            print(format_coverage(coverage(decls, rules, owners)))
        if asked is None or any(o in kinds for o in asked):
            chosen = [o for o in asked if o in kinds] if asked else None
            print(format_coverage(type_coverage(decls, rules, chosen), "type"))
            if chosen is None:
                print("no rule, by reason (overloads): " + "; ".join(
                    f"{reason} {n}" for reason, n in skip_reasons(decls, rules).most_common()))
    if args.out is None:
        if not args.report:
            parser.error("give OUT (or --report)")
        return 0
    files = generate_all(decls, rules, owners, args.using, rules.generate_types)
    if args.check:
        present = {p.name for p in args.out.glob("*.g.cs")}
        stale = sorted(present - set(files))
        differ = sorted(n for n, text in files.items() if not (args.out / n).is_file()
                        or (args.out / n).read_text(encoding="utf-8") != text)
        if stale or differ:
            print(f"{args.out}: out of date; differ or missing: {differ}; not generated any more: {stale}")
            return 1
        print(f"{args.out}: {len(files)} files up to date")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    for stale in set(p.name for p in args.out.glob("*.g.cs")) - set(files):
        (args.out / stale).unlink()
    for name, text in files.items():
        tmp = args.out / (name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(args.out / name)
    print(f"{args.out}: {len(files)} files for {len(owners)} owners")
    return 0


if __name__ == "__main__":
    sys.exit(main())
