using System.Collections.Generic;
using Python.Runtime;

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

        /// <summary>
        /// A StepTrace from the bridge's record: every array arrives once, as StepTrace.flat() ("stage/key" → array);
        /// the typed stages are the same arrays, grouped by their keys (<see cref="TraceKeys"/>).
        /// </summary>
        internal static StepTrace FromRecord(PyObject record)
        {
            var flat = new Dictionary<string, NDArray>();
            var lists = new Dictionary<string, IList<NDArray>>();
            var trace = new StepTrace { Flat = flat };
            using (var names = record["variable_names"]) trace.VariableNames = new List<string>(names.As<string[]>());
            using (var names = record["weight_names"]) trace.WeightNames = new List<string>(names.As<string[]>());
            using (var step = record["step"]) trace.Step = step.As<long>();
            foreach (string stage in new[] { TraceKeys.Gradients, TraceKeys.AggregatedGradients, TraceKeys.ClippedGradients })
                lists[stage] = new List<NDArray>(new NDArray[trace.VariableNames.Count]); // null where a variable has no gradient
            var metrics = new Dictionary<string, float>();
            using (var arrays = record["flat"])
            {
                PyConvert.ForEachItem(arrays, (key, value) =>
                {
                    NDArray array = ArrayExchange.FromNumpy(value);
                    flat[key] = array;
                    if (TraceKeys.TryParseIn(key, TraceKeys.Metrics, out string metric)) metrics[metric] = (float)array.GetDouble(0);
                    else TraceKeys.AddIndexed(lists, key, array);
                });
            }
            var slots = new Dictionary<string, IList<NDArray>>();
            foreach (var pair in lists)
                if (TraceKeys.TryParseIn(pair.Key, TraceKeys.OptimizerState, out string slot)) slots[slot] = pair.Value;
            trace.Inputs = new Dictionary<string, IList<NDArray>>();
            foreach (string kind in TraceKeys.InputKinds) trace.Inputs[kind] = Stage(lists, TraceKeys.Key(TraceKeys.Inputs, kind));
            trace.YPred = Stage(lists, TraceKeys.YPred);
            trace.Loss = (float)flat[TraceKeys.Loss].GetDouble(0);
            trace.Gradients = Stage(lists, TraceKeys.Gradients);
            trace.AggregatedGradients = Stage(lists, TraceKeys.AggregatedGradients);
            trace.ClippedGradients = Stage(lists, TraceKeys.ClippedGradients);
            trace.Weights = Stage(lists, TraceKeys.Weights);
            trace.OptimizerState = new OptimizerState(
                (long)flat[TraceKeys.Key(TraceKeys.OptimizerState, TraceKeys.Iterations)].GetDouble(0),
                flat.TryGetValue(TraceKeys.Key(TraceKeys.OptimizerState, TraceKeys.LearningRate), out NDArray rate)
                    ? (float)rate.GetDouble(0) : float.NaN,
                slots);
            trace.Metrics = metrics;
            return trace;
        }

        private static IList<NDArray> Stage(Dictionary<string, IList<NDArray>> lists, string stage)
        {
            return lists.TryGetValue(stage, out IList<NDArray> list) ? list : new List<NDArray>();
        }
    }
}
