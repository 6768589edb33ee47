using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using TfNetTrain.Reference;

namespace TfNetTrain.Conformance
{
    /// <summary>
    /// Traces recorded elsewhere (another trainer, e.g. a TensorFlow.NET program, or an earlier run), read from .npz
    /// files with keys "step{i}/&lt;flat key&gt;" — the layout <see cref="ReferenceRunner.RunToNpz"/> writes. The path is
    /// either a folder holding "&lt;case name&gt;.npz" per case or one .npz used for every case.
    /// </summary>
    public sealed class TraceFileImplementation : IConformanceImplementation
    {
        private static readonly Regex StepKey = new Regex(@"^step(\d+)/(.+)$", RegexOptions.CultureInvariant);

        /// <summary>Traces named <paramref name="name"/> read from <paramref name="path"/> (folder or .npz file).</summary>
        public TraceFileImplementation(string name, string path)
        {
            if (string.IsNullOrEmpty(name)) throw new ArgumentException("name: expected a non-empty name, got an empty string", nameof(name));
            if (string.IsNullOrEmpty(path)) throw new ArgumentException("path: expected a folder or an .npz file, got an empty string", nameof(path));
            if (!Directory.Exists(path) && !File.Exists(path))
                throw new ArgumentException("path: expected an existing folder of <case>.npz files or an .npz file, got '" + path + "'", nameof(path));
            Name = name;
            TracePath = path;
        }

        /// <inheritdoc />
        public string Name { get; }

        /// <summary>The folder or file the traces come from.</summary>
        public string TracePath { get; }

        /// <inheritdoc />
        public IReadOnlyList<IReadOnlyDictionary<string, NpyArray>> Run(ConformanceCase conformanceCase, string jsonPath)
        {
            if (conformanceCase == null) throw new ArgumentNullException(nameof(conformanceCase));
            string file = Directory.Exists(TracePath) ? Path.Combine(TracePath, conformanceCase.Name + ".npz") : TracePath;
            if (!File.Exists(file))
                throw new FileNotFoundException("no traces for case '" + conformanceCase.Name + "': expected the file " + file, file);
            return Read(file);
        }

        /// <summary>Splits an .npz of "step{i}/&lt;key&gt;" entries into one flat trace per step (steps 0..n-1).</summary>
        /// <exception cref="NpyFormatException">A key without a step prefix, or steps with gaps.</exception>
        public static List<IReadOnlyDictionary<string, NpyArray>> Read(string npzPath)
        {
            var steps = new SortedDictionary<int, Dictionary<string, NpyArray>>();
            foreach (var entry in Npz.Load(npzPath))
            {
                Match match = StepKey.Match(entry.Key);
                int step;
                if (!match.Success || !int.TryParse(match.Groups[1].Value, NumberStyles.None, CultureInfo.InvariantCulture, out step))
                    throw new NpyFormatException(npzPath, "expected keys 'step<i>/<trace key>', got '" + entry.Key + "'");
                Dictionary<string, NpyArray> trace;
                if (!steps.TryGetValue(step, out trace)) steps[step] = trace = new Dictionary<string, NpyArray>();
                trace[match.Groups[2].Value] = entry.Value;
            }
            if (steps.Count > 0 && steps.Keys.Last() != steps.Count - 1)
                throw new NpyFormatException(npzPath, "expected steps 0.." + (steps.Count - 1) + ", got " + string.Join(", ", steps.Keys));
            return steps.Values.Cast<IReadOnlyDictionary<string, NpyArray>>().ToList();
        }
    }
}
