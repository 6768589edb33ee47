// Model.Evaluate.cs: loss and metrics without training (TensorFlow.NET's Model.Evaluate.cs).
using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;

namespace TfNetTrain
{
    public sealed partial class Model
    {
        /// <summary>
        /// Loss and metrics over the data (running means over batches), without training.
        /// <paramref name="cancellationToken"/> is checked at each batch end: once it is cancelled, Evaluate throws
        /// <see cref="OperationCanceledException"/> (a token cancelled already throws before anything runs).
        /// </summary>
        public IDictionary<string, float> Evaluate(NDArray x, NDArray y, int? batchSize = null, NDArray sampleWeight = null,
                                                   int? steps = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            cancellationToken.ThrowIfCancellationRequested();
            return Evaluate(ModelInputs.One(x, nameof(x)), y, batchSize, sampleWeight, steps, cancellationToken);
        }

        /// <summary>Loss and metrics of a multi-input model (one array per model input), without training; cancelled as for one input.</summary>
        public IDictionary<string, float> Evaluate(IList<NDArray> x, NDArray y, int? batchSize = null,
                                                   NDArray sampleWeight = null, int? steps = null,
                                                   CancellationToken cancellationToken = default(CancellationToken))
        {
            cancellationToken.ThrowIfCancellationRequested();
            return Evaluate(ModelInputs.Many(x, nameof(x)), y, batchSize, sampleWeight, steps, cancellationToken);
        }

        /// <summary>Evaluate as a task, run on a thread-pool thread that waits for the Python worker; cancelled as Evaluate is.</summary>
        public Task<IDictionary<string, float>> EvaluateAsync(NDArray x, NDArray y, int? batchSize = null, NDArray sampleWeight = null,
                                                              int? steps = null,
                                                              CancellationToken cancellationToken = default(CancellationToken))
        {
            return RunAsync(() => Evaluate(x, y, batchSize, sampleWeight, steps, cancellationToken), cancellationToken);
        }

        /// <summary>The multi-input Evaluate as a task.</summary>
        public Task<IDictionary<string, float>> EvaluateAsync(IList<NDArray> x, NDArray y, int? batchSize = null,
                                                              NDArray sampleWeight = null, int? steps = null,
                                                              CancellationToken cancellationToken = default(CancellationToken))
        {
            return RunAsync(() => Evaluate(x, y, batchSize, sampleWeight, steps, cancellationToken), cancellationToken);
        }

        private IDictionary<string, float> Evaluate(ModelInputs x, NDArray y, int? batchSize, NDArray sampleWeight, int? steps,
                                                    CancellationToken cancellationToken)
        {
            RequireY(y);
            return CallCancellable<IDictionary<string, float>>(cancellationToken, (f, cancel) =>
            {
                using (var px = x.ToPython(view: false))
                using (var py = ArrayExchange.ToNumpy(y))
                using (var kwargs = PyConvert.Kwargs(new Dictionary<string, object>
                {
                    { "batch_size", batchSize }, { "sample_weight", sampleWeight }, { "steps", steps },
                }))
                {
                    if (cancel != null) kwargs["cancel"] = cancel;
                    using (var logs = f["evaluate"].Invoke(new[] { _handle, px, py }, kwargs))
                    {
                        return PyConvert.ToFloatDictionary(logs);
                    }
                }
            });
        }

        /// <summary>
        /// Loss and metrics over a dataset of (x, y) or (x, y, sample_weight) batches, without training; cancelled
        /// as for arrays.
        /// </summary>
        public IDictionary<string, float> Evaluate(TensorFlowNet.IDatasetV2 dataset, int? steps = null,
                                                   CancellationToken cancellationToken = default(CancellationToken))
        {
            cancellationToken.ThrowIfCancellationRequested();
            if (dataset == null) throw new ArgumentNullException(nameof(dataset));
            return CallCancellable<IDictionary<string, float>>(cancellationToken, (f, cancel) =>
            {
                var evaluate = f.Function("datasets", "evaluate_dataset"); // cached: not disposed here
                using (var kwargs = PyConvert.Kwargs(new Dictionary<string, object> { { "steps", steps } }))
                {
                    if (cancel != null) kwargs["cancel"] = cancel;
                    using (var logs = evaluate.Invoke(new[] { _handle, dataset.PythonObject }, kwargs))
                    {
                        return PyConvert.ToFloatDictionary(logs);
                    }
                }
            });
        }

        /// <summary>The dataset Evaluate as a task.</summary>
        public Task<IDictionary<string, float>> EvaluateAsync(TensorFlowNet.IDatasetV2 dataset, int? steps = null,
                                                              CancellationToken cancellationToken = default(CancellationToken))
        {
            return RunAsync(() => Evaluate(dataset, steps, cancellationToken), cancellationToken);
        }
    }
}
