"""TensorFlow.NET's declarations as the generator reads them: `declarations.json`, written by `import`.

The member list comes from the surface tool's `surface.json` (TF.NET's public surface at one commit, parsed from its
sources with tree-sitter); `import` keeps only the facts the generator needs (owner, kind, name, parameters with
types, defaults and modifiers, return type, file and line), checks each one against TF.NET's sources at that commit
(the declared name stands on the recorded line), and adds from the same sources which class implements each API
interface (`IInitializersApi` -> `InitializersApi`) and the declaration facts surface.json leaves out (sources.py):
enum members' values, extension methods' `this` parameter, properties' public accessors, types' type parameters and
base lists as written, and where the other TF.NET types that signatures name are declared. No method body or comment
is read into the output.

    python -m tools.tfnet_surface.declarations import SURFACE_JSON --git-dir TFNET_GIT_DIR [--out declarations.json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tools.tfnet_surface import sources

HERE = Path(__file__).resolve().parent
DEFAULT_PATH = HERE / "declarations.json"
PINNED_COMMIT = "6ce6066551ce80202119a121a05b006aadd9ef37"
REPO = "SciSharp/TensorFlow.NET"

#: Member fields kept from surface.json (facts of the declaration).
MEMBER_FIELDS = ("owner", "type_full", "type_kind", "declaring_type_full", "kind", "name", "params", "returns",
                 "static", "extension", "type_params", "file", "line", "value", "receiver", "accessors")
TYPE_FIELDS = ("owner", "name", "kind", "bases", "file", "line", "type_params", "base_list")


@dataclass(frozen=True)
class Param:
    """One parameter: C# type, name, default expression (None: no default), modifier (params, out, ref, this)."""

    name: str
    type: str
    default: str | None = None
    modifier: str | None = None


@dataclass(frozen=True)
class Member:
    """One declared member (one overload) of TF.NET's surface."""

    owner: str
    type_full: str
    type_kind: str
    kind: str
    name: str
    params: tuple[Param, ...]
    returns: str
    static: bool = False
    extension: bool = False
    type_params: tuple[str, ...] = ()
    declaring_type_full: str = ""
    file: str = ""
    line: int = 0
    value: str | None = None  # an enum member's value as written (None: implicit, the previous one + 1)
    receiver: Param | None = None  # an extension method's `this` parameter
    accessors: tuple[str, ...] = ("get",)  # a property's public accessors

    @property
    def key(self) -> str:
        """`owner.name`, as the rules tables name a member."""
        return f"{self.owner}.{self.name}"

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> Member:
        params = tuple(Param(p["name"], p["type"], p.get("default"), p.get("modifier")) for p in row.get("params", ()))
        receiver = row.get("receiver")
        return cls(owner=row["owner"], type_full=row["type_full"], type_kind=row.get("type_kind", "class"),
                   kind=row["kind"], name=row["name"], params=params, returns=row.get("returns") or "void",
                   static=bool(row.get("static")), extension=bool(row.get("extension")),
                   type_params=tuple(row.get("type_params") or ()),
                   declaring_type_full=row.get("declaring_type_full") or row["type_full"],
                   file=row.get("file", ""), line=int(row.get("line") or 0), value=row.get("value"),
                   receiver=Param(receiver["name"], receiver["type"], None, "this") if receiver else None,
                   accessors=tuple(row.get("accessors") or ("get",)))


@dataclass
class Declarations:
    """The generator's input: members, TF.NET's types by full name, interface implementations, provenance."""

    source: dict[str, Any]
    members: list[Member]
    types: dict[str, dict[str, Any]] = field(default_factory=dict)
    implementations: dict[str, str] = field(default_factory=dict)
    referenced: dict[str, dict[str, Any]] = field(default_factory=dict)  # other TF.NET types signatures name

    @property
    def commit(self) -> str:
        return str(self.source["commit"])


def load(path: Path = DEFAULT_PATH) -> Declarations:
    """Reads declarations.json (or a fixture of the same form)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return from_dict(data)


def from_dict(data: dict[str, Any]) -> Declarations:
    """Declarations from their JSON form; members need owner, type_full, kind, name, params and returns."""
    for key in ("source", "members"):
        if key not in data:
            raise ValueError(f"declarations: missing {key!r} (have {sorted(data)})")
    if "commit" not in data["source"]:
        raise ValueError("declarations: source has no 'commit'")
    members = [Member.from_json(row) for row in data["members"]]
    return Declarations(source=dict(data["source"]), members=members, types=dict(data.get("types", {})),
                        implementations=dict(data.get("implementations", {})),
                        referenced=dict(data.get("referenced", {})))


def _git_show(git_dir: Path, commit: str, path: str) -> str:
    out = subprocess.run(["git", "-C", str(git_dir), "show", f"{commit}:{path}"], capture_output=True, check=False)
    if out.returncode != 0:
        raise ValueError(f"git show {commit}:{path} failed: {out.stderr.decode(errors='replace').strip()}")
    return out.stdout.decode("utf-8-sig", errors="replace")


def _source_names(member: dict[str, Any]) -> tuple[str, ...]:
    """Names one of which the declaration line holds (operators and indexers by their C# spelling)."""
    name = member["name"]
    if member["kind"] == "constructor":
        return (member["type_full"].rsplit(".", 1)[-1].split("<")[0],)
    if member["kind"] == "operator":
        return ("operator",)
    if member["kind"] == "indexer":
        return ("this",)
    return (name.lstrip("@"),)


def verify(members: list[dict[str, Any]], git_dir: Path, commit: str) -> list[str]:
    """Members whose recorded line in TF.NET's sources at `commit` does not declare them (name not on the line,
    nor on the next two: attributes and line breaks)."""
    problems: list[str] = []
    cache: dict[str, list[str]] = {}
    for m in members:
        lines = cache.get(m["file"])
        if lines is None:
            lines = cache[m["file"]] = _git_show(git_dir, commit, m["file"]).splitlines()
        window = " ".join(lines[max(0, m["line"] - 1): m["line"] + 2])
        if not any(re.search(rf"\b{re.escape(n)}\b", window) for n in _source_names(m)):
            problems.append(f"{m['owner']}.{m['name']} at {m['file']}:{m['line']}")
    return problems


_CLASS = re.compile(r"\b(?:class|struct)\s+(\w+)\s*(?:<[^>{]*>)?\s*:\s*([^{]+?)\s*(?:where\b[^{]*)?\{", re.S)
_NAMESPACE = re.compile(r"\bnamespace\s+([\w.]+)")


def implementations(git_dir: Path, commit: str, interfaces: set[str]) -> dict[str, str]:
    """For each interface (full name), the one class in TF.NET's sources at `commit` that lists it as a base
    (simple names matched); interfaces that several classes implement are left out."""
    simple = {full.rsplit(".", 1)[-1]: full for full in interfaces}
    listing = subprocess.run(["git", "-C", str(git_dir), "ls-tree", "-r", "--name-only", commit, "src"],
                             capture_output=True, text=True, check=True).stdout.split()
    found: dict[str, set[str]] = {}
    for path in sorted(p for p in listing if p.endswith(".cs")):
        text = _git_show(git_dir, commit, path)
        if not any(name in text for name in simple):
            continue
        namespace = _NAMESPACE.search(text)
        for match in _CLASS.finditer(text):
            bases = {b.strip().split("<")[0] for b in match.group(2).split(",")}
            for name in bases & set(simple):
                found.setdefault(simple[name], set()).add(
                    f"{namespace.group(1) if namespace else ''}.{match.group(1)}".lstrip("."))
    return {full: next(iter(classes)) for full, classes in found.items() if len(classes) == 1}


def _is_entry(owner: str) -> bool:
    return owner.split(".")[0] in ("tf", "keras", "np")


def import_surface(surface_path: Path, git_dir: Path, out: Path) -> dict[str, Any]:
    """Writes `out` from surface.json, checked against TF.NET's sources in `git_dir`; returns the written dict."""
    raw = surface_path.read_bytes()
    surface = json.loads(raw)
    commit = surface["source"]["commit"]
    if commit != PINNED_COMMIT:
        raise ValueError(f"surface.json is of commit {commit}, the generator pins {PINNED_COMMIT}: "
                         "move PINNED_COMMIT in declarations.py with it, on purpose")
    members = [{k: m[k] for k in MEMBER_FIELDS if k in m} for m in surface["members"]]
    problems = verify(members, git_dir, commit)
    if problems:
        raise ValueError(f"{len(problems)} declarations not found on their recorded lines, e.g. {problems[:5]}")
    types = {full: {k: t[k] for k in TYPE_FIELDS if k in t} for full, t in sorted(surface["types"].items())}
    reader = sources.Sources(git_dir, commit)
    sources.add_member_facts(reader, members)
    index = sources.Index(reader)
    sources.add_type_facts(index, types)
    referenced = sources.referenced_types(index, members, types)
    # The interfaces: of entry-point owners (keras.initializers is an IInitializersApi) and the types' own (ILayer).
    interfaces = {m["type_full"] for m in members if m.get("type_kind") == "interface"}
    data = {
        "source": {"repo": surface["source"].get("repo", REPO), "commit": commit,
                   "declarations_from": "surface.json of the TF.NET surface tool (tree-sitter parse of src/**.cs)",
                   "surface_json_sha1": hashlib.sha1(raw).hexdigest(),
                   "surface_generator_sha1": surface.get("generator_sha1"), "parser": surface.get("parser"),
                   "checked_against_sources": True},
        "implementations": dict(sorted(implementations(git_dir, commit, interfaces).items())),
        "referenced": referenced,
        "types": types,
        "members": members,
    }
    write(data, out)
    return data


def write(data: dict[str, Any], out: Path) -> None:
    """One member per line, so a moved commit diffs member by member."""
    head = {k: v for k, v in data.items() if k != "members"}
    lines = [json.dumps(head, indent=1, sort_keys=True)[:-2] + ',\n "members": [']
    rows = [" " + json.dumps(m, sort_keys=True, separators=(",", ":")) for m in data["members"]]
    lines.append(",\n".join(rows))
    lines.append(" ]\n}\n")
    text = "\n".join(lines)
    json.loads(text)  # well-formed before it replaces anything
    tmp = out.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.tfnet_surface.declarations", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    imp = sub.add_parser("import", help="write declarations.json from surface.json and TF.NET's sources")
    imp.add_argument("surface", type=Path)
    imp.add_argument("--git-dir", type=Path, required=True, help="a git directory of SciSharp/TensorFlow.NET")
    imp.add_argument("--out", type=Path, default=DEFAULT_PATH)
    args = parser.parse_args(argv)
    data = import_surface(args.surface, args.git_dir, args.out)
    print(f"{args.out}: {len(data['members'])} members of {data['source']['repo']}@{data['source']['commit']}, "
          f"{len(data['implementations'])} interface implementations")
    return 0


if __name__ == "__main__":
    sys.exit(main())
