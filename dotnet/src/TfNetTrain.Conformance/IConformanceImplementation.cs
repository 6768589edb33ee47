using System.Collections.Generic;
using TfNetTrain.Reference;

namespace TfNetTrain.Conformance
{
    /// <summary>Something that trains a conformance case and records one flat trace per step.</summary>
    public interface IConformanceImplementation
    {
        /// <summary>The name reports use ("engine", "csharp", ...).</summary>
        string Name { get; }

        /// <summary>
        /// Runs every step of the case. Throw <see cref="NotApplicableException"/> when the implementation does not
        /// run such cases by design; any other exception is reported as an error of this run.
        /// </summary>
        /// <param name="conformanceCase">The loaded, validated case.</param>
        /// <param name="jsonPath">The case's JSON file (its .npz beside it).</param>
        IReadOnlyList<IReadOnlyDictionary<string, NpyArray>> Run(ConformanceCase conformanceCase, string jsonPath);
    }
}
