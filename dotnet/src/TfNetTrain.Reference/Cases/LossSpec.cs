using System;
using System.Collections.Generic;

namespace TfNetTrain.Reference
{
    /// <summary>The case's loss: a loss object of <see cref="Kind"/>, or a string passed to compile (<see cref="AsString"/>).</summary>
    public sealed class LossSpec
    {
        // Keras 3 identifiers (keras.losses.get) that name MSE or MAE.
        private static readonly Dictionary<string, LossKind> KerasLossStrings = new Dictionary<string, LossKind>(StringComparer.Ordinal)
        {
            { "mse", LossKind.MeanSquaredError }, { "MSE", LossKind.MeanSquaredError }, { "mean_squared_error", LossKind.MeanSquaredError },
            { "mae", LossKind.MeanAbsoluteError }, { "MAE", LossKind.MeanAbsoluteError }, { "mean_absolute_error", LossKind.MeanAbsoluteError },
        };

        /// <summary>Creates a loss spec for a loss object.</summary>
        public LossSpec(LossKind kind, bool fromLogits = false)
        {
            Kind = kind;
            FromLogits = fromLogits;
            Name = CaseNames.Of(kind);
        }

        private LossSpec(string name)
        {
            Name = name;
            AsString = true;
            Kind = name == "mae" ? LossKind.MeanAbsoluteError : LossKind.MeanSquaredError;
        }

        /// <summary>A loss compiled from the string <paramref name="name"/> (null: <c>loss=None</c>).</summary>
        public static LossSpec FromString(string name)
        {
            return new LossSpec(name);
        }

        /// <summary>
        /// Which loss. For a string loss, the one TensorFlow.NET's string compile picks (MAE for exactly "mae", else MSE);
        /// <see cref="Resolve"/> gives each profile's.
        /// </summary>
        public LossKind Kind { get; }

        /// <summary>For the cross-entropies: whether the model output is logits.</summary>
        public bool FromLogits { get; }

        /// <summary>The loss name; for a string loss the string as given (null for <c>loss=None</c>).</summary>
        public string Name { get; }

        /// <summary>True when the case compiles with the string <see cref="Name"/> instead of a loss object.</summary>
        public bool AsString { get; }

        /// <summary>
        /// Whether a string is a Keras 3 name of MSE or MAE ("mse", "MSE", "mean_squared_error", "mae", "MAE",
        /// "mean_absolute_error"), and which.
        /// </summary>
        public static bool TryKerasLossString(string name, out LossKind kind)
        {
            kind = LossKind.MeanSquaredError;
            return name != null && KerasLossStrings.TryGetValue(name, out kind);
        }

        /// <summary>
        /// The loss object a profile computes. A string loss under tfnet is MSE unless it is exactly "mse" or "mae"
        /// (null too); under keras it is the loss Keras 3 names so.
        /// </summary>
        /// <exception cref="ProfileNotSupportedException">Under keras, for null or a string Keras 3 does not know (Keras 3 raises).</exception>
        public LossSpec Resolve(Semantics semantics)
        {
            if (!AsString) return this;
            if (semantics == Semantics.TfNet) return new LossSpec(Kind);
            if (Name == null)
                throw new ProfileNotSupportedException("keras", "loss=None", "there is no loss to compute (Keras 3 raises a ValueError at the first step)");
            LossKind kind;
            if (!TryKerasLossString(Name, out kind))
                throw new ProfileNotSupportedException("keras", "loss=\"" + Name + "\"", "Keras 3 cannot interpret the loss identifier and raises a ValueError");
            return new LossSpec(kind);
        }
    }
}
