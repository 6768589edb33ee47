// Model.Fit.cs: training over many steps (TensorFlow.NET's Model.Fit.cs): arrays and datasets.
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
        /// Trains for <paramref name="epochs"/> epochs (Keras fit semantics; shuffles unless
        /// <paramref name="shuffle"/> is false). <paramref name="validationX"/>/<paramref name="validationY"/> give
        /// validation data; <paramref name="callbacks"/> receive the training hooks (C# callbacks, and
        /// Keras callbacks described by <see cref="KerasCallback"/> specs, run in list order). Returns the per-epoch history.
        /// <para><paramref name="cancellationToken"/> is checked at each batch end (training and validation): once
        /// it is cancelled, no further step starts and Fit throws <see cref="OperationCanceledException"/>. The steps
        /// that ran are kept whole (weights, optimizer state and <see cref="TrainCounter"/> are those of exactly
        /// these steps); a token cancelled already throws before anything runs. A cancellable token makes every
        /// batch end a hook, so an epoch runs batch by batch rather than in one compiled call.</para>
        /// </summary>
        public History Fit(NDArray x, NDArray y, int? batchSize = null, int epochs = 1, int verbose = 1,
                           IList<ICallback> callbacks = null, float validationSplit = 0f, bool shuffle = true,
                           NDArray sampleWeight = null, int initialEpoch = 0, int? stepsPerEpoch = null,
                           NDArray validationX = null, NDArray validationY = null, int validationFreq = 1,
                           IDictionary<int, float> classWeight = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            cancellationToken.ThrowIfCancellationRequested();
            ModelInputs inputs = ModelInputs.One(x, nameof(x));
            ModelInputs validation = validationX == null ? null : ModelInputs.One(validationX, nameof(validationX));
            return Fit(inputs, y, batchSize, epochs, verbose, callbacks, validationSplit, shuffle, sampleWeight,
                       initialEpoch, stepsPerEpoch, validation, validationY, validationFreq, classWeight, cancellationToken);
        }

        /// <summary>
        /// <see cref="Fit(NDArray, NDArray, int?, int, int, IList{ICallback}, float, bool, NDArray, int, int?, NDArray, NDArray, int, IDictionary{int, float}, CancellationToken)"/>
        /// as a task, run on a thread-pool thread that waits for the Python worker; cancelled as Fit is (the task
        /// ends Canceled).
        /// </summary>
        public Task<History> FitAsync(NDArray x, NDArray y, int? batchSize = null, int epochs = 1, int verbose = 1,
                                      IList<ICallback> callbacks = null, float validationSplit = 0f, bool shuffle = true,
                                      NDArray sampleWeight = null, int initialEpoch = 0, int? stepsPerEpoch = null,
                                      NDArray validationX = null, NDArray validationY = null, int validationFreq = 1,
                                      IDictionary<int, float> classWeight = null,
                                      CancellationToken cancellationToken = default(CancellationToken))
        {
            return RunAsync(() => Fit(x, y, batchSize, epochs, verbose, callbacks, validationSplit, shuffle, sampleWeight,
                                      initialEpoch, stepsPerEpoch, validationX, validationY, validationFreq, classWeight,
                                      cancellationToken), cancellationToken);
        }

        /// <summary>
        /// <see cref="Fit(NDArray, NDArray, int?, int, int, IList{ICallback}, float, bool, NDArray, int, int?, NDArray, NDArray, int, IDictionary{int, float}, CancellationToken)"/>
        /// for a multi-input model: <paramref name="x"/> (and <paramref name="validationX"/>) hold one array per model input.
        /// </summary>
        public History Fit(IList<NDArray> x, NDArray y, int? batchSize = null, int epochs = 1, int verbose = 1,
                           IList<ICallback> callbacks = null, float validationSplit = 0f, bool shuffle = true,
                           NDArray sampleWeight = null, int initialEpoch = 0, int? stepsPerEpoch = null,
                           IList<NDArray> validationX = null, NDArray validationY = null, int validationFreq = 1,
                           IDictionary<int, float> classWeight = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            cancellationToken.ThrowIfCancellationRequested();
            ModelInputs inputs = ModelInputs.Many(x, nameof(x));
            ModelInputs validation = validationX == null ? null : ModelInputs.Many(validationX, nameof(validationX));
            return Fit(inputs, y, batchSize, epochs, verbose, callbacks, validationSplit, shuffle, sampleWeight,
                       initialEpoch, stepsPerEpoch, validation, validationY, validationFreq, classWeight, cancellationToken);
        }

        /// <summary>The multi-input Fit as a task (see FitAsync for one input).</summary>
        public Task<History> FitAsync(IList<NDArray> x, NDArray y, int? batchSize = null, int epochs = 1, int verbose = 1,
                                      IList<ICallback> callbacks = null, float validationSplit = 0f, bool shuffle = true,
                                      NDArray sampleWeight = null, int initialEpoch = 0, int? stepsPerEpoch = null,
                                      IList<NDArray> validationX = null, NDArray validationY = null, int validationFreq = 1,
                                      IDictionary<int, float> classWeight = null,
                                      CancellationToken cancellationToken = default(CancellationToken))
        {
            return RunAsync(() => Fit(x, y, batchSize, epochs, verbose, callbacks, validationSplit, shuffle, sampleWeight,
                                      initialEpoch, stepsPerEpoch, validationX, validationY, validationFreq, classWeight,
                                      cancellationToken), cancellationToken);
        }

        private History Fit(ModelInputs x, NDArray y, int? batchSize, int epochs, int verbose, IList<ICallback> callbacks,
                            float validationSplit, bool shuffle, NDArray sampleWeight, int initialEpoch, int? stepsPerEpoch,
                            ModelInputs validationX, NDArray validationY, int validationFreq, IDictionary<int, float> classWeight,
                            CancellationToken cancellationToken)
        {
            RequireY(y);
            if ((validationX == null) != (validationY == null)) // one Python argument, validation_data=(x, y)
                throw new TfNetTrainArgumentException(validationX == null ? "validationX" : nameof(validationY),
                    "validationX and validationY must be given together");
            var fitCallbacks = new FitCallbacks(callbacks, this);
            return CallCancellable(cancellationToken, (f, cancel) =>
            {
                var arguments = new Dictionary<string, object>
                {
                    { "batch_size", batchSize }, { "epochs", epochs }, { "verbose", verbose },
                    { "validation_split", validationSplit }, { "shuffle", shuffle }, { "initial_epoch", initialEpoch },
                    { "steps_per_epoch", stepsPerEpoch }, { "validation_freq", validationFreq },
                };
                if (classWeight != null)
                {
                    var weights = new Dictionary<long, double>();
                    foreach (var pair in classWeight) weights[pair.Key] = PyConvert.ShortestDouble(pair.Value);
                    arguments["class_weight"] = weights;
                }
                using (var px = x.ToPython(view: true))
                using (var py = ArrayExchange.ViewAsNumpy(y))
                using (var kwargs = PyConvert.Kwargs(arguments))
                using (var hostCallbacks = fitCallbacks.ToPython(f))
                {
                    kwargs["callbacks"] = hostCallbacks;
                    if (cancel != null) kwargs["cancel"] = cancel;
                    if (sampleWeight != null) using (var pw = ArrayExchange.ViewAsNumpy(sampleWeight)) kwargs["sample_weight"] = pw;
                    if (validationX != null)
                    {
                        using (var vx = validationX.ToPython(view: true))
                        using (var vy = ArrayExchange.ViewAsNumpy(validationY))
                        using (var pair = new PyTuple(new PyObject[] { vx, vy }))
                        {
                            kwargs["validation_data"] = pair;
                        }
                    }
                    using (var result = f["fit"].Invoke(new[] { _handle, px, py }, kwargs))
                    {
                        return History.FromRecord(result);
                    }
                }
            });
        }

        /// <summary>
        /// Trains on a dataset of (x, y) or (x, y, sample_weight) batches, batched already (TensorFlow.NET's
        /// <c>fit(IDatasetV2)</c>). <paramref name="callbacks"/> receive the same hooks with the same logs as on the
        /// array path. A data error (a batch of the wrong shape, a failing map, a failing C# batch source) leaves the
        /// weights, the optimizer and the train counter as they were, wherever it happens.
        /// <paramref name="cancellationToken"/> stops it at the next batch end, as on the array path.
        /// </summary>
        public History Fit(TensorFlowNet.IDatasetV2 dataset, int epochs = 1, int verbose = 1, IList<ICallback> callbacks = null,
                           TensorFlowNet.IDatasetV2 validationData = null, int initialEpoch = 0, int? stepsPerEpoch = null,
                           CancellationToken cancellationToken = default(CancellationToken))
        {
            cancellationToken.ThrowIfCancellationRequested();
            if (dataset == null) throw new ArgumentNullException(nameof(dataset));
            var fitCallbacks = new FitCallbacks(callbacks, this);
            return CallCancellable(cancellationToken, (f, cancel) =>
            {
                using (var kwargs = PyConvert.Kwargs(new Dictionary<string, object>
                {
                    { "epochs", epochs }, { "verbose", verbose }, { "initial_epoch", initialEpoch }, { "steps_per_epoch", stepsPerEpoch },
                }))
                using (var hostCallbacks = fitCallbacks.ToPython(f))
                {
                    PyObject fit = f.Function("datasets", "fit_dataset"); // cached: not disposed here
                    kwargs["callbacks"] = hostCallbacks;
                    if (cancel != null) kwargs["cancel"] = cancel;
                    if (validationData != null) kwargs["validation_data"] = validationData.PythonObject;
                    using (var result = fit.Invoke(new[] { _handle, dataset.PythonObject }, kwargs)) return History.FromRecord(result);
                }
            });
        }

        /// <summary>The dataset Fit as a task (see FitAsync for arrays).</summary>
        public Task<History> FitAsync(TensorFlowNet.IDatasetV2 dataset, int epochs = 1, int verbose = 1, IList<ICallback> callbacks = null,
                                      TensorFlowNet.IDatasetV2 validationData = null, int initialEpoch = 0, int? stepsPerEpoch = null,
                                      CancellationToken cancellationToken = default(CancellationToken))
        {
            return RunAsync(() => Fit(dataset, epochs, verbose, callbacks, validationData, initialEpoch, stepsPerEpoch,
                                      cancellationToken), cancellationToken);
        }
    }
}
