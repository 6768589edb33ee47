using System.Collections.Generic;
using System.Linq;
using TfNetTrain.Reference;

namespace TfNetTrain.Conformance
{
    /// <summary>One case: every implementation's run and every comparison with the baseline.</summary>
    public sealed class CaseResult
    {
        internal CaseResult(string name, ConformanceCase conformanceCase, string error = "")
        {
            Name = name;
            Case = conformanceCase;
            Error = error ?? "";
            Runs = new List<ImplementationRun>();
            Pairs = new List<PairResult>();
        }

        /// <summary>The case's name (the file stem when it did not load).</summary>
        public string Name { get; }

        /// <summary>The loaded case, or null when it failed to load.</summary>
        public ConformanceCase Case { get; }

        /// <summary>Runs, in the order the implementations were given.</summary>
        public IList<ImplementationRun> Runs { get; }

        /// <summary>Each non-baseline implementation against the baseline.</summary>
        public IList<PairResult> Pairs { get; }

        /// <summary>Why the case failed to load; empty when it loaded.</summary>
        public string Error { get; }

        /// <summary>Loaded, and every pair passed or does not apply.</summary>
        public bool Passed => Error.Length == 0 && Pairs.All(p => p.Verdict == PairResult.Pass || p.Verdict == PairResult.NotApplicable);
    }
}
