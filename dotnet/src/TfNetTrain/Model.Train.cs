// Model.Train.cs: one step at a time (TensorFlow.NET's Model.Train.cs): train_on_batch and the traced step.
using System.Collections.Generic;
using Python.Runtime;

namespace TfNetTrain
{
    public sealed partial class Model
    {
        /// <summary>
        /// <c>model.train_on_batch</c>: one training step on exactly this batch (_train_counter advances by one).
        /// Returns "loss" and each metric over this batch, or, with <paramref name="resetMetrics"/> false, accumulated
        /// since the last reset (tf.keras's argument).
        /// </summary>
        public IDictionary<string, float> TrainOnBatch(NDArray x, NDArray y, NDArray sampleWeight = null, bool resetMetrics = true)
        {
            return TrainOnBatch(ModelInputs.One(x, nameof(x)), y, sampleWeight, resetMetrics);
        }

        /// <summary><c>train_on_batch</c> of a multi-input model: <paramref name="x"/> holds one array per model input.</summary>
        public IDictionary<string, float> TrainOnBatch(IList<NDArray> x, NDArray y, NDArray sampleWeight = null, bool resetMetrics = true)
        {
            return TrainOnBatch(ModelInputs.Many(x, nameof(x)), y, sampleWeight, resetMetrics);
        }

        private IDictionary<string, float> TrainOnBatch(ModelInputs x, NDArray y, NDArray sampleWeight, bool resetMetrics)
        {
            RequireY(y);
            return Call<IDictionary<string, float>>(f =>
            {
                using (var px = x.ToPython(view: false))
                using (var py = ArrayExchange.ToNumpy(y))
                using (var pw = Optional(sampleWeight))
                using (var reset = resetMetrics.ToPython())
                using (var logs = f["train_on_batch"].Invoke(_handle, px, py, pw, reset))
                {
                    return PyConvert.ToFloatDictionary(logs);
                }
            });
        }

        /// <summary>One training step returning the value of every stage (see <see cref="StepTrace"/>).</summary>
        public StepTrace TrainStepTraced(NDArray x, NDArray y, NDArray sampleWeight = null)
        {
            return TrainStepTraced(ModelInputs.One(x, nameof(x)), y, sampleWeight);
        }

        /// <summary>One traced training step of a multi-input model (one array per model input).</summary>
        public StepTrace TrainStepTraced(IList<NDArray> x, NDArray y, NDArray sampleWeight = null)
        {
            return TrainStepTraced(ModelInputs.Many(x, nameof(x)), y, sampleWeight);
        }

        private StepTrace TrainStepTraced(ModelInputs x, NDArray y, NDArray sampleWeight)
        {
            RequireY(y);
            return Call(f =>
            {
                using (var px = x.ToPython(view: false))
                using (var py = ArrayExchange.ToNumpy(y))
                using (var pw = Optional(sampleWeight))
                using (var record = f["train_step_traced"].Invoke(_handle, px, py, pw))
                {
                    return StepTrace.FromRecord(record);
                }
            });
        }
    }
}
