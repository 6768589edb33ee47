// Model.Evaluate.cs: loss and metrics without training (TensorFlow.NET's Model.Evaluate.cs).
using System;
using System.Collections.Generic;

namespace TfNetTrain
{
    public sealed partial class Model
    {
        /// <summary>Loss and metrics over the data (running means over batches), without training.</summary>
        public IDictionary<string, float> Evaluate(NDArray x, NDArray y, int? batchSize = null, NDArray sampleWeight = null,
                                                   int? steps = null)
        {
            return Evaluate(ModelInputs.One(x, nameof(x)), y, batchSize, sampleWeight, steps);
        }

        /// <summary>Loss and metrics of a multi-input model (one array per model input), without training.</summary>
        public IDictionary<string, float> Evaluate(IList<NDArray> x, NDArray y, int? batchSize = null,
                                                   NDArray sampleWeight = null, int? steps = null)
        {
            return Evaluate(ModelInputs.Many(x, nameof(x)), y, batchSize, sampleWeight, steps);
        }

        private IDictionary<string, float> Evaluate(ModelInputs x, NDArray y, int? batchSize, NDArray sampleWeight, int? steps)
        {
            RequireY(y);
            return Call<IDictionary<string, float>>(f =>
            {
                using (var px = x.ToPython(view: false))
                using (var py = ArrayExchange.ToNumpy(y))
                using (var kwargs = PyConvert.Kwargs(new Dictionary<string, object>
                {
                    { "batch_size", batchSize }, { "sample_weight", sampleWeight }, { "steps", steps },
                }))
                using (var logs = f["evaluate"].Invoke(new[] { _handle, px, py }, kwargs))
                {
                    return PyConvert.ToFloatDictionary(logs);
                }
            });
        }

        /// <summary>Loss and metrics over a dataset of (x, y) or (x, y, sample_weight) batches, without training.</summary>
        public IDictionary<string, float> Evaluate(TensorFlowNet.IDatasetV2 dataset, int? steps = null)
        {
            if (dataset == null) throw new ArgumentNullException(nameof(dataset));
            return Call<IDictionary<string, float>>(f =>
            {
                var evaluate = f.Function("datasets", "evaluate_dataset"); // cached: not disposed here
                using (var kwargs = PyConvert.Kwargs(new Dictionary<string, object> { { "steps", steps } }))
                using (var logs = evaluate.Invoke(new[] { _handle, dataset.PythonObject }, kwargs))
                {
                    return PyConvert.ToFloatDictionary(logs);
                }
            });
        }
    }
}
