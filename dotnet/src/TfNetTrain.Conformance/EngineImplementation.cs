using System;
using System.Collections.Generic;
using TfNetTrain.Reference;

namespace TfNetTrain.Conformance
{
    /// <summary>"engine": the Python engine driven through the bridge (<see cref="EngineCaseRunner"/>).</summary>
    public sealed class EngineImplementation : IConformanceImplementation
    {
        /// <summary>The name reports use.</summary>
        public const string DefaultName = "engine";

        private readonly Func<PythonRuntime> _runtime;

        /// <summary>An engine implementation; <paramref name="runtime"/> gives the running Python (started on first use).</summary>
        public EngineImplementation(Func<PythonRuntime> runtime)
        {
            _runtime = runtime ?? throw new ArgumentNullException(nameof(runtime));
        }

        /// <inheritdoc />
        public string Name => DefaultName;

        /// <inheritdoc />
        public IReadOnlyList<IReadOnlyDictionary<string, NpyArray>> Run(ConformanceCase conformanceCase, string jsonPath)
        {
            _runtime();
            return EngineCaseRunner.Run(conformanceCase);
        }
    }
}
