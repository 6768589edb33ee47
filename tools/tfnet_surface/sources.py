"""Declaration facts read from TensorFlow.NET's sources at the pinned commit that surface.json does not hold.

Each is read from the declaration's own lines (the file and line surface.json records), never from a body or comment:

- an enum member's value as written (`TF_FLOAT = 1` -> "1"; none written: None, C#'s previous + 1);
- an extension method's `this` parameter (type and name: `this TF_DataType type`);
- a property's public accessors (`{ get; set; }` -> get, set; `internal set` and `=>` bodies -> get);
- a type's type parameters and base list as written (`INestStructure<T> : INestable<T>`);
- for each TF.NET type that a signature names and surface.json does not list (`IOptionalArgs`, `SaveOptions`),
  where it is declared: namespace, kind, type parameters, file and line.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

#: Names a signature may hold that are C#'s or .NET's, not TF.NET's.
_CSHARP = frozenset("""bool byte sbyte char decimal double float int uint long ulong short ushort object string void
dynamic var T T1 T2 T3 TIn TOut TKey TValue TDataSet""".split())
_DECLARATION = re.compile(
    r"^[ \t]*(?:\[[^\]]*\][ \t]*)*(?:(?:public|internal|static|sealed|abstract|partial|readonly|unsafe|ref|new)\s+)*"
    r"(?P<kind>class|interface|struct|enum|record)\s+(?P<name>@?\w+)\s*(?:<(?P<params>[^>]*)>)?", re.M)
_DELEGATE = re.compile(r"^[ \t]*(?:(?:public|internal)\s+)?delegate\s+[^(;]*?\b(?P<name>\w+)\s*(?:<(?P<params>[^>]*)>)?"
                       r"\s*\(", re.M)
_NAMESPACE = re.compile(r"^\s*namespace\s+([\w.]+)", re.M)


class Sources:
    """TF.NET's files at one commit, read with `git show` and kept."""

    def __init__(self, git_dir: Path, commit: str) -> None:
        self.git_dir, self.commit = git_dir, commit
        self._files: dict[str, list[str]] = {}

    def lines(self, path: str) -> list[str]:
        if path not in self._files:
            out = subprocess.run(["git", "-C", str(self.git_dir), "show", f"{self.commit}:{path}"],
                                 capture_output=True, check=False)
            if out.returncode != 0:
                raise ValueError(f"git show {self.commit}:{path} failed: "
                                 f"{out.stderr.decode(errors='replace').strip()}")
            self._files[path] = out.stdout.decode("utf-8-sig", errors="replace").splitlines()
        return self._files[path]

    def source_files(self) -> list[str]:
        listing = subprocess.run(["git", "-C", str(self.git_dir), "ls-tree", "-r", "--name-only", self.commit, "src"],
                                 capture_output=True, text=True, check=True).stdout.split()
        return sorted(p for p in listing if p.endswith(".cs"))


def _code(line: str) -> str:
    """A line without its // comment."""
    return line.split("//", 1)[0]


def enum_value(lines: list[str], line: int, name: str) -> str | None:
    """`NAME = VALUE,` on the member's line -> VALUE as written; None when the member has no initializer."""
    text = _code(lines[line - 1])
    match = re.search(rf"\b{re.escape(name)}\b\s*(?:=\s*(?P<value>[^,]+?))?\s*(?:,|$)", text)
    if match is None:
        raise ValueError(f"enum member {name} not on line {line}: {text.strip()!r}")
    return match.group("value")


def _split_top(text: str) -> list[str]:
    """Comma-separated items at the top level of <>, (), []."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += {"<": 1, "(": 1, "[": 1, ">": -1, ")": -1, "]": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            items.append(text[start:i].strip())
            start = i + 1
    items.append(text[start:].strip())
    return [i for i in items if i]


def receiver(lines: list[str], line: int, name: str) -> dict[str, str]:
    """An extension method's `this` parameter: {"type": ..., "name": ...}."""
    text = " ".join(_code(x) for x in lines[line - 1: line + 3])
    match = re.search(rf"\b{re.escape(name)}\s*(?:<[^>]*>)?\s*\(\s*this\s+", text)
    if match is None:
        raise ValueError(f"extension method {name} has no `this` parameter near line {line}")
    rest = text[match.end():]
    depth = 0
    for i, ch in enumerate(rest):
        depth += {"<": 1, "(": 1, "[": 1, ">": -1, ")": -1, "]": -1}.get(ch, 0)
        if (ch == "," and depth == 0) or depth < 0:
            rest = rest[:i]
            break
    type_name, _, param = rest.strip().rpartition(" ")
    return {"type": type_name.strip(), "name": param.strip()}


def accessors(lines: list[str], line: int, name: str) -> list[str]:
    """A property's public accessors from its declaration: `=> ...` or `{ get; }` -> [get]; `{ get; set; }` -> [get,
    set]; an accessor marked private, protected or internal is left out."""
    text, depth, seen = "", 0, False
    for raw in lines[line - 1: line + 80]:
        code = _code(raw)
        if not seen:
            head = code.split(name, 1)[-1] if name in code else code
            if "=>" in head and "{" not in head.split("=>", 1)[0]:
                return ["get"]
        for ch in code:
            if ch == "{":
                depth += 1
                seen = True
            elif ch == "}":
                depth -= 1
            if seen:
                text += ch
            if seen and depth == 0:
                break
        if seen and depth == 0:
            break
        text += " "
    body = re.sub(r"\{[^{}]*\}", " ", text[1:-1]) if text.startswith("{") else text  # accessor bodies out
    found = []
    for accessor in ("get", "set", "init"):
        for match in re.finditer(rf"(?:(\w+)\s+)?\b{accessor}\b", body):
            if match.group(1) not in ("private", "protected", "internal"):
                found.append("set" if accessor == "init" else accessor)
                break
    return found or ["get"]


def _header(text: str, at: int) -> tuple[list[str], list[str]]:
    """The type parameters and base list (as written) of the type declaration starting at `at` in `text`."""
    match = re.compile(r"\b(?:class|interface|struct|enum|record)\s+@?\w+\s*(?:<(?P<params>[^>]*)>)?"
                       r"\s*(?::\s*(?P<bases>[^{;]*?))?\s*(?:\bwhere\b[^{;]*)?[{;]", re.S).search(text, at)
    if match is None:
        return [], []
    params = [p.strip() for p in (match.group("params") or "").split(",") if p.strip()]
    bases = _split_top(re.sub(r"//[^\n]*", " ", match.group("bases") or ""))
    return params, [" ".join(b.split()) for b in bases]


class Index:
    """Every type declaration in TF.NET's sources (partial parts apart): simple name -> [(full name, kind, type
    parameters, base list, file, line)]; the full name is namespace + name (types nested in a class are listed
    under their namespace)."""

    def __init__(self, reader: Sources) -> None:
        self.by_name: dict[str, list[dict[str, Any]]] = {}
        for path in reader.source_files():
            lines = reader.lines(path)
            text = "\n".join(_code(x) for x in lines)
            namespaces = [(text.count("\n", 0, m.start()) + 1, m.group(1)) for m in _NAMESPACE.finditer(text)]
            for pattern in (_DECLARATION, _DELEGATE):
                for match in pattern.finditer(text):
                    name = match.group("name").lstrip("@")
                    line = text.count("\n", 0, match.start()) + 1
                    namespace = next((ns for at, ns in reversed(namespaces) if at <= line), "")
                    kind = match.groupdict().get("kind") or "delegate"
                    params, bases = _header(text, match.start()) if kind != "delegate" else (
                        [p.strip() for p in (match.group("params") or "").split(",") if p.strip()], [])
                    self.by_name.setdefault(name, []).append(
                        {"full": f"{namespace}.{name}".lstrip("."), "namespace": namespace, "kind": kind,
                         "type_params": params, "base_list": bases, "file": path, "line": line})

    def parts(self, full: str) -> list[dict[str, Any]]:
        """The declarations (partial parts) of a type by its full name (nested ones by namespace prefix)."""
        name = full.rsplit(".", 1)[-1]
        return [d for d in self.by_name.get(name, ())
                if d["full"] == full or (d["namespace"] and full.startswith(d["namespace"] + "."))]


def add_member_facts(reader: Sources, members: list[dict[str, Any]]) -> None:
    """Adds `value` (enum members), `receiver` (extension methods) and `accessors` (properties) in place."""
    for m in members:
        lines = reader.lines(m["file"])
        if m.get("type_kind") == "enum" and m["kind"] == "field":
            m["value"] = enum_value(lines, m["line"], m["name"])
        if m.get("extension"):
            m["receiver"] = receiver(lines, m["line"], m["name"])
        if m["kind"] == "property":
            m["accessors"] = accessors(lines, m["line"], m["name"])


def add_type_facts(index: Index, types: dict[str, dict[str, Any]]) -> None:
    """Adds `type_params` (of the recorded declaration) and `base_list` (every partial part's, as written, in file
    order) to each type in place."""
    for full, t in types.items():
        parts = index.parts(full)
        recorded = [p for p in parts if p["file"] == t["file"] and 0 <= p["line"] - t["line"] <= 3]  # attributes
        if not recorded:
            raise ValueError(f"type {full} not declared at {t['file']}:{t['line']}")
        t["type_params"] = recorded[0]["type_params"]
        bases: list[str] = []
        for part in sorted(parts, key=lambda p: (p["file"], p["line"])):
            if part["kind"] == t["kind"] and part["type_params"] == t["type_params"]:
                bases += [b for b in part["base_list"] if b not in bases]
        t["base_list"] = bases


def _identifiers(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_]\w*", text or ""))


def referenced_types(index: Index, members: list[dict[str, Any]],
                     types: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Where the TF.NET types that signatures and base lists name, but surface.json does not list, are declared:
    full name -> kind, type_params, file, line (a name declared in several namespaces is listed under each; names
    TF.NET does not declare, such as List or Stream, are .NET's and left out)."""
    known = {full.rsplit(".", 1)[-1] for full in types}
    wanted: set[str] = set()
    for m in members:
        for text in [m.get("returns") or ""] + [p["type"] for p in m.get("params", ())] + (
                [m["receiver"]["type"]] if m.get("receiver") else []):
            wanted |= _identifiers(text)
    for t in types.values():
        for base in t.get("base_list", ()):
            wanted |= _identifiers(base)
    found: dict[str, dict[str, Any]] = {}
    for name in sorted(wanted - known - _CSHARP):
        for d in index.by_name.get(name, ()):
            entry = {"name": name, "kind": d["kind"], "type_params": d["type_params"], "file": d["file"],
                     "line": d["line"]}
            found.setdefault(d["full"], entry)
    return dict(sorted(found.items()))
