using System.Collections.Generic;

namespace TfNetTrain
{
    /// <summary>
    /// Every stage of one training step, in the order the step computes them (the C# view of
    /// tfnet_train.engine.trace.StepTrace). Gradient lists have one entry per trainable variable
    /// (<see cref="VariableNames"/>); <see cref="Weights"/> follows get_weights() order (<see cref="WeightNames"/>).
    /// <see cref="Flat"/> is StepTrace.flat(): "stage/key" → array, the form conformance reports compare; the typed
    /// stages hold the same array objects (each array crosses the bridge once).
    /// </summary>
    public sealed class StepTrace
    {
        internal StepTrace() { }

        /// <summary>The value of _train_counter before this step.</summary>
        public long Step { get; internal set; }

        /// <summary>"x", "y", "sample_weight" → the batch arrays after expand_1d.</summary>
        public IDictionary<string, IList<NDArray>> Inputs { get; internal set; }

        /// <summary>Model outputs (training=True), one per output.</summary>
        public IList<NDArray> YPred { get; internal set; }

        /// <summary>The step's training loss.</summary>
        public float Loss { get; internal set; }

        /// <summary>Raw gradients (null for a variable without a gradient).</summary>
        public IList<NDArray> Gradients { get; internal set; }

        /// <summary>Gradients after cross-replica aggregation.</summary>
        public IList<NDArray> AggregatedGradients { get; internal set; }

        /// <summary>Gradients after clipping (the optimizer's clipNorm, clipValue or globalClipNorm; unchanged under tfnet).</summary>
        public IList<NDArray> ClippedGradients { get; internal set; }

        /// <summary>Every model weight after the update.</summary>
        public IList<NDArray> Weights { get; internal set; }

        /// <summary>Optimizer iterations, learning rate and slots after the update.</summary>
        public OptimizerState OptimizerState { get; internal set; }

        /// <summary>The step's logs: "loss" and each metric.</summary>
        public IDictionary<string, float> Metrics { get; internal set; }

        /// <summary>Names of the trainable variables, in gradient order.</summary>
        public IList<string> VariableNames { get; internal set; }

        /// <summary>Names of all weights, in <see cref="Weights"/> order.</summary>
        public IList<string> WeightNames { get; internal set; }

        /// <summary>StepTrace.flat(): "inputs/x/0", "gradients/1", "optimizer_state/m/0", "metrics/loss", ... → array.</summary>
        public IDictionary<string, NDArray> Flat { get; internal set; }
    }
}
