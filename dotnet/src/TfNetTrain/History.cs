using System.Collections.Generic;
using System.Linq;

namespace TfNetTrain
{
    /// <summary>
    /// What <see cref="Model.Fit"/> returns: each metric's value per epoch, as Keras's History.history. It is an
    /// <see cref="ICallback"/> as TensorFlow.NET's History is (<c>ICallback result = model.fit(...)</c>); given to a
    /// fit as a callback it does nothing.
    /// </summary>
    public sealed class History : ICallback
    {
        internal History(IDictionary<string, IList<float>> values, IList<int> epochs)
        {
            Values = values;
            Epochs = epochs;
        }

        /// <summary>Metric name ("loss", "accuracy", "val_loss", ...) → one value per epoch.</summary>
        public IDictionary<string, IList<float>> Values { get; }

        /// <summary>The 0-based indices of the epochs that ran.</summary>
        public IList<int> Epochs { get; }

        /// <summary>The per-epoch values of one metric.</summary>
        public IList<float> this[string metric] => Values[metric];

        /// <summary>TensorFlow.NET's name for <see cref="Values"/> (a copy; <see cref="ICallback.history"/>).</summary>
        public Dictionary<string, List<float>> history => Values.ToDictionary(p => p.Key, p => p.Value.ToList());

        void ICallback.OnTrainBegin(IDictionary<string, float> logs) { }
        void ICallback.OnTrainEnd(IDictionary<string, float> logs) { }
        void ICallback.OnEpochBegin(int epoch, IDictionary<string, float> logs) { }
        void ICallback.OnEpochEnd(int epoch, IDictionary<string, float> logs) { }
        void ICallback.OnTrainBatchBegin(long batch, IDictionary<string, float> logs) { }
        void ICallback.OnTrainBatchEnd(long batch, IDictionary<string, float> logs) { }
    }
}
