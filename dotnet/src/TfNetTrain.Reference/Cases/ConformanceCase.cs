using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Xml.Linq;

namespace TfNetTrain.Reference
{
    /// <summary>
    /// A conformance case (docs/conformance.md): the JSON spec plus the arrays of the .npz beside it.
    /// Build one with <see cref="Load"/>, or set the properties in code and call <see cref="Validate"/>.
    /// </summary>
    public sealed class ConformanceCase
    {
        /// <summary>The only schema identifier this reader accepts.</summary>
        public const string SchemaId = "tfnet-train/case@1";

        private static readonly string[] TopLevelFields =
        {
            "schema", "name", "description", "semantics", "model", "loss", "metrics", "optimizer", "batch_size", "steps", "tolerance",
            ArraysDigestField,
        };

        /// <summary>The JSON field binding a saved case's two files: the SHA-256 (lowercase hex) of the .npz bytes.</summary>
        public const string ArraysDigestField = "arrays_sha256";

        /// <summary>The case's name (the file stem).</summary>
        public string Name { get; set; }

        /// <summary>One line for reports; may be null.</summary>
        public string Description { get; set; }

        /// <summary>The profile every implementation follows.</summary>
        public Semantics Semantics { get; set; }

        /// <summary>Features per sample (<c>model.input_shape[0]</c>).</summary>
        public int InputSize { get; set; }

        /// <summary>The Dense layers, first to last.</summary>
        public IList<LayerSpec> Layers { get; set; } = new List<LayerSpec>();

        /// <summary>
        /// For a case whose model is Keras's architecture config (<c>model.keras_config</c>): the first layer the reference
        /// does not implement, e.g. <c>layer Conv2D (conv2d)</c>; null for the Dense form. Such a case loads (its common
        /// fields and arrays are checked) but <see cref="Validate"/> and the trainer refuse it with an
        /// <see cref="UnsupportedModelException"/>.
        /// </summary>
        public string UnsupportedLayer { get; private set; }

        /// <summary>The compiled loss.</summary>
        public LossSpec Loss { get; set; }

        /// <summary>Metric strings as listed in the case.</summary>
        public IList<string> Metrics { get; set; } = new List<string>();

        /// <summary>The optimizer and its hyper-parameters.</summary>
        public OptimizerSpec Optimizer { get; set; }

        /// <summary>Rows per step.</summary>
        public int BatchSize { get; set; }

        /// <summary>Training steps to run.</summary>
        public int Steps { get; set; }

        /// <summary>Relative tolerance; null = the project's float32 default.</summary>
        public double? Rtol { get; set; }

        /// <summary>Absolute tolerance; null = the project's float32 default.</summary>
        public double? Atol { get; set; }

        /// <summary>Initial weights in Keras <c>get_weights()</c> order.</summary>
        public IList<NpyArray> Weights { get; set; } = new List<NpyArray>();

        /// <summary>Inputs, (N, input_size) float32.</summary>
        public NpyArray X { get; set; }

        /// <summary>Targets, (N,) or (N, k).</summary>
        public NpyArray Y { get; set; }

        /// <summary>Per-sample weights (N,) float32, or null.</summary>
        public NpyArray SampleWeight { get; set; }

        /// <summary>
        /// The SHA-256 (64 lowercase hex digits) of the .npz the JSON was saved with (<c>arrays_sha256</c>), or null for a
        /// case written without one; <see cref="Load"/> refuses an .npz whose bytes do not match it.
        /// </summary>
        public string ArraysSha256 { get; private set; }

        /// <summary>Reads <paramref name="jsonPath"/> and the .npz with the same stem beside it, and validates both.</summary>
        /// <exception cref="CaseFormatException">A field or array that does not follow the schema.</exception>
        /// <exception cref="NpyFormatException">The .npz is malformed.</exception>
        public static ConformanceCase Load(string jsonPath)
        {
            if (jsonPath == null) throw new ArgumentNullException(nameof(jsonPath));
            ConformanceCase result = ParseSpec(CaseJson.ParseFile(jsonPath));
            string stem = Path.GetFileNameWithoutExtension(jsonPath);
            if (result.Name != stem)
                throw new CaseFormatException("name", "the file stem \"" + stem + "\"", "string \"" + result.Name + "\"");
            string npzPath = Path.Combine(Path.GetDirectoryName(Path.GetFullPath(jsonPath)), stem + ".npz");
            if (!File.Exists(npzPath)) throw new CaseFormatException("(arrays)", "the file " + npzPath, "no such file");
            result.AttachArrays(Npz.Load(npzPath));
            // After the arrays' own checks, so an edited array is named; a valid .npz of another save is refused here.
            if (result.ArraysSha256 != null)
            {
                string actual = Sha256Hex(npzPath);
                if (actual != result.ArraysSha256)
                    throw new CaseFormatException(ArraysDigestField, "the SHA-256 of " + npzPath + ", " + result.ArraysSha256,
                        actual + ": the two files are not of one save (an interrupted save or an edited .npz); save the case again");
            }
            return result;
        }

        private static string Sha256Hex(string path)
        {
            using (var sha = System.Security.Cryptography.SHA256.Create())
            using (var file = File.OpenRead(path))
            {
                return string.Concat(sha.ComputeHash(file).Select(b => b.ToString("x2", CultureInfo.InvariantCulture)));
            }
        }

        private static bool IsHexDigest(string value)
        {
            return value.Length == 64 && value.All(c => (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
        }

        /// <summary>Parses and validates the JSON spec (without arrays) from text.</summary>
        /// <exception cref="CaseFormatException">Malformed JSON, or an unknown, missing or wrongly typed field.</exception>
        public static ConformanceCase ParseSpec(string jsonText)
        {
            if (jsonText == null) throw new ArgumentNullException(nameof(jsonText));
            return ParseSpec(CaseJson.Parse(jsonText));
        }

        private static ConformanceCase ParseSpec(XElement document)
        {
            var top = new FieldReader(document, "");
            top.RejectUnknown(TopLevelFields);
            string schema = top.RequiredString("schema");
            if (schema != SchemaId) throw new CaseFormatException("schema", "\"" + SchemaId + "\"", "string \"" + schema + "\"");
            var result = new ConformanceCase
            {
                Name = top.RequiredString("name"),
                Description = top.OptionalString("description", null),
                Semantics = top.RequiredEnum<Semantics>("semantics", CaseNames.AllSemantics, CaseNames.TryParse),
                ArraysSha256 = top.OptionalString(ArraysDigestField, null),
            };
            if (result.ArraysSha256 != null && !IsHexDigest(result.ArraysSha256))
                throw new CaseFormatException(ArraysDigestField, "64 lowercase hex digits (the SHA-256 of the .npz)", "string \"" + result.ArraysSha256 + "\"");
            ParseModel(result, new FieldReader(top.Required("model", "object", "an object"), "model"));
            result.Loss = ParseLoss(new FieldReader(top.Required("loss", "object", "an object"), "loss"));
            XElement metrics = top.Required("metrics", "array", "a list of metric strings");
            List<XElement> metricItems = CaseJson.Items(metrics);
            for (int i = 0; i < metricItems.Count; i++)
            {
                XElement item = metricItems[i];
                string path = "metrics[" + i + "]";
                string expected = CaseNames.OneOf(CaseNames.MetricNames);
                if (CaseJson.Kind(item) != "string" || !CaseNames.MetricNames.Contains(item.Value))
                    throw new CaseFormatException(path, expected, CaseJson.Describe(item));
                result.Metrics.Add(item.Value);
            }
            result.Optimizer = ParseOptimizer(new FieldReader(top.Required("optimizer", "object", "an object"), "optimizer"));
            result.BatchSize = top.RequiredInt("batch_size", 1);
            result.Steps = top.RequiredInt("steps", 1);
            if (top.Has("tolerance"))
            {
                var tolerance = new FieldReader(top.Required("tolerance", "object", "an object"), "tolerance");
                tolerance.RejectUnknown(new[] { "rtol", "atol" });
                if (tolerance.Has("rtol")) result.Rtol = tolerance.OptionalNumber("rtol", 0, 0, double.PositiveInfinity, false, false);
                if (tolerance.Has("atol")) result.Atol = tolerance.OptionalNumber("atol", 0, 0, double.PositiveInfinity, false, false);
            }
            result.ValidateSpec();
            return result;
        }

        private static void ParseModel(ConformanceCase result, FieldReader model)
        {
            if (model.Has("keras_config"))
            {
                model.RejectUnknown(new[] { "keras_config" });
                result.UnsupportedLayer = FirstUnsupportedLayer(model.Required("keras_config", "object", "an object (Keras's model config)"));
                return;
            }
            model.RejectUnknown(new[] { "input_shape", "layers" });
            XElement inputShape = model.Required("input_shape", "array", "a list of one positive integer");
            List<XElement> dims = CaseJson.Items(inputShape);
            if (dims.Count != 1)
                throw new CaseFormatException("model.input_shape", "a list of one positive integer", CaseJson.Describe(inputShape));
            result.InputSize = FieldReader.ToInt(dims[0], "model.input_shape[0]", 1);
            List<XElement> layers = CaseJson.Items(model.Required("layers", "array", "a non-empty list of layer objects"));
            if (layers.Count == 0) throw new CaseFormatException("model.layers", "a non-empty list of layer objects", "array of 0 items");
            for (int i = 0; i < layers.Count; i++)
            {
                var layer = new FieldReader(layers[i], "model.layers[" + i + "]");
                layer.RejectUnknown(new[] { "type", "units", "activation", "use_bias", "kernel_regularizer" });
                string type = layer.RequiredString("type");
                if (type != "Dense") throw new CaseFormatException(layer.PathOf("type"), "\"Dense\"", "string \"" + type + "\"");
                int units = layer.RequiredInt("units", 1);
                var activation = layer.RequiredEnum<Activation>("activation", CaseNames.AllActivations, CaseNames.TryParse);
                bool useBias = layer.OptionalBool("use_bias", true);
                double? kernelL2 = ParseRegularizer(layer, "kernel_regularizer");
                result.Layers.Add(new LayerSpec(units, activation, useBias, kernelL2));
            }
        }

        /// <summary>
        /// The first top-level layer of a Keras config that is neither an InputLayer nor a Dense layer, as
        /// <c>layer Class (name)</c>; for a config of Dense layers only, the config itself (the reference reads the Dense
        /// form, <c>model.layers</c>). The config's full schema is checked by the Python side.
        /// </summary>
        private static string FirstUnsupportedLayer(XElement kerasConfig)
        {
            XElement config = Member(kerasConfig, "config");
            XElement layers = config == null ? null : Member(config, "layers");
            if (layers == null || CaseJson.Kind(layers) != "array")
                throw new CaseFormatException("model.keras_config.config.layers", "a non-empty list of layer configs", "missing");
            foreach (XElement layer in CaseJson.Items(layers))
            {
                XElement className = Member(layer, "class_name");
                string kind = className == null ? "?" : className.Value;
                if (kind == "InputLayer" || kind == "Dense") continue;
                XElement layerConfig = Member(layer, "config");
                XElement name = layerConfig == null ? null : Member(layerConfig, "name");
                return "layer " + kind + " (" + (name == null ? "?" : name.Value) + ")";
            }
            return "a Keras model config (model.keras_config)";
        }

        private static XElement Member(XElement value, string key)
        {
            if (CaseJson.Kind(value) != "object") return null;
            return value.Elements().FirstOrDefault(e => CaseJson.Key(e) == key);
        }

        /// <summary>Absent or null: no regularizer; otherwise exactly <c>{"l2": f}</c> with f &gt;= 0.</summary>
        private static double? ParseRegularizer(FieldReader layer, string key)
        {
            if (!layer.Has(key)) return null;
            XElement value = layer.OptionalNullable(key);
            if (value == null) return null;
            const string expected = "null or an object {\"l2\": number >= 0}";
            if (CaseJson.Kind(value) != "object") throw new CaseFormatException(layer.PathOf(key), expected, CaseJson.Describe(value));
            var regularizer = new FieldReader(value, layer.PathOf(key));
            regularizer.RejectUnknown(new[] { "l2" });
            if (!regularizer.Has("l2")) throw new CaseFormatException(regularizer.PathOf("l2"), "a number >= 0", "missing");
            return regularizer.OptionalNumber("l2", 0, 0, double.PositiveInfinity, false, false);
        }

        private static LossSpec ParseLoss(FieldReader loss)
        {
            loss.RejectUnknown(new[] { "name", "from_logits", "as_string" });
            if (loss.OptionalBool("as_string", false))
            {
                if (loss.OptionalBool("from_logits", false))
                    throw new CaseFormatException(loss.PathOf("from_logits"), "false when loss.as_string is true (a string carries no from_logits)", "true");
                const string expected = "null, a Keras 3 name of MSE or MAE (mse, MSE, mean_squared_error, mae, MAE, mean_absolute_error) " +
                    "or a name Keras 3 does not know (in any letter case) when loss.as_string is true";
                if (!loss.Has("name")) throw new CaseFormatException(loss.PathOf("name"), expected, "missing");
                XElement name = loss.OptionalNullable("name");
                if (name == null) return LossSpec.FromString(null);
                if (CaseJson.Kind(name) != "string" || name.Value.Length == 0 || KerasLossIdentifiers.IsOtherKerasLoss(name.Value))
                    throw new CaseFormatException(loss.PathOf("name"), expected, CaseJson.Describe(name));
                return LossSpec.FromString(name.Value);
            }
            var kind = loss.RequiredEnum<LossKind>("name", CaseNames.AllLosses, CaseNames.TryParse);
            return new LossSpec(kind, loss.OptionalBool("from_logits", false));
        }

        private static OptimizerSpec ParseOptimizer(FieldReader optimizer)
        {
            if (optimizer.OptionalBool("as_string", false))
            {
                optimizer.RejectUnknown(new[] { "name", "as_string" });
                string name = optimizer.RequiredString("name");
                if (name.Length == 0 || OptimizerSpec.IsOtherKerasOptimizer(name))
                    throw new CaseFormatException(optimizer.PathOf("name"),
                        "one of \"sgd\", \"adam\", \"adamw\", \"rmsprop\" (any letter case) or a name Keras 3 does not know when optimizer.as_string is true",
                        "string \"" + name + "\"");
                return OptimizerSpec.FromString(name);
            }
            var kind = optimizer.RequiredEnum<OptimizerKind>("name", CaseNames.AllOptimizers, CaseNames.TryParse);
            var allowed = new List<string> { "name", "as_string", "learning_rate", "clipnorm", "clipvalue", "global_clipnorm" };
            switch (kind)
            {
                case OptimizerKind.Sgd: allowed.AddRange(new[] { "momentum", "nesterov" }); break;
                case OptimizerKind.Adam: allowed.AddRange(new[] { "beta_1", "beta_2", "epsilon", "amsgrad" }); break;
                case OptimizerKind.AdamW: allowed.AddRange(new[] { "beta_1", "beta_2", "epsilon", "amsgrad", "weight_decay" }); break;
                case OptimizerKind.RmsProp: allowed.AddRange(new[] { "rho", "momentum", "epsilon", "centered" }); break;
            }
            optimizer.RejectUnknown(allowed);
            OptimizerSpec spec = OptimizerSpec.ForKind(kind);
            double inf = double.PositiveInfinity;
            spec.LearningRate = optimizer.OptionalNumber("learning_rate", spec.LearningRate, 0, inf, true, false);
            spec.Momentum = optimizer.OptionalNumber("momentum", spec.Momentum, 0, 1, false, false);
            spec.Nesterov = optimizer.OptionalBool("nesterov", spec.Nesterov);
            spec.Beta1 = optimizer.OptionalNumber("beta_1", spec.Beta1, 0, 1, false, true);
            spec.Beta2 = optimizer.OptionalNumber("beta_2", spec.Beta2, 0, 1, false, true);
            spec.Epsilon = optimizer.OptionalNumber("epsilon", spec.Epsilon, 0, inf, false, false);
            spec.Amsgrad = optimizer.OptionalBool("amsgrad", spec.Amsgrad);
            spec.WeightDecay = optimizer.OptionalNumber("weight_decay", spec.WeightDecay, 0, inf, false, false);
            spec.Rho = optimizer.OptionalNumber("rho", spec.Rho, 0, 1, false, false);
            spec.Centered = optimizer.OptionalBool("centered", spec.Centered);
            double? clipNorm = optimizer.OptionalPositiveOrNull("clipnorm");
            double? clipValue = optimizer.OptionalPositiveOrNull("clipvalue");
            double? globalClipNorm = optimizer.OptionalPositiveOrNull("global_clipnorm");
            var clips = new List<string>();
            if (clipNorm.HasValue) clips.Add("clipnorm");
            if (clipValue.HasValue) clips.Add("clipvalue");
            if (globalClipNorm.HasValue) clips.Add("global_clipnorm");
            if (clips.Count > 1)
                throw new CaseFormatException("optimizer", "at most one of clipnorm, clipvalue, global_clipnorm (Keras 3 rule)",
                    string.Join(" and ", clips));
            spec.ClipNorm = clipNorm;
            spec.ClipValue = clipValue;
            spec.GlobalClipNorm = globalClipNorm;
            return spec;
        }

        /// <summary>The weight shapes the model spec implies, in Keras <c>get_weights()</c> order.</summary>
        public IList<int[]> ExpectedWeightShapes()
        {
            var shapes = new List<int[]>();
            int inputs = InputSize;
            foreach (LayerSpec layer in Layers)
            {
                shapes.Add(new[] { inputs, layer.Units });
                if (layer.UseBias) shapes.Add(new[] { layer.Units });
                inputs = layer.Units;
            }
            return shapes;
        }

        /// <summary>Sets the arrays from an .npz's contents, after checking every key, dtype and shape.</summary>
        /// <exception cref="CaseFormatException">A missing, unknown or mis-shaped array.</exception>
        public void AttachArrays(IDictionary<string, NpyArray> arrays)
        {
            if (arrays == null) throw new ArgumentNullException(nameof(arrays));
            int weightCount = ExpectedWeightShapes().Count;
            if (UnsupportedLayer != null)
            {
                weightCount = 0;
                while (arrays.ContainsKey("weights/" + weightCount)) weightCount++;
            }
            var known = new HashSet<string> { "x", "y", "sample_weight" };
            for (int i = 0; i < weightCount; i++) known.Add("weights/" + i);
            foreach (string key in arrays.Keys)
            {
                if (!known.Contains(key))
                    throw new CaseFormatException(key, "no such array (expected weights/0..weights/" + (weightCount - 1) +
                        ", x, y and optionally sample_weight)", arrays[key].Describe());
            }
            var weights = new List<NpyArray>();
            for (int i = 0; i < weightCount; i++) weights.Add(Get(arrays, "weights/" + i));
            Weights = weights;
            X = Get(arrays, "x");
            Y = Get(arrays, "y");
            NpyArray sampleWeight;
            SampleWeight = arrays.TryGetValue("sample_weight", out sampleWeight) ? sampleWeight : null;
            if (UnsupportedLayer != null) ValidateKerasArrays();
            else Validate();
        }

        /// <summary>The arrays of a Keras-config case: float32 weights, x of any rank with a row per sample.</summary>
        private void ValidateKerasArrays()
        {
            for (int i = 0; i < Weights.Count; i++)
                if (Weights[i].Dtype != "float32") throw new CaseFormatException("weights/" + i, "a float32 array", Weights[i].Describe());
            if (X.Rank < 2 || X.Dtype != "float32") throw new CaseFormatException("x", "float32 array of shape (N, ...)", X.Describe());
            int n = X.Shape[0];
            if (n < Steps * BatchSize)
                throw new CaseFormatException("x", "at least steps * batch_size = " + Steps * BatchSize + " rows", n + " rows");
            if (Y.Rank < 1 || Y.Shape[0] != n) throw new CaseFormatException("y", "an array of shape (" + n + ", ...)", Y.Describe());
            if (SampleWeight != null) RequireArray("sample_weight", SampleWeight, new[] { "float32" }, new[] { n });
        }

        private static NpyArray Get(IDictionary<string, NpyArray> arrays, string key)
        {
            NpyArray value;
            if (!arrays.TryGetValue(key, out value)) throw new CaseFormatException(key, "an array", "missing");
            return value;
        }

        /// <summary>Checks the spec and the arrays against each other.</summary>
        /// <exception cref="CaseFormatException">The first inconsistency found.</exception>
        /// <exception cref="UnsupportedModelException">The model is a Keras config with a layer the reference does not implement.</exception>
        public void Validate()
        {
            if (UnsupportedLayer != null) throw new UnsupportedModelException(UnsupportedLayer);
            ValidateSpec();
            IList<int[]> shapes = ExpectedWeightShapes();
            if (Weights == null || Weights.Count != shapes.Count)
                throw new CaseFormatException("weights", shapes.Count + " arrays (kernel and bias per Dense layer)",
                    Weights == null ? "none" : Weights.Count.ToString(CultureInfo.InvariantCulture));
            for (int i = 0; i < shapes.Count; i++)
                RequireArray("weights/" + i, Weights[i], new[] { "float32" }, shapes[i]);
            if (X == null) throw new CaseFormatException("x", "an array", "missing");
            if (X.Rank != 2 || X.Dtype != "float32" || X.Shape[1] != InputSize)
                throw new CaseFormatException("x", "float32 array of shape (N, " + InputSize + ")", X.Describe());
            int n = X.Shape[0];
            if (n < Steps * BatchSize)
                throw new CaseFormatException("x", "at least steps * batch_size = " + Steps * BatchSize + " rows", n + " rows");
            ValidateTargets(n);
            if (SampleWeight != null) RequireArray("sample_weight", SampleWeight, new[] { "float32" }, new[] { n });
        }

        private void ValidateTargets(int n)
        {
            if (Y == null) throw new CaseFormatException("y", "an array", "missing");
            int units = Layers[Layers.Count - 1].Units;
            var dtypes = new[] { "float32", "int32", "int64" };
            bool sparse = Loss.Kind == LossKind.SparseCategoricalCrossentropy;
            int width = sparse ? 1 : units;
            string expected = sparse || units == 1
                ? string.Format("shape ({0},) or ({0}, {1})", n, width)
                : string.Format("shape ({0}, {1})", n, width);
            bool shapeOk = (Y.Rank == 2 && Y.Shape[0] == n && Y.Shape[1] == width) || (Y.Rank == 1 && Y.Shape[0] == n && width == 1);
            if (!dtypes.Contains(Y.Dtype) || !shapeOk)
                throw new CaseFormatException("y", "a float32, int32 or int64 array of " + expected, Y.Describe());
            if (!sparse) return;
            for (int i = 0; i < Y.Size; i++)
            {
                double label = Y.GetDouble(i);
                if (label != Math.Floor(label) || label < 0 || label >= units)
                    throw new CaseFormatException("y", "integer class labels in [0, " + units + ") for sparse_categorical_crossentropy",
                        "label " + label.ToString("R", CultureInfo.InvariantCulture) + " at index " + i);
            }
        }

        private void ValidateSpec()
        {
            if (string.IsNullOrEmpty(Name)) throw new CaseFormatException("name", "a non-empty string", Name == null ? "missing" : "empty string");
            if (UnsupportedLayer == null) ValidateDenseSpec();
            ValidateCommonSpec();
        }

        private void ValidateDenseSpec()
        {
            if (InputSize < 1) throw new CaseFormatException("model.input_shape[0]", "an integer >= 1", InputSize.ToString(CultureInfo.InvariantCulture));
            if (Layers == null || Layers.Count == 0) throw new CaseFormatException("model.layers", "a non-empty list of layer objects", "none");
            for (int i = 0; i < Layers.Count; i++)
            {
                if (Layers[i] == null || Layers[i].Units < 1)
                    throw new CaseFormatException("model.layers[" + i + "].units", "an integer >= 1",
                        Layers[i] == null ? "missing" : Layers[i].Units.ToString(CultureInfo.InvariantCulture));
            }
        }

        private void ValidateCommonSpec()
        {
            if (Loss == null) throw new CaseFormatException("loss", "an object", "missing");
            if (Optimizer == null) throw new CaseFormatException("optimizer", "an object", "missing");
            if (Metrics == null) throw new CaseFormatException("metrics", "a list of metric strings", "missing");
            var seen = new HashSet<string>();
            for (int i = 0; i < Metrics.Count; i++)
            {
                if (!CaseNames.MetricNames.Contains(Metrics[i]))
                    throw new CaseFormatException("metrics[" + i + "]", CaseNames.OneOf(CaseNames.MetricNames), "\"" + Metrics[i] + "\"");
                if (!seen.Add(Metrics[i]))
                    throw new CaseFormatException("metrics[" + i + "]", "each metric once", "\"" + Metrics[i] + "\" again");
            }
            if (BatchSize < 1) throw new CaseFormatException("batch_size", "an integer >= 1", BatchSize.ToString(CultureInfo.InvariantCulture));
            if (Steps < 1) throw new CaseFormatException("steps", "an integer >= 1", Steps.ToString(CultureInfo.InvariantCulture));
        }

        private static void RequireArray(string key, NpyArray array, string[] dtypes, int[] shape)
        {
            string expected = string.Join(" or ", dtypes) + " array of shape " + NpyArray.FormatShape(shape);
            if (array == null) throw new CaseFormatException(key, expected, "missing");
            if (!dtypes.Contains(array.Dtype) || !array.Shape.SequenceEqual(shape))
                throw new CaseFormatException(key, expected, array.Describe());
        }
    }
}
