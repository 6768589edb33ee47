using System;
using System.Collections.Generic;
using System.Linq;
using Python.Runtime;

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

        /// <summary>The History from a bridge result {"history": {name: [float]}, "epoch": [int]}.</summary>
        internal static History FromRecord(PyObject result)
        {
            var values = new Dictionary<string, IList<float>>();
            using (var history = result["history"])
            {
                PyConvert.ForEachItem(history, (key, list) =>
                    values[key] = new List<float>(Array.ConvertAll(list.As<double[]>(), v => (float)v)));
            }
            using (var epochs = result["epoch"]) return new History(values, new List<int>(epochs.As<int[]>()));
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
