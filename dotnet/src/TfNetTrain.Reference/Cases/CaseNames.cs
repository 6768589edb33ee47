using System;
using System.Collections.Generic;
using System.Linq;

namespace TfNetTrain.Reference
{
    /// <summary>The spellings the case schema uses for its enumerations.</summary>
    public static class CaseNames
    {
        private static readonly Dictionary<string, Semantics> SemanticsNames = new Dictionary<string, Semantics>
        {
            { "keras", Semantics.Keras }, { "tfnet", Semantics.TfNet },
        };

        private static readonly Dictionary<string, Activation> ActivationNames = new Dictionary<string, Activation>
        {
            { "linear", Activation.Linear }, { "relu", Activation.Relu }, { "tanh", Activation.Tanh },
            { "sigmoid", Activation.Sigmoid }, { "softmax", Activation.Softmax },
        };

        private static readonly Dictionary<string, LossKind> LossNames = new Dictionary<string, LossKind>
        {
            { "mse", LossKind.MeanSquaredError }, { "mae", LossKind.MeanAbsoluteError },
            { "binary_crossentropy", LossKind.BinaryCrossentropy },
            { "categorical_crossentropy", LossKind.CategoricalCrossentropy },
            { "sparse_categorical_crossentropy", LossKind.SparseCategoricalCrossentropy },
        };

        private static readonly Dictionary<string, OptimizerKind> OptimizerNames = new Dictionary<string, OptimizerKind>
        {
            { "sgd", OptimizerKind.Sgd }, { "adam", OptimizerKind.Adam }, { "adamw", OptimizerKind.AdamW },
            { "rmsprop", OptimizerKind.RmsProp },
        };

        /// <summary>Metric strings a case may list.</summary>
        public static readonly IReadOnlyList<string> MetricNames = new[] { "accuracy", "acc", "mae", "mse", "mape" };

        /// <summary>Names of the semantics profiles.</summary>
        public static IEnumerable<string> AllSemantics { get { return SemanticsNames.Keys; } }

        /// <summary>Names of the activations.</summary>
        public static IEnumerable<string> AllActivations { get { return ActivationNames.Keys; } }

        /// <summary>Names of the losses.</summary>
        public static IEnumerable<string> AllLosses { get { return LossNames.Keys; } }

        /// <summary>Names of the optimizers.</summary>
        public static IEnumerable<string> AllOptimizers { get { return OptimizerNames.Keys; } }

        /// <summary>The schema name of a profile.</summary>
        public static string Of(Semantics value) { return NameOf(SemanticsNames, value); }

        /// <summary>The schema name of an activation.</summary>
        public static string Of(Activation value) { return NameOf(ActivationNames, value); }

        /// <summary>The schema name of a loss.</summary>
        public static string Of(LossKind value) { return NameOf(LossNames, value); }

        /// <summary>The schema name of an optimizer.</summary>
        public static string Of(OptimizerKind value) { return NameOf(OptimizerNames, value); }

        internal static bool TryParse(string name, out Semantics value) { return SemanticsNames.TryGetValue(name, out value); }

        internal static bool TryParse(string name, out Activation value) { return ActivationNames.TryGetValue(name, out value); }

        internal static bool TryParse(string name, out LossKind value) { return LossNames.TryGetValue(name, out value); }

        internal static bool TryParse(string name, out OptimizerKind value) { return OptimizerNames.TryGetValue(name, out value); }

        private static string NameOf<T>(Dictionary<string, T> names, T value)
        {
            foreach (var pair in names)
            {
                if (EqualityComparer<T>.Default.Equals(pair.Value, value)) return pair.Key;
            }
            throw new ArgumentOutOfRangeException(nameof(value), value, "no schema name");
        }

        internal static string OneOf(IEnumerable<string> names)
        {
            return "one of " + string.Join(", ", names.Select(n => "\"" + n + "\""));
        }
    }
}
