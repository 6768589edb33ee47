using System.Collections.Generic;

namespace TfNetTrain
{
    /// <summary>
    /// An <see cref="ICallback"/> whose hooks do nothing: override the ones you need. Hooks left as they are are
    /// not called at all (batch hooks nobody overrides cost nothing per step). <see cref="Model"/> is the model
    /// being trained while Fit runs.
    /// </summary>
    public abstract class CallbackBase : ICallback
    {
        /// <summary>The model Fit is training (set before the first hook).</summary>
        public Model Model { get; internal set; }

        /// <summary>Empty unless a subclass fills it (<see cref="ICallback.history"/>).</summary>
        public virtual Dictionary<string, List<float>> history { get; } = new Dictionary<string, List<float>>();

        /// <inheritdoc/>
        public virtual void OnTrainBegin(IDictionary<string, float> logs) { }

        /// <inheritdoc/>
        public virtual void OnTrainEnd(IDictionary<string, float> logs) { }

        /// <inheritdoc/>
        public virtual void OnEpochBegin(int epoch, IDictionary<string, float> logs) { }

        /// <inheritdoc/>
        public virtual void OnEpochEnd(int epoch, IDictionary<string, float> logs) { }

        /// <inheritdoc/>
        public virtual void OnTrainBatchBegin(long batch, IDictionary<string, float> logs) { }

        /// <inheritdoc/>
        public virtual void OnTrainBatchEnd(long batch, IDictionary<string, float> logs) { }
    }
}
