using System;

namespace TfNetTrain.Reference
{
    /// <summary>A conformance case whose JSON or arrays do not follow the case schema.</summary>
    public sealed class CaseFormatException : Exception
    {
        /// <summary>Creates the exception for one field.</summary>
        /// <param name="field">The field's path, e.g. <c>optimizer.learning_rate</c> or the array key <c>weights/1</c>.</param>
        /// <param name="expected">What the schema requires.</param>
        /// <param name="actual">What the case holds (or "missing").</param>
        public CaseFormatException(string field, string expected, string actual)
            : base(string.Format("case field '{0}': expected {1}, got {2}", field, expected, actual))
        {
            Field = field;
            Expected = expected;
            Actual = actual;
        }

        /// <summary>The field's path, e.g. <c>model.layers[0].units</c>.</summary>
        public string Field { get; }

        /// <summary>What the schema requires.</summary>
        public string Expected { get; }

        /// <summary>What the case holds.</summary>
        public string Actual { get; }
    }
}
