using System.Collections.Generic;

namespace TfNetTrain
{
    /// <summary>What <see cref="Model.Fit"/> returns: each metric's value per epoch, as Keras's History.history.</summary>
    public sealed class History
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
    }
}
