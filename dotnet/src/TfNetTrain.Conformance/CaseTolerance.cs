using System;
using Python.Runtime;
using TfNetTrain.Reference;

namespace TfNetTrain.Conformance
{
    /// <summary>The tolerance a case is compared with: its own, else the project's float32 tolerance.</summary>
    public static class CaseTolerance
    {
        /// <summary>
        /// The case's rtol/atol; a part the case leaves out comes from <paramref name="projectDefault"/> (asked only
        /// then).
        /// </summary>
        public static Tolerance Of(ConformanceCase conformanceCase, Func<Tolerance> projectDefault)
        {
            if (conformanceCase == null) throw new ArgumentNullException(nameof(conformanceCase));
            if (conformanceCase.Rtol.HasValue && conformanceCase.Atol.HasValue)
                return new Tolerance(conformanceCase.Rtol.Value, conformanceCase.Atol.Value);
            if (projectDefault == null) throw new ArgumentNullException(nameof(projectDefault));
            Tolerance fallback = projectDefault();
            return new Tolerance(conformanceCase.Rtol ?? fallback.Rtol, conformanceCase.Atol ?? fallback.Atol);
        }

        /// <summary>The project's float32 tolerance, read from Python's tfnet_train.tolerances (RTOL, ATOL).</summary>
        /// <exception cref="InvalidOperationException">No Python runtime is running.</exception>
        public static Tolerance FromPython(PythonRuntime runtime)
        {
            if (runtime == null)
                throw new InvalidOperationException("the case states no tolerance and no Python runtime is running to read the " +
                                                    "project's default from tfnet_train.tolerances: start one with PythonRuntime.Start()");
            return runtime.Run(() =>
            {
                using (var module = Py.Import("tfnet_train.tolerances"))
                using (var rtol = module.GetAttr("RTOL"))
                using (var atol = module.GetAttr("ATOL"))
                {
                    return new Tolerance(rtol.As<double>(), atol.As<double>());
                }
            });
        }
    }
}
