using System.Collections.Generic;
using System.Linq;
using TfNetTrain.Reference;

namespace TfNetTrain.Conformance
{
    /// <summary>One implementation on one case. <see cref="Status"/> is "ok", "error" or "n/a".</summary>
    public sealed class ImplementationRun
    {
        /// <summary>The run completed and recorded traces.</summary>
        public const string Ok = "ok";

        /// <summary>The run failed.</summary>
        public const string Error = "error";

        /// <summary>The implementation does not run such cases.</summary>
        public const string NotApplicable = "n/a";

        internal ImplementationRun(string name, string status, IReadOnlyList<IReadOnlyDictionary<string, NpyArray>> traces,
                                   string message, double seconds)
        {
            Name = name;
            Status = status;
            Traces = traces;
            Message = message ?? "";
            Seconds = seconds;
        }

        /// <summary>The implementation's name.</summary>
        public string Name { get; }

        /// <summary>"ok", "error" or "n/a".</summary>
        public string Status { get; }

        /// <summary>One flat trace per step (null unless ok).</summary>
        public IReadOnlyList<IReadOnlyDictionary<string, NpyArray>> Traces { get; }

        /// <summary>Why the run failed or does not apply; empty when ok.</summary>
        public string Message { get; }

        /// <summary>Wall-clock time of the run.</summary>
        public double Seconds { get; }

        /// <summary>The loss of each step (steps without a "loss" key are skipped).</summary>
        public IList<double> Losses
        {
            get
            {
                if (Traces == null) return new List<double>();
                return Traces.Where(t => t.ContainsKey("loss")).Select(t => t["loss"].GetDouble(0)).ToList();
            }
        }
    }
}
