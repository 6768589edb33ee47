using System;
using System.Collections.Generic;

namespace TfNetTrain.Conformance
{
    /// <summary>Turns the command line's implementation specs into implementations.</summary>
    public static class ImplementationFactory
    {
        /// <summary>Implementations the Python side runs by name (tfnet_train.conformance.implementations).</summary>
        public static readonly IReadOnlyList<string> PythonNames = new[] { "numpy", "keras" };

        /// <summary>
        /// "engine" (the Python engine through the bridge), "csharp" (the C# reference, in process), "numpy" or "keras"
        /// (run by Python's conformance package), or "NAME=PATH" (recorded traces named NAME, see
        /// <see cref="TraceFileImplementation"/>). <paramref name="python"/> starts Python when first needed.
        /// </summary>
        /// <exception cref="ArgumentException">An unknown name or a trace path that does not exist.</exception>
        public static IConformanceImplementation Create(string spec, PythonSession python)
        {
            if (spec == null) throw new ArgumentNullException(nameof(spec));
            if (python == null) throw new ArgumentNullException(nameof(python));
            int eq = spec.IndexOf('=');
            if (eq >= 0)
            {
                string name = spec.Substring(0, eq).Trim();
                if (name.Length == 0)
                    throw new ArgumentException("implementation: expected NAME=PATH with a non-empty NAME, got '" + spec + "'", nameof(spec));
                return new TraceFileImplementation(name, spec.Substring(eq + 1));
            }
            if (spec == EngineImplementation.DefaultName) return new EngineImplementation(() => python.Start());
            if (spec == CSharpReferenceImplementation.DefaultName) return new CSharpReferenceImplementation();
            foreach (string name in PythonNames)
            {
                if (spec == name) return new PythonRunnerImplementation(name, () => python.Start());
            }
            throw new ArgumentException("implementation must be one of engine, csharp, numpy, keras or NAME=PATH (recorded traces), got '" +
                                        spec + "'", nameof(spec));
        }
    }
}
