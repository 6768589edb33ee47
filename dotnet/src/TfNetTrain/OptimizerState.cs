using System.Collections.Generic;

namespace TfNetTrain
{
    /// <summary>The optimizer after a traced step: iteration count, learning rate and slot variables.</summary>
    public sealed class OptimizerState
    {
        internal OptimizerState(long iterations, float learningRate, IDictionary<string, IList<NDArray>> slots)
        {
            Iterations = iterations;
            LearningRate = learningRate;
            Slots = slots;
        }

        /// <summary>Steps applied so far (after the update).</summary>
        public long Iterations { get; }

        /// <summary>The learning rate the next step will use (float32).</summary>
        public float LearningRate { get; }

        /// <summary>Slot name ("momentum", "m", "v", "rms", ...) → one array per trainable variable.</summary>
        public IDictionary<string, IList<NDArray>> Slots { get; }
    }
}
