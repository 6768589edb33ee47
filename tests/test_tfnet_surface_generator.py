"""The TF.NET surface generator (tools/tfnet_surface): rules on small declaration fixtures, the committed output
against a fresh run, the Python functions it calls, and the proof (generated C# called from Mono against Python)."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tools.tfnet_surface import check, declarations, generate, plan, proof, rules, sources, typegen  # noqa: E402


def _m(owner: str, type_full: str, name: str, params: list[tuple], returns: str = "Tensor", kind: str = "method",
       type_kind: str = "class", **extra: Any) -> dict[str, Any]:
    return {"owner": owner, "type_full": type_full, "type_kind": type_kind, "kind": kind, "name": name,
            "params": [{"name": p[1], "type": p[0], "default": p[2] if len(p) > 2 else None,
                        **({"modifier": p[3]} if len(p) > 3 else {})} for p in params],
            "returns": returns, "static": False, "file": "src/demo.cs", "line": 1, **extra}


DEMO = "Tensorflow.tensorflow.DemoApi"
THINGS = "Tensorflow.Keras.IThingsApi"
BILINEAR = ("string", "method", "Method.BILINEAR")
FIXTURE: dict[str, Any] = {
    "source": {"repo": "SciSharp/TensorFlow.NET", "commit": "0123456789abcdef0123456789abcdef01234567"},
    "types": {"Tensorflow.tensorflow": {"kind": "class"}, DEMO: {"kind": "class"},
              "Tensorflow.Tensor": {"kind": "class"}, "Tensorflow.NumPy.NDArray": {"kind": "class"},
              "Tensorflow.Keras.KerasInterface": {"kind": "class"}, THINGS: {"kind": "interface"},
              "Tensorflow.Keras.IThing": {"kind": "interface"}},
    "implementations": {THINGS: "Tensorflow.Keras.ThingsApi"},
    "members": [
        _m("tf", "Tensorflow.tensorflow", "demo", [], "DemoApi", kind="property"),
        _m("tf.demo", DEMO, "eye", [("int", "num_rows"), ("int", "num_columns", "-1"), ("Shape", "batch_shape", "null"),
                                    ("TF_DataType", "dtype", "TF_DataType.DtInvalid"), ("string", "name", "null")]),
        _m("tf.demo", DEMO, "eye", [("int", "num_rows"), ("int", "num_columns", "-1"), ("Shape", "batch_shape", "null"),
                                    ("TF_DataType", "dtype", "TF_DataType.DtInvalid"), ("string", "name", "null")]),
        _m("tf.demo", DEMO, "softmax", [("Tensor", "logits"), ("int", "axis", "-1"), ("string", "name", "null")]),
        _m("tf.demo", DEMO, "resize", [("Tensor", "image"), ("Shape", "size"), BILINEAR]),
        _m("tf.demo", DEMO, "resize", [("Tensor", "image"), ("Tensor", "size"), BILINEAR]),
        _m("tf.demo", DEMO, "old_name", [("Tensor", "x"), ("bool", "adj_x", "false"), ("string", "name", "null")]),
        _m("tf.demo", DEMO, "join", [("string[]", "paths", None, "params")], "string"),
        _m("tf.demo", DEMO, "total", [("Tensor[]", "values")]),
        _m("tf.demo", DEMO, "substr", [("Tensor", "input"), ("string", "uint", '"BYTE"')]),
        _m("tf.demo", DEMO, "pair", [("Tensor", "x")], "(Tensor,Tensor)"),
        _m("tf.demo", DEMO, "restore", [("Tensor", "prefix"), ("string[]", "names")]),
        _m("tf.demo", DEMO, "graph_only", [("Tensor", "x")]),
        _m("tf.demo", DEMO, "handmade", [("Tensor", "x")]),
        _m("tf.demo", DEMO, "one", [("Tensor", "x")]),
        _m("tf.demo", DEMO, "one", [("string", "x")]),
        _m("tf.demo", DEMO, "split", [("Tensor", "x"), ("Tensor", "y", None, "out")]),
        _m("tf.demo", DEMO, "float32", [], "TF_DataType", kind="field"),
        _m("keras", "Tensorflow.Keras.KerasInterface", "things", [], "IThingsApi", kind="property"),
        _m("keras.things", THINGS, "Make", [("float", "gain", "1.0f"), ("int?", "seed", "null")], "IThing",
           type_kind="interface"),
        _m("keras.things", THINGS, "Custom", [("int", "x")], "IThing", type_kind="interface"),
    ],
}
RULES: dict[str, Any] = {
    "generate": {"owners": ["tf.demo", "keras.things"]},
    "defaults": {"Method.BILINEAR": '"bilinear"'},
    "members": {"tf.demo.old_name": {"python": "tf.demo.new_name", "rename": {"adj_x": "adjoint_a"}},
                "tf.demo.join": {"star": "paths"},
                "tf.demo.restore": {"python": "tf.raw_ops.Restore", "keywords": True}},
    "exceptions": {"tf.demo.graph_only": {"kind": "unsupported", "reason": "graph mode; run eagerly"},
                   "tf.demo.handmade": {"kind": "hand"},
                   "tf.demo.one(string)": {"kind": "unsupported", "reason": "strings: pass a Tensor"},
                   "keras.things.Custom": {"kind": "hand"}},
}


def _generated(decls: dict[str, Any] = FIXTURE, table: dict[str, Any] = RULES) -> dict[str, str]:
    d, r = declarations.from_dict(copy.deepcopy(decls)), rules.from_dict(copy.deepcopy(table))
    return generate.generate(d, r, r.owners_generated)


def _plans(decls: dict[str, Any] = FIXTURE, table: dict[str, Any] = RULES) -> dict[str, list[plan.Plan]]:
    d, r = declarations.from_dict(copy.deepcopy(decls)), rules.from_dict(copy.deepcopy(table))
    found: dict[str, list[plan.Plan]] = {}
    for unit in generate.build_units(d, r, r.owners_generated):
        for p in unit.plans:
            found.setdefault(p.member.key, []).append(p)
    return found


def test_sentinel_defaults_are_left_out_and_values_are_passed() -> None:
    eye = _plans()["tf.demo.eye"][0]
    assert [a.expression for a in eye.args] == [
        "num_rows", "num_columns == -1 ? null : (object)num_columns", "batch_shape",
        "dtype == TF_DataType.DtInvalid ? null : (object)dtype", "name"]
    softmax = _plans()["tf.demo.softmax"][0]
    assert softmax.args[1].expression == "axis", "-1 is the last axis, a value, for a parameter named axis"
    text = _generated()["DemoApi.g.cs"]
    assert ("public Tensor eye(int num_rows, int num_columns = -1, Shape batch_shape = null, TF_DataType dtype = "
            "TF_DataType.DtInvalid, string name = null) => __eye.Call<Tensor>(num_rows, num_columns == -1 ? null : "
            "(object)num_columns, batch_shape, dtype == TF_DataType.DtInvalid ? null : (object)dtype, name);") in text


def test_required_parameters_go_positionally_in_order_and_the_rest_by_name() -> None:
    eye = _plans()["tf.demo.eye"][0]
    assert eye.signature == "num_rows, /, num_columns, batch_shape, dtype, name"
    assert eye.positional == 1 and eye.path == "tf.demo.eye"
    assert _plans()["tf.demo.resize"][0].signature == "image, size, /, method"
    assert _plans()["tf.demo.pair"][0].signature == "x"


def test_overloads_share_one_call_and_a_repeated_declaration_is_written_once() -> None:
    text = _generated()["DemoApi.g.cs"]
    assert text.count("public Tensor eye(") == 1
    assert text.count('FaceBridge.Function("tf.demo.resize", "image, size, /, method")') == 1
    assert "public Tensor resize(Tensor image, Shape size, string method = \"bilinear\") => __resize.Call" in text
    assert "public Tensor resize(Tensor image, Tensor size, string method = \"bilinear\") => __resize.Call" in text


def test_name_mapping_renames_spreads_and_names_every_argument() -> None:
    plans = _plans()
    old = plans["tf.demo.old_name"][0]
    assert old.path == "tf.demo.new_name" and old.signature == "x, /, adjoint_a, name" and old.mapped
    assert plans["tf.demo.join"][0].signature == "*paths"
    assert plans["tf.demo.restore"][0].signature == "/, prefix, names"
    owners = copy.deepcopy(RULES)
    owners["owners"] = {"tf.demo": "tf.experimental.demo"}
    assert _plans(table=owners)["tf.demo.eye"][0].path == "tf.experimental.demo.eye"
    assert _plans(table=owners)["tf.demo.old_name"][0].path == "tf.demo.new_name", "a member's own entry wins"


def test_exception_table_skips_hand_written_members_and_throws_for_unsupported_ones() -> None:
    text = _generated()["DemoApi.g.cs"]
    assert "handmade" not in text
    assert ('public Tensor graph_only(Tensor x) => throw FaceBridge.NotSupported("tf.demo.graph_only", '
            '"graph mode; run eagerly");') in text
    assert "public Tensor one(Tensor x) => __one.Call<Tensor>(x);" in text
    assert ('public Tensor one(string x) => throw FaceBridge.NotSupported("tf.demo.one", "strings: pass a Tensor");'
            in text)
    things = _generated()["IThingsApi.g.cs"]
    interface, implementation = things.split("public partial class ThingsApi : IThingsApi")
    assert "IThing Custom(int x);" in interface, "a hand-written member is still declared by the interface"
    assert "Custom" not in implementation
    assert ("public IThing Make(float gain = 1.0f, int? seed = null) => __Make.Call<IThing>(gain, seed);"
            in implementation)


def test_members_no_rule_covers_are_counted_and_not_written() -> None:
    split = _plans()["tf.demo.split"][0]
    assert split.action == "skip" and split.reason == "out parameter y"
    assert "split" not in _generated()["DemoApi.g.cs"]
    d, r = declarations.from_dict(copy.deepcopy(FIXTURE)), rules.from_dict(copy.deepcopy(RULES))
    counts = dict(generate.coverage(d, r, r.owners_generated))
    assert counts["tf.demo"]["members"] == 14
    assert (counts["tf.demo"]["rule"], counts["tf.demo"]["mapped"]) == (7, 3)
    assert (counts["tf.demo"]["unsupported"], counts["tf.demo"]["hand"], counts["tf.demo"]["skip"]) == (2, 1, 1)


def test_csharp_spelling_keywords_tuples_and_one_array_argument() -> None:
    text = _generated()["DemoApi.g.cs"]
    assert 'public Tensor substr(Tensor input, string @uint = "BYTE") => __substr.Call<Tensor>(input, @uint);' in text
    assert "public (Tensor,Tensor) pair(Tensor x) => __pair.Call<System.ValueTuple<Tensor, Tensor>>(x);" in text
    assert "public Tensor total(Tensor[] values) => __total.Call<Tensor>((object)values);" in text
    assert "public string join(params string[] paths) => __join.Call<string>((object)paths);" in text
    assert 'public TF_DataType float32 => __float32.Get<TF_DataType>();' in text
    assert generate.value_tuples("IEnumerable<(string,string[],(int,long))>") == (
        "IEnumerable<System.ValueTuple<string, string[], System.ValueTuple<int, long>>>")


def test_parents_hand_out_the_generated_objects_and_files_name_the_commit() -> None:
    files = _generated()
    assert sorted(files) == ["DemoApi.g.cs", "IThingsApi.g.cs", "KerasInterface.g.cs", "tensorflow.g.cs"]
    assert "public DemoApi demo { get; } = new DemoApi();" in files["tensorflow.g.cs"]
    assert "public IThingsApi things { get; } = new ThingsApi();" in files["KerasInterface.g.cs"]
    assert "public partial class tensorflow\n    {\n        public partial class DemoApi" in files["DemoApi.g.cs"]
    for text in files.values():
        assert "SciSharp/TensorFlow.NET@0123456789abcdef0123456789abcdef01234567" in text.splitlines()[1]


@pytest.mark.parametrize("change, message", [
    (("members", "tf.demo.nothing", {"python": "tf.x"}), "'tf.demo.nothing' is not a member"),
    (("members", "tf.demo.eye", {"rename": {"rows": "n"}}), "names parameters ['rows']"),
    (("members", "tf.demo.eye", {"pythn": "tf.x"}), "unknown keys ['pythn']"),
    (("exceptions", "tf.demo.eye", {"kind": "later"}), "kind must be one of"),
    (("exceptions", "tf.demo.eye", {"kind": "unsupported"}), "needs a reason"),
])
def test_a_table_entry_naming_nothing_is_refused(change: tuple, message: str) -> None:
    table = copy.deepcopy(RULES)
    section, key, entry = change
    table.setdefault(section, {})[key] = entry
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        _generated(table=table)


def test_declarations_need_a_source_commit() -> None:
    broken = copy.deepcopy(FIXTURE)
    del broken["source"]["commit"]
    with pytest.raises(ValueError, match="source has no 'commit'"):
        declarations.from_dict(broken)


def test_committed_declarations_are_of_the_pinned_commit_and_hold_only_declared_facts() -> None:
    decls = declarations.load()
    assert decls.commit == declarations.PINNED_COMMIT
    assert decls.source["checked_against_sources"] is True and len(decls.members) == 2031
    fields = {k for row in json.loads(declarations.DEFAULT_PATH.read_text())["members"] for k in row}
    assert fields <= set(declarations.MEMBER_FIELDS)


def test_committed_output_matches_a_fresh_run(capsys: pytest.CaptureFixture[str]) -> None:
    folder = ROOT / "tools" / "tfnet_surface" / "generated"
    assert generate.main([str(folder), "--check"]) == 0, capsys.readouterr().out


def test_every_generated_call_fits_the_installed_python_function() -> None:
    findings = check.check(rules.load().owners_generated)
    bad = [f"{f.plan.member.key} -> {f.plan.path}: {f.status} {f.detail}" for f in findings if f.status != "ok"]
    assert len(findings) == 104 and not bad


def test_check_names_a_missing_function_and_arguments_that_do_not_fit() -> None:
    d = declarations.from_dict(copy.deepcopy(FIXTURE))
    table = copy.deepcopy(RULES)
    r = rules.from_dict(table)
    r.roots = {"tf": "tensorflow", "keras": "keras"}
    missing = check.check_plan(_plans()["tf.demo.eye"][0], r.roots)
    assert missing.status == "missing" and "demo" in missing.detail
    eye = plan.plan_member(r, d.members[1], set())
    linalg = plan.Plan(eye.member, "call", "tf.linalg.eye", eye.args + (plan.Arg("x", "bogus", "keyword"),))
    assert check.check_plan(linalg, r.roots).status == "binds"
    assert check.check_plan(plan.Plan(eye.member, "call", "tf.linalg.eye", eye.args), r.roots).status == "ok"


def test_generated_members_called_from_csharp_equal_python(dotnet_bin: Path, tmp_path: Path) -> None:
    csharp, python = proof.run(tmp_path, dotnet_bin)
    assert sorted(csharp) == sorted(python) and len(python) == 105
    differ = {n: (csharp[n], python[n]) for n in python if not proof.agree(n, csharp[n], python[n])}
    assert not differ
    assert csharp["linalg.eye"]["dtype"] == "float64", "TF.NET's default dtype, passed explicitly"
    assert csharp["linalg.inv.not_square"] == {"error": "TfNetTrainArgumentException", "python": "InvalidArgumentError"}
    members, called = proof.exercised()
    assert called == members and len(members) == 96


def test_proof_comparison_tells_values_and_random_shapes_apart() -> None:
    value = {"dtype": "float32", "shape": [2], "value": [1.0, 2.0]}
    assert proof.agree("x", value, {**value, "value": [1.0, 2.0000001]})
    assert not proof.agree("x", value, {**value, "value": [1.0, 2.1]})
    assert not proof.agree("x", value, {**value, "dtype": "float64"})
    assert not proof.agree("x", {"value": ["a"]}, {"value": ["b"]})
    assert not proof.agree("x", [value], [value, value])
    assert proof.agree("random:x", value, {**value, "value": [5.0, 6.0]})
    assert not proof.agree("random:x", value, {**value, "shape": [3]})


def test_source_facts_read_from_declaration_lines() -> None:
    lines = ["    public enum E", "    {", "        A = 0,", "        B = 1 << 2, // note", "        C,", "    }"]
    assert [sources.enum_value(lines, n, name) for n, name in ((3, "A"), (4, "B"), (5, "C"))] == ["0", "1 << 2", None]
    ext = ["public static bool is_compatible_with(this Dictionary<string, int> self, TF_DataType other)"]
    assert sources.receiver(ext, 1, "is_compatible_with") == {"type": "Dictionary<string, int>", "name": "self"}
    props = ["public bool Trainable => args.Trainable;", "public List<IVariableV1> Weights { get; set; }",
             "public bool Built", "{", "    get { return built; }", "    internal set { built = value; }", "}",
             "Shape OutputShape { get; }"]
    assert sources.accessors(props, 1, "Trainable") == ["get"]
    assert sources.accessors(props, 2, "Weights") == ["get", "set"]
    assert sources.accessors(props, 3, "Built") == ["get"], "an internal setter is not TF.NET's public surface"
    assert sources.accessors(props, 8, "OutputShape") == ["get"]
    text = "public partial class Nest<T> : INestStructure<T>, IEnumerable<(Tensors, Tensors)> where T : class\n{"
    assert sources._header(text, 0) == (["T"], ["INestStructure<T>", "IEnumerable<(Tensors, Tensors)>"])


def test_committed_declarations_hold_the_source_facts_of_types() -> None:
    decls = declarations.load()
    dtype = {m.name: m.value for m in decls.members if m.owner == "TF_DataType" and m.kind == "field"}
    assert len(dtype) == 48 and (dtype["DtInvalid"], dtype["TF_FLOAT"], dtype["TF_COMPLEX"], dtype["DtUint64Ref"]) == (
        "0", "1", "8", "123")
    weights = next(m for m in decls.members if m.owner == "ILayer" and m.name == "Weights")
    assert weights.accessors == ("get", "set")
    floating = next(m for m in decls.members if m.owner == "TF_DataType" and m.name == "is_floating")
    assert floating.receiver == declarations.Param("type", "TF_DataType", None, "this")
    assert decls.types["Tensorflow.Keras.Engine.Model"]["base_list"] == ["Layer", "IModel"]
    assert decls.referenced["Tensorflow.Common.Types.IOptionalArgs"]["kind"] == "interface"


# ---------------------------------------------------------------------------------------------------------------
# TF.NET's types (typegen.py)

ENGINE = "Tensorflow.Keras.Engine"


def _t(owner: str, type_full: str, name: str, params: list[tuple] = (), returns: str = "void", kind: str = "method",
       type_kind: str = "class", **extra: Any) -> dict[str, Any]:
    return _m(owner, type_full, name, list(params), returns, kind, type_kind, **extra)


TYPES_FIXTURE: dict[str, Any] = {
    "source": {"repo": "SciSharp/TensorFlow.NET", "commit": "0123456789abcdef0123456789abcdef01234567"},
    "types": {
        "Tensorflow.Keras.ILayer": {"kind": "interface", "base_list": ["IWithTrackable"]},
        f"{ENGINE}.IModel": {"kind": "interface", "base_list": ["ILayer"]},
        f"{ENGINE}.Layer": {"kind": "class", "base_list": ["AutoTrackable", "ILayer"]},
        f"{ENGINE}.Model": {"kind": "class", "base_list": ["Layer", "IModel"]},
        f"{ENGINE}.KerasShapesWrapper": {"kind": "class", "base_list": []},
        "Tensorflow.TF_DataType": {"kind": "enum", "base_list": []},
        "Tensorflow.Shape": {"kind": "class", "base_list": []},
        "Tensorflow.IDatasetV2": {"kind": "interface", "base_list": ["IEnumerable<(Tensor, Tensor)>"]},
    },
    "implementations": {"Tensorflow.IDatasetV2": "Tensorflow.DatasetV2"},
    "referenced": {"Tensorflow.Training.IWithTrackable": {"kind": "interface", "type_params": []},
                   "Tensorflow.Common.Types.IOptionalArgs": {"kind": "interface", "type_params": []},
                   "Tensorflow.Train.AutoTrackable": {"kind": "class", "type_params": []}},
    "members": [
        _t("ILayer", "Tensorflow.Keras.ILayer", "Name", returns="string", kind="property", type_kind="interface"),
        _t("ILayer", "Tensorflow.Keras.ILayer", "Layers", returns="List<ILayer>", kind="property",
           type_kind="interface"),
        _t("ILayer", "Tensorflow.Keras.ILayer", "TrainableVariables", returns="List<IVariableV1>", kind="property",
           type_kind="interface"),
        _t("ILayer", "Tensorflow.Keras.ILayer", "Weights", returns="List<IVariableV1>", kind="property",
           type_kind="interface", accessors=["get", "set"]),
        _t("ILayer", "Tensorflow.Keras.ILayer", "get_weights", returns="List<NDArray>", type_kind="interface"),
        _t("ILayer", "Tensorflow.Keras.ILayer", "count_params", returns="int", type_kind="interface"),
        _t("ILayer", "Tensorflow.Keras.ILayer", "OutputShape", returns="Shape", kind="property", type_kind="interface"),
        _t("ILayer", "Tensorflow.Keras.ILayer", "BatchInputShape", returns="KerasShapesWrapper", kind="property",
           type_kind="interface"),
        _t("ILayer", "Tensorflow.Keras.ILayer", "Apply", [("Tensors", "inputs"), ("IOptionalArgs?", "args", "null")],
           "Tensors", type_kind="interface"),
        _t("Layer", f"{ENGINE}.Layer", "Name", returns="string", kind="property"),
        _t("Layer", f"{ENGINE}.Layer", "TrainableVariables", returns="List<IVariableV1>", kind="property"),
        _t("Layer", f"{ENGINE}.Layer", "Weights", returns="List<IVariableV1>", kind="property",
           accessors=["get", "set"]),
        _t("Layer", f"{ENGINE}.Layer", "get_weights", returns="List<NDArray>"),
        _t("Layer", f"{ENGINE}.Layer", "count_params", returns="int"),
        _t("Layer", f"{ENGINE}.Layer", "OutputShape", returns="Shape", kind="property"),
        _t("Layer", f"{ENGINE}.Layer", "BatchInputShape", returns="KerasShapesWrapper", kind="property"),
        _t("Layer", f"{ENGINE}.Layer", "DType", returns="TF_DataType", kind="property"),
        _t("Layer", f"{ENGINE}.Layer", "ToString", returns="string"),
        _t("Layer", f"{ENGINE}.Layer", ".ctor", [("LayerArgs", "args")], returns="", kind="constructor"),
        _t("IModel", f"{ENGINE}.IModel", "summary", [("int", "line_length", "-1")], type_kind="interface"),
        _t("Model", f"{ENGINE}.Model", "count_params", returns="int"),
        _t("Model", f"{ENGINE}.Model", "summary", [("int", "line_length", "-1")]),
        _t("Model", f"{ENGINE}.Model", "Layers", returns="List<ILayer>", kind="property"),
        _t("KerasShapesWrapper", f"{ENGINE}.KerasShapesWrapper", "Shapes", returns="Shape[]", kind="property"),
        _t("TF_DataType", "Tensorflow.TF_DataType", "DtInvalid", returns="TF_DataType", kind="field",
           type_kind="enum", value="0", static=True),
        _t("TF_DataType", "Tensorflow.TF_DataType", "TF_FLOAT", returns="TF_DataType", kind="field",
           type_kind="enum", value="1", static=True),
        _t("TF_DataType", "Tensorflow.TF_DataType", "TF_DOUBLE", returns="TF_DataType", kind="field",
           type_kind="enum", static=True, line=2),
        _t("TF_DataType", "Tensorflow.TF_DataType", "is_floating", returns="bool", type_kind="enum", extension=True,
           declaring_type_full="Tensorflow.dtypes", receiver={"name": "type", "type": "TF_DataType"}),
        _t("Shape", "Tensorflow.Shape", "ndim", returns="int", kind="property"),
        _t("Shape", "Tensorflow.Shape", "op_Addition", [("Shape", "a"), ("Shape", "b")], "Shape", kind="operator",
           static=True),
        _t("Shape", "Tensorflow.Shape", "op_Implicit", [("int[]", "dims")], "Shape", kind="operator", static=True),
        _t("IDatasetV2", "Tensorflow.IDatasetV2", "cardinality", [("string", "name", "null")], "Tensor",
           type_kind="interface"),
        _t("IDatasetV2", "Tensorflow.IDatasetV2", "map", [("Func<Tensors,Tensors>", "map_func")], "IDatasetV2",
           type_kind="interface"),
    ],
}
TYPES_RULES: dict[str, Any] = {
    "attributes": {"DType": "dtype", "ToString": "__str__"},
    "codec": {"types": ["Tensors", "TF_DataType"]},
    "operators": {"op_Addition": "operator.add"},
    "types": {"ILayer": {"python": "keras.layers.Layer"}, "Layer": {"python": "keras.layers.Layer"},
              "IModel": {"python": "keras.Model"}, "Model": {"python": "keras.Model"},
              "KerasShapesWrapper": {"own": "TF.NET's shape-or-shapes wrapper"},
              "TF_DataType": {"python": "tf.dtypes.DType", "receiver": "tf.as_dtype"},
              "Shape": {"python": "tf.TensorShape", "receiver": "tf.TensorShape"},
              "IDatasetV2": {"python": "tf.data.Dataset"}},
    "members": {"Layer.OutputShape": {"python": "output.shape"}, "ILayer.OutputShape": {"python": "output.shape"},
                "TF_DataType.is_floating": {"get": True}, "Shape.ndim": {"python": "rank"},
                "IDatasetV2.cardinality": {"drop": ["name"]}},
    "exceptions": {"Layer.Weights": {"kind": "hand", "reason": "the face's list"}},
}


def _types(decls: dict[str, Any] = TYPES_FIXTURE, table: dict[str, Any] = TYPES_RULES) -> dict[str, str]:
    d, r = declarations.from_dict(copy.deepcopy(decls)), rules.from_dict(copy.deepcopy(table))
    return typegen.generate_types(d, r)


def _type_units(decls: dict[str, Any] = TYPES_FIXTURE, table: dict[str, Any] = TYPES_RULES) -> dict[str, Any]:
    d, r = declarations.from_dict(copy.deepcopy(decls)), rules.from_dict(copy.deepcopy(table))
    return {u.simple: u for u in typegen.build_type_units(d, r)}


def test_pascal_case_properties_map_to_snake_case() -> None:
    assert [rules.snake_case(n) for n in ("TrainableVariables", "OutputShape", "IsFullyDefined", "Stop_training",
                                          "get_weights", "ndim", "IOSpec")] == [
        "trainable_variables", "output_shape", "is_fully_defined", "stop_training", "get_weights", "ndim", "io_spec"]


def test_interfaces_are_declared_with_every_member_and_their_generated_bases() -> None:
    files = _types()
    layer = files["ILayer.g.cs"]
    assert "public partial interface ILayer\n" in layer, "IWithTrackable is not generated: left to the face"
    for line in ("string Name { get; }", "List<IVariableV1> Weights { get; set; }", "List<NDArray> get_weights();",
                 "KerasShapesWrapper BatchInputShape { get; }",
                 "Tensors Apply(Tensors inputs, IOptionalArgs args = null);"):
        assert line in layer, line
    assert "FaceMethod" not in layer
    assert "public partial interface IModel : ILayer" in files["IModel.g.cs"]


def test_enums_keep_their_members_values_and_order() -> None:
    text = _types()["TF_DataType.g.cs"]
    assert ("public enum TF_DataType\n    {\n        DtInvalid = 0,\n        TF_FLOAT = 1,\n        TF_DOUBLE,\n    }"
            in text)


def test_instance_members_call_or_read_the_receivers_python_attribute() -> None:
    text = _types()["Layer.g.cs"]
    assert "public partial class Layer : ILayer\n" in text
    assert 'FaceBridge.Method("get_weights", "")' in text
    assert "public List<NDArray> get_weights() => __get_weights.Call<List<NDArray>>(this);" in text
    assert "public int count_params() => __count_params.Call<int>(this);" in text
    assert 'private static readonly FaceMethod __TrainableVariables = FaceBridge.Method("trainable_variables", "");' \
        in text
    assert "public List<IVariableV1> TrainableVariables => __TrainableVariables.Get<List<IVariableV1>>(this);" in text
    assert 'FaceBridge.Method("dtype", "")' in text, "[attributes] DType = dtype"
    assert 'FaceBridge.Method("output.shape", "")' in text, "a [members] entry's dotted attribute"
    assert "public override string ToString() => __ToString.Call<string>(this);" in text
    assert "Weights" not in text, "hand-written (exception table): the face's half writes it"


def test_a_class_implements_its_interfaces_members_and_inherits_its_bases() -> None:
    units = _type_units()
    layer, model = units["Layer"], units["Model"]
    assert [s.plan.member.owner for s in layer.slots if s.plan.member.name == "Layers"] == ["ILayer"], (
        "ILayer.Layers, which Layer does not declare, is implemented by the rule")
    assert {s.written.name for s in layer.hand_required} == {"Weights", "BatchInputShape", "Apply"}
    text = _types()["Model.g.cs"]
    assert "public partial class Model : Layer, IModel\n" in text
    assert ("public void summary(int line_length = -1) => __summary.Run(this, line_length == -1 ? null : "
            "(object)line_length);") in text
    assert [p.member.name for p in model.inherited] == ["count_params", "Layers"], (
        "what Layer writes already (Layers from ILayer) is inherited, not written again")
    assert "count_params" not in text and "Layers" not in text


def test_members_naming_a_type_the_codec_cannot_carry_have_no_rule() -> None:
    plans = {s.written.name: s.plan for s in _type_units()["Layer"].hand_required}
    assert plans["BatchInputShape"].action == "skip"
    assert "KerasShapesWrapper" in plans["BatchInputShape"].reason
    assert "IOptionalArgs" in plans["Apply"].reason and plans["Apply"].action == "skip"
    ds = _type_units()["DatasetV2"]
    assert "public partial class DatasetV2 : IDatasetV2" in _types()["DatasetV2.g.cs"]
    assert [s.written.name for s in ds.slots] == ["cardinality"]
    assert ds.hand_required[0].plan.reason.startswith("C# delegate parameter map_func")
    assert "public Tensor cardinality(string name = null) => __cardinality.Call<Tensor>(this);" in _types()[
        "DatasetV2.g.cs"], "a dropped parameter is not passed"


def test_extension_methods_and_receiver_functions() -> None:
    text = _types()["dtypes.g.cs"]
    assert "public static partial class dtypes" in text
    assert 'FaceBridge.Method("is_floating", "", "tf.as_dtype")' in text
    assert "public static bool is_floating(this TF_DataType type) => __is_floating.Get<bool>(type);" in text
    assert 'FaceBridge.Method("rank", "", "tf.TensorShape")' in _types()["Shape.g.cs"]


def test_operators_call_the_python_function_of_the_operation() -> None:
    text = _types()["Shape.g.cs"]
    assert 'private static readonly FaceCall __op_Addition = FaceBridge.Function("operator.add", "a, b");' in text
    assert "public static Shape operator +(Shape a, Shape b) => __op_Addition.Call<Shape>(a, b);" in text
    assert "implicit" not in text and "op_Implicit" not in text


def test_face_types_list_subclasses_first() -> None:
    text = _types()["FaceTypes.g.cs"]
    rows = [line.strip() for line in text.splitlines() if "twins.Add" in line]
    assert rows[0] == ('twins.Add(new Tuple<Type, string, string>(typeof(global::Tensorflow.Keras.Engine.Model), '
                       '"keras.Model", null));')
    assert rows.index(next(r for r in rows if "Engine.Layer)" in r)) > 0


def test_type_coverage_counts_rule_table_hand_and_no_rule() -> None:
    d, r = declarations.from_dict(copy.deepcopy(TYPES_FIXTURE)), rules.from_dict(copy.deepcopy(TYPES_RULES))
    counts = dict(typegen.type_coverage(d, r))
    layer = counts["Layer"]
    assert (layer["members"], layer["rule"], layer["mapped"], layer["hand"], layer["skip"]) == (10, 4, 3, 1, 2)
    assert counts["TF_DataType"]["rule"] == 3 and counts["TF_DataType"]["mapped"] == 1
    assert counts["KerasShapesWrapper"]["hand"] == 1
    assert (counts["Shape"]["rule"], counts["Shape"]["skip"]) == (1, 1), "+ by [operators]; a conversion has no rule"


def test_every_type_owner_needs_a_decision() -> None:
    table = copy.deepcopy(TYPES_RULES)
    del table["types"]["KerasShapesWrapper"]
    with pytest.raises(ValueError, match=r"\[types\] has no entry .* \['KerasShapesWrapper'\]"):
        _types(table=table)
    table = copy.deepcopy(TYPES_RULES)
    table["types"]["Shape"] = {"python": "tf.TensorShape", "own": "both"}
    with pytest.raises(ValueError, match="needs either python"):
        _types(table=table)


def test_csharp_7_drops_nullable_annotations_of_reference_types() -> None:
    values = {"int", "TF_DataType"}
    assert [typegen.csharp_type(t, values) for t in ("IOptionalArgs?", "int?", "TF_DataType?", "(int, long)?",
                                                       "Func<Tensors,Tensors>?", "List<Tensor?>")] == [
        "IOptionalArgs", "int?", "TF_DataType?", "(int, long)?", "Func<Tensors,Tensors>", "List<Tensor>"]


def test_type_check_tells_missing_kind_readonly_and_binding_apart() -> None:
    import tensorflow as tf

    d = declarations.from_dict(copy.deepcopy(TYPES_FIXTURE))
    floating = next(m for m in d.members if m.name == "is_floating")
    made = {"tf.dtypes.DType": tf.float32, "tf.Tensor": tf.constant([1.0])}
    roots = rules.from_dict({}).roots
    read = plan.Plan(floating, "get", path="is_floating")
    assert check.check_type_plan(read, "tf.dtypes.DType", ("get",), roots, made).status == "ok"
    called = plan.Plan(floating, "call", path="is_floating")
    assert check.check_type_plan(called, "tf.dtypes.DType", ("get",), roots, made).status == "kind"
    assert check.check_type_plan(plan.Plan(floating, "get", path="nope"), "tf.dtypes.DType", ("get",), roots,
                                 made).status == "missing"
    assert check.check_type_plan(plan.Plan(floating, "get", path="shape"), "tf.Tensor", ("get", "set"), roots,
                                 made).status == "readonly"
    numpy = plan.Plan(floating, "call", path="numpy", args=(plan.Arg("x", "bogus", "keyword"),))
    assert check.check_type_plan(numpy, "tf.Tensor", ("get",), roots, made).status == "binds"


def test_every_type_member_fits_its_python_twin() -> None:
    findings = check.check_types()
    bad = [f"{f.plan.member.key} -> {f.plan.path} on {f.where}: {f.status} {f.detail}" for f in findings
           if f.status != "ok"]
    assert len(findings) == 204 and not bad


def test_generated_types_called_from_csharp_equal_python(dotnet_bin: Path, tmp_path: Path) -> None:
    csharp, python = proof.run_types(tmp_path, dotnet_bin)
    assert sorted(csharp) == sorted(python) and len(python) == 82
    differ = {n: (csharp[n], python[n]) for n in python if not proof.agree(n, csharp[n], python[n])}
    assert not differ
    assert csharp["Layer.count_params"] == 9 and csharp["Layer.TrainableVariables.Count"] == 2
    assert csharp["Layer.OutputShape"] == {"shape": [None, 3]}
    assert csharp["Model.Layers[0].count_params"] == 12, "model.Layers[0] is an ILayer with TF.NET's members"
    assert csharp["Dataset.cardinality"]["value"] == 10 and csharp["TF_DataType.name"] == 9
    assert csharp["Shape.with_rank.wrong"] == {"error": "TfNetTrainArgumentException", "python": "ValueError"}
    assert csharp["Tensor.op_Division.int"]["dtype"] == "float64", "Python's truediv, as TF.NET's / calls it"


def test_committed_output_compiles_as_one_assembly(dotnet_bin: Path, tmp_path: Path) -> None:
    assert proof.compile_committed(tmp_path, dotnet_bin).is_file()
