using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Python.Runtime;
using TfNetTrain.Reference;

namespace TfNetTrain.Conformance
{
    /// <summary>
    /// Turns a live bridged model and its data into a conformance case, so a training that misbehaves can be replayed
    /// by every implementation (the Python engine, Keras 3, the NumPy and C# references) and compared stage by stage.
    /// The model must be a compiled Sequential of Dense layers with a fresh optimizer (no step taken yet).
    /// </summary>
    public static class CaseRecorder
    {
        private static readonly Dictionary<string, OptimizerKind> OptimizerKinds = new Dictionary<string, OptimizerKind>
        {
            { "SGD", OptimizerKind.Sgd }, { "Adam", OptimizerKind.Adam }, { "AdamW", OptimizerKind.AdamW }, { "RMSprop", OptimizerKind.RmsProp },
        };

        // Dense settings that change training but have no place in the case schema (an L2 kernel regularizer has).
        private static readonly string[] Unsupported =
        {
            "bias_regularizer", "activity_regularizer", "kernel_constraint", "bias_constraint",
        };

        /// <summary>
        /// Writes <c>&lt;path&gt;.json</c> and <c>.npz</c> (a trailing ".json" on <paramref name="path"/> is optional; the
        /// file name is the case name): the model's layers, loss, metrics, optimizer and semantics profile, its current
        /// weights, and <paramref name="steps"/> steps of <paramref name="batchSize"/> rows of the data. Returns the
        /// case as read back from the files.
        /// </summary>
        /// <param name="model">A compiled bridged Sequential of Dense layers whose optimizer has not stepped.</param>
        /// <param name="x">Inputs (N, features); stored as float32.</param>
        /// <param name="y">Targets (N,) or (N, k); stored as float32 (integer labels stay integers for sparse categorical cross-entropy).</param>
        /// <param name="steps">Training steps the case runs (at least 1).</param>
        /// <param name="batchSize">Rows per step (at least 1); step i trains on rows [i*batchSize, (i+1)*batchSize).</param>
        /// <param name="path">Where to write, e.g. "cases/my_failure" or "cases/my_failure.json".</param>
        /// <param name="sampleWeight">Per-sample weights (N,) or null.</param>
        /// <exception cref="TfNetTrainArgumentException">The model or data cannot be expressed as a case (the message names what and why).</exception>
        /// <exception cref="CaseFormatException">The recorded case does not follow the schema.</exception>
        public static ConformanceCase Record(Model model, NDArray x, NDArray y, int steps, int batchSize, string path,
                                             NDArray sampleWeight = null)
        {
            if (model == null) throw new ArgumentNullException(nameof(model));
            if (x == null) throw new ArgumentNullException(nameof(x));
            if (y == null) throw new ArgumentNullException(nameof(y));
            if (string.IsNullOrEmpty(path)) throw new TfNetTrainArgumentException(nameof(path), "must be a file path; got an empty string");
            if (steps < 1) throw new TfNetTrainArgumentException(nameof(steps), "must be >= 1; got " + steps);
            if (batchSize < 1) throw new TfNetTrainArgumentException(nameof(batchSize), "must be >= 1 (rows per step); got " + batchSize);
            if (x.Rank != 2) throw new TfNetTrainArgumentException(nameof(x), "must have shape (N, features); got " + NpyArray.FormatShape(x.Shape));
            int rows = x.Dim(0);
            if ((long)steps * batchSize > rows)
                throw new TfNetTrainArgumentException(nameof(x), string.Format("must have at least steps * batchSize = {0} * {1} = {2} rows; got {3}",
                                                                              steps, batchSize, (long)steps * batchSize, rows));
            if (y.Rank == 0 || y.Dim(0) != rows)
                throw new TfNetTrainArgumentException(nameof(y), "must have " + rows + " rows like x; got shape " + NpyArray.FormatShape(y.Shape));
            if (sampleWeight != null && sampleWeight.Size != rows)
                throw new TfNetTrainArgumentException(nameof(sampleWeight), "must hold one weight per row of x (" + rows + "); got shape " +
                                                                            NpyArray.FormatShape(sampleWeight.Shape));

            string full = Path.GetFullPath(path);
            string name = full.EndsWith(".json", StringComparison.Ordinal) ? Path.GetFileNameWithoutExtension(full) : Path.GetFileName(full);
            if (string.IsNullOrEmpty(name)) throw new TfNetTrainArgumentException(nameof(path), "must end in a file name; got '" + path + "'");
            string directory = Path.GetDirectoryName(full);

            JsonObject spec = Describe(model, name, steps, batchSize);
            ConformanceCase recorded = ConformanceCase.ParseSpec(JsonWriter.Serialize(spec));
            var arrays = new Dictionary<string, NpyArray>();
            IList<NDArray> weights = model.GetWeights();
            for (int i = 0; i < weights.Count; i++)
            {
                if (weights[i].DType != DType.Float32)
                    throw new TfNetTrainArgumentException(nameof(model), "weights must be float32 for a case; weight " + i + " is " + weights[i].DType.NumpyName());
                arrays["weights/" + i] = ArrayConversion.ToNpy(weights[i]);
            }
            arrays["x"] = ArrayConversion.ToNpy(ArrayConversion.ToFloat32(x));
            bool integerLabels = recorded.Loss.Kind == LossKind.SparseCategoricalCrossentropy &&
                                 (y.DType == DType.Int32 || y.DType == DType.Int64);
            arrays["y"] = integerLabels ? new NpyArray(y.Shape, y.DType.NumpyName(), (Array)y.Data.Clone()) : ArrayConversion.ToNpy(ArrayConversion.ToFloat32(y));
            if (sampleWeight != null) arrays["sample_weight"] = ArrayConversion.ToNpy(ArrayConversion.ToFloat32(sampleWeight, new[] { rows }));
            recorded.AttachArrays(arrays);
            return ConformanceCase.Load(CaseWriter.Save(recorded, directory));
        }

        // The case's JSON spec from the live model (layers, loss, metrics, optimizer, profile), read on the Python thread.
        private static JsonObject Describe(Model model, string name, int steps, int batchSize)
        {
            Tolerance tolerance = CaseTolerance.FromPython(model.Runtime);
            return model.Runtime.Run(() =>
            {
                using (var builtins = Py.Import("builtins"))
                {
                    PyObject m = model.PythonObject;
                    if (!m.HasAttr("train_step_traced") || !Truthy(builtins, m, "compiled"))
                        throw new TfNetTrainArgumentException(nameof(model), "must be a compiled tfnet_train model; got an uncompiled " + TypeName(m));
                    var doc = new JsonObject
                    {
                        { "schema", ConformanceCase.SchemaId },
                        { "name", name },
                        { "description", "recorded from C# (a bridged " + TypeName(m) + ")" },
                    };
                    using (var semantics = m.GetAttr("semantics")) doc.Add("semantics", semantics.As<string>());
                    int inputSize;
                    doc.Add("model", DescribeLayers(builtins, m, out inputSize));
                    doc.Add("loss", DescribeLoss(builtins, m));
                    doc.Add("metrics", DescribeMetrics(m));
                    doc.Add("optimizer", DescribeOptimizer(builtins, m));
                    doc.Add("batch_size", batchSize);
                    doc.Add("steps", steps);
                    doc.Add("tolerance", new JsonObject { { "rtol", tolerance.Rtol }, { "atol", tolerance.Atol } });
                    return doc;
                }
            });
        }

        private static JsonObject DescribeLayers(PyObject builtins, PyObject model, out int inputSize)
        {
            var layers = new List<JsonObject>();
            inputSize = 0;
            using (var keras = Py.Import("keras"))
            using (var kerasLayers = keras.GetAttr("layers"))
            using (var dense = kerasLayers.GetAttr("Dense"))
            using (var modelLayers = model.GetAttr("layers"))
            {
                foreach (PyObject layer in Items(modelLayers))
                {
                    using (layer)
                    using (var isDense = builtins.InvokeMethod("isinstance", layer, dense))
                    {
                        string layerName;
                        using (var n = layer.GetAttr("name")) layerName = n.As<string>();
                        if (!isDense.IsTrue())
                            throw new TfNetTrainArgumentException("model", "every layer must be keras.layers.Dense; got " + TypeName(layer) + " ('" + layerName + "')");
                        foreach (string attribute in Unsupported)
                        {
                            if (!layer.HasAttr(attribute)) continue;
                            using (var value = layer.GetAttr(attribute))
                            {
                                if (!value.IsNone())
                                    throw new TfNetTrainArgumentException("model", "layer '" + layerName + "' " + attribute +
                                                                                   " cannot be expressed in a case; got " + value);
                            }
                        }
                        string activation;
                        using (var config = layer.InvokeMethod("get_config"))
                        using (var value = config["activation"])
                        {
                            if (!IsInstance(builtins, value, "str") || !CaseNames.AllActivations.Contains(value.As<string>()))
                                throw new TfNetTrainArgumentException("model", "layer '" + layerName + "' activation must be one of " +
                                    string.Join(", ", CaseNames.AllActivations) + "; got " + value);
                            activation = value.As<string>();
                        }
                        if (layers.Count == 0)
                        {
                            using (var kernel = layer.GetAttr("kernel"))
                            using (var shape = kernel.GetAttr("shape"))
                            using (var first = shape[0])
                            {
                                inputSize = first.As<int>();
                            }
                        }
                        using (var units = layer.GetAttr("units"))
                        {
                            var spec = new JsonObject
                            {
                                { "type", "Dense" }, { "units", units.As<int>() }, { "activation", activation },
                                { "use_bias", Truthy(builtins, layer, "use_bias") },
                            };
                            double? l2 = KernelL2(layer, layerName);
                            if (l2.HasValue) spec.Add("kernel_regularizer", new JsonObject { { "l2", l2.Value } });
                            layers.Add(spec);
                        }
                    }
                }
            }
            if (layers.Count == 0) throw new TfNetTrainArgumentException("model", "must hold at least one Dense layer; got none");
            return new JsonObject { { "input_shape", new[] { inputSize } }, { "layers", layers } };
        }

        // The factor of an L2 kernel regularizer (keras.regularizers.L2), null without one; other kinds are refused.
        private static double? KernelL2(PyObject layer, string layerName)
        {
            if (!layer.HasAttr("kernel_regularizer")) return null;
            using (var regularizer = layer.GetAttr("kernel_regularizer"))
            {
                if (regularizer.IsNone()) return null;
                if (TypeName(regularizer) != "L2" || !regularizer.HasAttr("l2"))
                    throw new TfNetTrainArgumentException("model", "layer '" + layerName + "' kernel_regularizer must be an L2 regularizer " +
                                                                   "for a case; got " + regularizer);
                using (var factor = regularizer.GetAttr("l2")) return factor.As<double>();
            }
        }

        // Loss and metrics as Python's recorder reads them from the compiled model.
        private static JsonObject DescribeLoss(PyObject builtins, PyObject model)
        {
            using (var record = Py.Import("tfnet_train.conformance.record"))
            using (var spec = record.InvokeMethod("_loss_spec", model))
            using (var name = spec.GetAttr("name"))
            using (var logits = spec.GetAttr("from_logits"))
                return new JsonObject { { "name", name.As<string>() }, { "from_logits", logits.IsTrue() } };
        }

        private static List<string> DescribeMetrics(PyObject model)
        {
            var names = new List<string>();
            using (var record = Py.Import("tfnet_train.conformance.record"))
            using (var ids = record.InvokeMethod("_metrics", model))
                foreach (PyObject id in Items(ids)) using (id) names.Add(id.As<string>());
            return names;
        }

        private static JsonObject DescribeOptimizer(PyObject builtins, PyObject model)
        {
            using (var optimizer = model.GetAttr("optimizer"))
            {
                string className = TypeName(optimizer);
                OptimizerKind kind;
                if (!OptimizerKinds.TryGetValue(className, out kind))
                    throw new TfNetTrainArgumentException("model", "optimizer must be one of " + string.Join(", ", OptimizerKinds.Keys) + "; got " + className);
                using (var iterations = optimizer.GetAttr("iterations"))
                using (var count = builtins.InvokeMethod("int", iterations))
                {
                    long done = count.As<long>();
                    if (done != 0)
                        throw new TfNetTrainArgumentException("model", "the optimizer must be fresh (0 iterations) to start a case; got " + done);
                }
                var result = new JsonObject { { "name", CaseNames.Of(kind) } };
                using (var config = optimizer.InvokeMethod("get_config"))
                {
                    foreach (string parameter in OptimizerParameters.Names(kind))
                    {
                        using (var key = new PyString(parameter))
                        using (var present = config.InvokeMethod("__contains__", key))
                        {
                            if (!present.IsTrue()) continue;
                            using (var value = config[parameter])
                            {
                                if (parameter == "learning_rate" && !(IsInstance(builtins, value, "float") || IsInstance(builtins, value, "int")))
                                    throw new TfNetTrainArgumentException("model", "learning_rate must be a constant for a case; got " + value);
                                result.Add(parameter, Plain(builtins, value, parameter));
                            }
                        }
                    }
                }
                return result;
            }
        }

        private static object Plain(PyObject builtins, PyObject value, string parameter)
        {
            if (value.IsNone()) return null;
            if (IsInstance(builtins, value, "bool")) return value.As<bool>();
            if (IsInstance(builtins, value, "int") || IsInstance(builtins, value, "float")) return value.As<double>();
            throw new TfNetTrainArgumentException("model", "optimizer " + parameter + " must be a number, a bool or None for a case; got " + value);
        }

        private static bool IsInstance(PyObject builtins, PyObject value, string typeName)
        {
            using (var type = builtins.GetAttr(typeName))
            using (var result = builtins.InvokeMethod("isinstance", value, type))
            {
                return result.IsTrue();
            }
        }

        private static bool Truthy(PyObject builtins, PyObject obj, string attribute)
        {
            if (!obj.HasAttr(attribute)) return false;
            using (var value = obj.GetAttr(attribute))
            using (var flag = builtins.InvokeMethod("bool", value))
            {
                return flag.As<bool>();
            }
        }

        private static string TypeName(PyObject obj)
        {
            using (var type = obj.GetAttr("__class__"))
            using (var n = type.GetAttr("__name__"))
            {
                return n.As<string>();
            }
        }

        private static IEnumerable<PyObject> Items(PyObject iterable)
        {
            using (var iterator = iterable.GetIterator())
            {
                while (iterator.MoveNext()) yield return iterator.Current;
            }
        }
    }
}
