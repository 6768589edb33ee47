using System.Collections.Generic;

namespace TfNetTrain
{
    /// <summary>
    /// Training hooks called during <see cref="Model.Fit"/>, as Keras calls its callbacks. Hooks run on the Python
    /// worker thread while Fit waits; they may call the model (e.g. GetWeights), which then runs inline. Logs hold
    /// the running loss and metrics ("loss", "accuracy", ... and "val_*" at epoch end); begin hooks get empty logs.
    /// An exception thrown by a hook stops Fit and comes out of Fit unchanged.
    /// </summary>
    public interface ICallback
    {
        /// <summary>
        /// Metric name → one value per epoch, as TensorFlow.NET's callbacks carry it: filled on the
        /// <see cref="History"/> fit returns (<c>ICallback result = model.fit(...); result.history["loss"]</c>);
        /// other callbacks may return an empty dictionary.
        /// </summary>
        Dictionary<string, List<float>> history { get; }

        /// <summary>Once, before the first epoch.</summary>
        void OnTrainBegin(IDictionary<string, float> logs);

        /// <summary>Once, after the last epoch, with the last epoch's logs.</summary>
        void OnTrainEnd(IDictionary<string, float> logs);

        /// <summary>At the start of each epoch (0-based).</summary>
        void OnEpochBegin(int epoch, IDictionary<string, float> logs);

        /// <summary>At the end of each epoch, with training and validation results.</summary>
        void OnEpochEnd(int epoch, IDictionary<string, float> logs);

        /// <summary>Before each training step (batch index within the epoch).</summary>
        void OnTrainBatchBegin(long batch, IDictionary<string, float> logs);

        /// <summary>After each training step, with the running results of the epoch.</summary>
        void OnTrainBatchEnd(long batch, IDictionary<string, float> logs);
    }
}
