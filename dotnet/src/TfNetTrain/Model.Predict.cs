// Model.Predict.cs: outputs (TensorFlow.NET's Model.Predict.cs).
using System;
using System.Collections.Generic;
using Python.Runtime;

namespace TfNetTrain
{
    public sealed partial class Model
    {
        /// <summary>The model's output for every sample (training=False). For several outputs use <see cref="PredictOutputs"/>.</summary>
        public NDArray Predict(NDArray x, int? batchSize = null, int? steps = null)
        {
            return SingleOutput(PredictOutputs(x, batchSize, steps));
        }

        /// <summary>The output of a multi-input model (one array per model input) for every sample.</summary>
        public NDArray Predict(IList<NDArray> x, int? batchSize = null, int? steps = null)
        {
            return SingleOutput(PredictOutputs(x, batchSize, steps));
        }

        private static NDArray SingleOutput(IList<NDArray> outputs)
        {
            if (outputs.Count != 1)
                throw new InvalidOperationException($"the model has {outputs.Count} outputs; use PredictOutputs");
            return outputs[0];
        }

        /// <summary>Predicts into <paramref name="output"/>, which must have the result's dtype and shape (no allocation).</summary>
        public void Predict(NDArray x, NDArray output, int? batchSize = null)
        {
            if (output == null) throw new ArgumentNullException(nameof(output));
            ModelInputs inputs = ModelInputs.One(x, nameof(x));
            Call(f =>
            {
                using (var outputs = InvokePredict(f, inputs, batchSize, null))
                {
                    if (outputs.Length() != 1)
                        throw new InvalidOperationException($"the model has {outputs.Length()} outputs; use PredictOutputs");
                    using (var first = outputs[0]) ArrayExchange.CopyInto(first, output, nameof(output));
                }
                return 0;
            });
        }

        /// <summary>Every model output for every sample, one array per output.</summary>
        public IList<NDArray> PredictOutputs(NDArray x, int? batchSize = null, int? steps = null)
        {
            return PredictOutputs(ModelInputs.One(x, nameof(x)), batchSize, steps);
        }

        /// <summary>Every output of a multi-input model (one array per model input) for every sample.</summary>
        public IList<NDArray> PredictOutputs(IList<NDArray> x, int? batchSize = null, int? steps = null)
        {
            return PredictOutputs(ModelInputs.Many(x, nameof(x)), batchSize, steps);
        }

        private IList<NDArray> PredictOutputs(ModelInputs x, int? batchSize, int? steps)
        {
            return Call<IList<NDArray>>(f =>
            {
                using (var outputs = InvokePredict(f, x, batchSize, steps)) return PyConvert.ToArrayList(outputs);
            });
        }

        /// <summary>Every model output for every element of a dataset (x, (x, y) or (x, y, sample_weight) batches), one array per output.</summary>
        public IList<NDArray> PredictOutputs(TensorFlowNet.IDatasetV2 dataset, int? steps = null)
        {
            return PredictInPython(dataset, steps, PyConvert.ToArrayList);
        }

        /// <summary>
        /// The outputs for arrays as Python tensors, given to <paramref name="read"/> on the runtime's thread: they
        /// stay in Python until read (the TensorFlow.NET face's <c>Tensors</c>), with no copy into C# and back.
        /// </summary>
        internal T PredictInPython<T>(IList<NDArray> x, int? batchSize, Func<PyObject, T> read)
        {
            ModelInputs inputs = x.Count == 1 ? ModelInputs.One(x[0], nameof(x)) : ModelInputs.Many(x, nameof(x));
            return Call(f =>
            {
                using (var outputs = InvokePredict(f, inputs, batchSize, null, "predict_tensors")) return read(outputs);
            });
        }

        /// <summary>The outputs for a dataset as Python tensors, given to <paramref name="read"/> on the runtime's thread.</summary>
        internal T PredictInPython<T>(TensorFlowNet.IDatasetV2 dataset, int? steps, Func<PyObject, T> read)
        {
            if (dataset == null) throw new ArgumentNullException(nameof(dataset));
            return Call(f =>
            {
                PyObject predict = f.Function("datasets", "predict_dataset"); // cached: not disposed here
                using (var kwargs = PyConvert.Kwargs(new Dictionary<string, object> { { "steps", steps } }))
                using (var outputs = predict.Invoke(new[] { _handle, dataset.PythonObject }, kwargs))
                {
                    return read(outputs);
                }
            });
        }

        /// <summary>The bridge's <paramref name="function"/> ("predict": exchange arrays; "predict_tensors": tensors) on x.</summary>
        private PyObject InvokePredict(BridgeFacade f, ModelInputs x, int? batchSize, int? steps, string function = "predict")
        {
            using (var px = x.ToPython(view: false))
            using (var kwargs = PyConvert.Kwargs(new Dictionary<string, object> { { "batch_size", batchSize }, { "steps", steps } }))
            {
                return f[function].Invoke(new[] { _handle, px }, kwargs);
            }
        }
    }
}
