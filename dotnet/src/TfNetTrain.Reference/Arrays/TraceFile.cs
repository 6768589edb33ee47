using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;

namespace TfNetTrain.Reference
{
    /// <summary>
    /// Writes a trace file (docs/conformance.md, "Trace files"): every step's flat trace in one .npz under the keys
    /// "step{i}/&lt;flat key&gt;", steps from 0. <c>tfnet-train conformance run --impl NAME=PATH</c> compares it with
    /// every other implementation, so any C# trainer (a TensorFlow.NET program included) can take part by recording
    /// its steps with this class.
    /// </summary>
    public static class TraceFile
    {
        /// <summary>
        /// Writes <paramref name="steps"/> (step 0 first; each a flat trace such as <c>"loss"</c>,
        /// <c>"gradients/0"</c>, <c>"weights/1"</c>) to <paramref name="path"/>, whole or not at all.
        /// </summary>
        public static void Write(string path, IEnumerable<IDictionary<string, NpyArray>> steps)
        {
            if (path == null) throw new ArgumentNullException(nameof(path));
            if (steps == null) throw new ArgumentNullException(nameof(steps));
            Npz.Save(path, steps.SelectMany((trace, step) =>
            {
                if (trace == null) throw new ArgumentException("steps: expected a trace for step " + step + ", got null", nameof(steps));
                string prefix = "step" + step.ToString(CultureInfo.InvariantCulture) + "/";
                return trace.Select(entry => new KeyValuePair<string, NpyArray>(prefix + entry.Key, entry.Value));
            }));
        }
    }
}
