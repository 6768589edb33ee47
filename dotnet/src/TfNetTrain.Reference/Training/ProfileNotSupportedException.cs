using System;

namespace TfNetTrain.Reference
{
    /// <summary>A case option that the chosen semantics profile cannot run (its original, TensorFlow.NET or Keras 3, throws for it).</summary>
    public sealed class ProfileNotSupportedException : Exception
    {
        /// <summary>Creates the exception for one option under one profile.</summary>
        /// <param name="semantics">The profile, e.g. <c>tfnet</c>.</param>
        /// <param name="option">The option, e.g. <c>optimizer.centered=true</c>.</param>
        /// <param name="reason">What the profile's original does with it.</param>
        public ProfileNotSupportedException(string semantics, string option, string reason)
            : base(string.Format("semantics '{0}' does not support {1}: {2}", semantics, option, reason))
        {
            Semantics = semantics;
            Option = option;
        }

        /// <summary>The profile name.</summary>
        public string Semantics { get; }

        /// <summary>The unsupported option.</summary>
        public string Option { get; }
    }
}
