using System;

namespace TfNetTrain.Conformance
{
    /// <summary>An implementation does not run this kind of case by design (reported as "n/a", not as an error).</summary>
    public sealed class NotApplicableException : Exception
    {
        /// <summary>Creates the exception with the reason.</summary>
        public NotApplicableException(string message) : base(message)
        {
        }
    }
}
