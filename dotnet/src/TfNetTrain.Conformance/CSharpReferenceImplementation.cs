using System.Collections.Generic;
using TfNetTrain.Reference;

namespace TfNetTrain.Conformance
{
    /// <summary>"csharp": the pure C# reference trainer (<see cref="ReferenceRunner"/>), in this process, without Python.</summary>
    public sealed class CSharpReferenceImplementation : IConformanceImplementation
    {
        /// <summary>The name reports use.</summary>
        public const string DefaultName = "csharp";

        /// <inheritdoc />
        public string Name => DefaultName;

        /// <inheritdoc />
        public IReadOnlyList<IReadOnlyDictionary<string, NpyArray>> Run(ConformanceCase conformanceCase, string jsonPath)
        {
            return ReferenceRunner.Run(conformanceCase);
        }
    }
}
