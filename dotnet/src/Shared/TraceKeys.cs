using System.Collections.Generic;
using System.Globalization;

namespace TfNetTrain
{
    /// <summary>
    /// The keys of a flat step trace, "stage" or "stage/part/.../index" ("inputs/x/0", "gradients/1",
    /// "optimizer_state/m/0", "metrics/loss"): the rules of tfnet_train.engine.trace, for C#. Compiled into both
    /// TfNetTrain (which reads the engine's traces) and TfNetTrain.Reference (which writes its own), so the format
    /// has one definition per language.
    /// </summary>
    internal static class TraceKeys
    {
        internal const string Inputs = "inputs", YPred = "y_pred", Loss = "loss", Weights = "weights", Metrics = "metrics";
        internal const string Gradients = "gradients", AggregatedGradients = "aggregated_gradients", ClippedGradients = "clipped_gradients";
        internal const string OptimizerState = "optimizer_state", Iterations = "iterations", LearningRate = "learning_rate";

        /// <summary>The stages in the order a step computes them (tfnet_train.engine.trace.STAGES).</summary>
        internal static readonly string[] Stages =
        {
            Inputs, YPred, Loss, Gradients, AggregatedGradients, ClippedGradients, Weights, OptimizerState, Metrics,
        };

        /// <summary>The kinds of input arrays under "inputs/".</summary>
        internal static readonly string[] InputKinds = { "x", "y", "sample_weight" };

        /// <summary>The key of a value: Key("gradients", 1) is "gradients/1".</summary>
        internal static string Key(params object[] parts)
        {
            var text = new string[parts.Length];
            for (int i = 0; i < parts.Length; i++) text[i] = System.Convert.ToString(parts[i], CultureInfo.InvariantCulture);
            return string.Join("/", text);
        }

        /// <summary>"gradients/3" → ("gradients", 3); false for a key whose last part is not an index.</summary>
        internal static bool TryParseIndexed(string key, out string list, out int index)
        {
            int slash = key.LastIndexOf('/');
            list = slash > 0 ? key.Substring(0, slash) : null;
            index = -1;
            return slash > 0 && int.TryParse(key.Substring(slash + 1), NumberStyles.None, CultureInfo.InvariantCulture, out index);
        }

        /// <summary>"metrics/loss" with stage "metrics" → "loss"; false for a key of another stage.</summary>
        internal static bool TryParseIn(string key, string stage, out string rest)
        {
            bool inside = key.Length > stage.Length + 1 && key[stage.Length] == '/' && key.StartsWith(stage, System.StringComparison.Ordinal);
            rest = inside ? key.Substring(stage.Length + 1) : null;
            return inside;
        }

        /// <summary>The arrays of an indexed list ("gradients/0", "gradients/1", ...) by index: null where a key is missing.</summary>
        internal static void AddIndexed<T>(IDictionary<string, IList<T>> lists, string key, T value) where T : class
        {
            if (!TryParseIndexed(key, out string list, out int index)) return;
            if (!lists.TryGetValue(list, out IList<T> values)) lists[list] = values = new List<T>();
            while (values.Count <= index) values.Add(null);
            values[index] = value;
        }
    }
}
