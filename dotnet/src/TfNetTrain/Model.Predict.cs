// Model.Predict.cs: outputs (TensorFlow.NET's Model.Predict.cs).
using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Python.Runtime;

namespace TfNetTrain
{
    public sealed partial class Model
    {
        /// <summary>
        /// The model's output for every sample (training=False). For several outputs use <see cref="PredictOutputs(NDArray, int?, int?, CancellationToken)"/>.
        /// <paramref name="cancellationToken"/> is checked at each batch end: once it is cancelled, Predict throws
        /// <see cref="OperationCanceledException"/> (a token cancelled already throws before anything runs).
        /// </summary>
        public NDArray Predict(NDArray x, int? batchSize = null, int? steps = null,
                               CancellationToken cancellationToken = default(CancellationToken))
        {
            return SingleOutput(PredictOutputs(x, batchSize, steps, cancellationToken));
        }

        /// <summary>The output of a multi-input model (one array per model input) for every sample; cancelled as for one input.</summary>
        public NDArray Predict(IList<NDArray> x, int? batchSize = null, int? steps = null,
                               CancellationToken cancellationToken = default(CancellationToken))
        {
            return SingleOutput(PredictOutputs(x, batchSize, steps, cancellationToken));
        }

        /// <summary>Predict as a task, run on a thread-pool thread that waits for the Python worker; cancelled as Predict is.</summary>
        public Task<NDArray> PredictAsync(NDArray x, int? batchSize = null, int? steps = null,
                                          CancellationToken cancellationToken = default(CancellationToken))
        {
            return RunAsync(() => Predict(x, batchSize, steps, cancellationToken), cancellationToken);
        }

        /// <summary>The multi-input Predict as a task.</summary>
        public Task<NDArray> PredictAsync(IList<NDArray> x, int? batchSize = null, int? steps = null,
                                          CancellationToken cancellationToken = default(CancellationToken))
        {
            return RunAsync(() => Predict(x, batchSize, steps, cancellationToken), cancellationToken);
        }

        private static NDArray SingleOutput(IList<NDArray> outputs)
        {
            if (outputs.Count != 1)
                throw new InvalidOperationException($"the model has {outputs.Count} outputs; use PredictOutputs");
            return outputs[0];
        }

        /// <summary>
        /// Predicts into <paramref name="output"/>, which must have the result's dtype and shape (no allocation);
        /// a cancelled call leaves <paramref name="output"/> as it was.
        /// </summary>
        public void Predict(NDArray x, NDArray output, int? batchSize = null,
                            CancellationToken cancellationToken = default(CancellationToken))
        {
            cancellationToken.ThrowIfCancellationRequested();
            if (output == null) throw new ArgumentNullException(nameof(output));
            ModelInputs inputs = ModelInputs.One(x, nameof(x));
            CallCancellable(cancellationToken, (f, cancel) =>
            {
                using (var outputs = InvokePredict(f, inputs, batchSize, null, cancel))
                {
                    if (outputs.Length() != 1)
                        throw new InvalidOperationException($"the model has {outputs.Length()} outputs; use PredictOutputs");
                    using (var first = outputs[0]) ArrayExchange.CopyInto(first, output, nameof(output));
                }
                return 0;
            });
        }

        /// <summary>Every model output for every sample, one array per output; cancelled as Predict is.</summary>
        public IList<NDArray> PredictOutputs(NDArray x, int? batchSize = null, int? steps = null,
                                             CancellationToken cancellationToken = default(CancellationToken))
        {
            cancellationToken.ThrowIfCancellationRequested();
            return PredictOutputs(ModelInputs.One(x, nameof(x)), batchSize, steps, cancellationToken);
        }

        /// <summary>Every output of a multi-input model (one array per model input) for every sample; cancelled as Predict is.</summary>
        public IList<NDArray> PredictOutputs(IList<NDArray> x, int? batchSize = null, int? steps = null,
                                             CancellationToken cancellationToken = default(CancellationToken))
        {
            cancellationToken.ThrowIfCancellationRequested();
            return PredictOutputs(ModelInputs.Many(x, nameof(x)), batchSize, steps, cancellationToken);
        }

        private IList<NDArray> PredictOutputs(ModelInputs x, int? batchSize, int? steps, CancellationToken cancellationToken)
        {
            return CallCancellable<IList<NDArray>>(cancellationToken, (f, cancel) =>
            {
                using (var outputs = InvokePredict(f, x, batchSize, steps, cancel)) return PyConvert.ToArrayList(outputs);
            });
        }

        /// <summary>
        /// Every model output for every element of a dataset (x, (x, y) or (x, y, sample_weight) batches), one array
        /// per output; cancelled as Predict is.
        /// </summary>
        public IList<NDArray> PredictOutputs(TensorFlowNet.IDatasetV2 dataset, int? steps = null,
                                             CancellationToken cancellationToken = default(CancellationToken))
        {
            return PredictInPython(dataset, steps, PyConvert.ToArrayList, cancellationToken);
        }

        /// <summary>
        /// The outputs for arrays as Python tensors, given to <paramref name="read"/> on the runtime's thread: they
        /// stay in Python until read (the TensorFlow.NET face's <c>Tensors</c>), with no copy into C# and back.
        /// </summary>
        internal T PredictInPython<T>(IList<NDArray> x, int? batchSize, Func<PyObject, T> read,
                                      CancellationToken cancellationToken = default(CancellationToken))
        {
            cancellationToken.ThrowIfCancellationRequested();
            ModelInputs inputs = x.Count == 1 ? ModelInputs.One(x[0], nameof(x)) : ModelInputs.Many(x, nameof(x));
            return CallCancellable(cancellationToken, (f, cancel) =>
            {
                using (var outputs = InvokePredict(f, inputs, batchSize, null, cancel, "predict_tensors")) return read(outputs);
            });
        }

        /// <summary>The outputs for a dataset as Python tensors, given to <paramref name="read"/> on the runtime's thread.</summary>
        internal T PredictInPython<T>(TensorFlowNet.IDatasetV2 dataset, int? steps, Func<PyObject, T> read,
                                      CancellationToken cancellationToken = default(CancellationToken))
        {
            cancellationToken.ThrowIfCancellationRequested();
            if (dataset == null) throw new ArgumentNullException(nameof(dataset));
            return CallCancellable(cancellationToken, (f, cancel) =>
            {
                PyObject predict = f.Function("datasets", "predict_dataset"); // cached: not disposed here
                using (var kwargs = PyConvert.Kwargs(new Dictionary<string, object> { { "steps", steps } }))
                {
                    if (cancel != null) kwargs["cancel"] = cancel;
                    using (var outputs = predict.Invoke(new[] { _handle, dataset.PythonObject }, kwargs))
                    {
                        return read(outputs);
                    }
                }
            });
        }

        /// <summary>
        /// The bridge's <paramref name="function"/> ("predict": exchange arrays; "predict_tensors": tensors) on x,
        /// checking <paramref name="cancel"/> (a <see cref="CancellationFlag"/>, or null) at each batch end.
        /// </summary>
        private PyObject InvokePredict(BridgeFacade f, ModelInputs x, int? batchSize, int? steps, PyObject cancel,
                                       string function = "predict")
        {
            using (var px = x.ToPython(view: false))
            using (var kwargs = PyConvert.Kwargs(new Dictionary<string, object> { { "batch_size", batchSize }, { "steps", steps } }))
            {
                if (cancel != null) kwargs["cancel"] = cancel;
                return f[function].Invoke(new[] { _handle, px }, kwargs);
            }
        }
    }
}
