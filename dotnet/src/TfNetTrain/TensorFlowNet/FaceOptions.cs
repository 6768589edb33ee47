using System;

namespace TfNetTrain.TensorFlowNet
{
    /// <summary>Process-wide choices of the TF.NET face that a TensorFlow.NET program has no words for.</summary>
    public static class FaceOptions
    {
        /// <summary>The environment variable <see cref="Semantics"/> starts from.</summary>
        public const string SemanticsVariable = "TFNET_TRAIN_SEMANTICS";

        private static string _semantics;

        /// <summary>
        /// The semantics of every face <c>compile</c> that names none: "keras" (Keras 3's numbers, the default) or
        /// "tfnet" (TensorFlow.NET's, docs/semantics.md). Until set, it is the value of TFNET_TRAIN_SEMANTICS, so an
        /// unchanged TensorFlow.NET program can run under TF.NET's numbers.
        /// </summary>
        public static string Semantics
        {
            get { return _semantics ?? Checked(Environment.GetEnvironmentVariable(SemanticsVariable) ?? "keras", SemanticsVariable); }
            set { _semantics = value == null ? null : Checked(value, nameof(Semantics)); }
        }

        /// <summary><paramref name="semantics"/>, or <see cref="Semantics"/> when it is null.</summary>
        internal static string Resolve(string semantics) => semantics ?? Semantics;

        private static string Checked(string value, string name)
        {
            if (value == "keras" || value == "tfnet") return value;
            throw new TfNetTrainArgumentException(name, $"semantics must be \"keras\" or \"tfnet\", got \"{value}\"");
        }
    }
}
