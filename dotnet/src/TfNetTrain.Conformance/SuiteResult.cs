using System.Collections.Generic;
using System.Linq;

namespace TfNetTrain.Conformance
{
    /// <summary>A suite run: every case, the implementations and the baseline they were compared with.</summary>
    public sealed class SuiteResult
    {
        internal SuiteResult(string suite, IList<string> implementations, string baseline)
        {
            Suite = suite;
            Implementations = implementations;
            Baseline = baseline;
            Cases = new List<CaseResult>();
        }

        /// <summary>The suite folder (or case file).</summary>
        public string Suite { get; }

        /// <summary>Implementation names, in the order given.</summary>
        public IList<string> Implementations { get; }

        /// <summary>The implementation every other one is compared with.</summary>
        public string Baseline { get; }

        /// <summary>One result per case, in file-name order.</summary>
        public IList<CaseResult> Cases { get; }

        /// <summary>Every case passed and at least one comparison was made.</summary>
        public bool Passed => Cases.Any(c => c.Pairs.Any(p => p.Verdict == PairResult.Pass)) && Cases.All(c => c.Passed);

        /// <summary>Counts as report.json's summary: cases, and pair verdicts (case load errors count as "error").</summary>
        public IDictionary<string, int> Summary()
        {
            var pairs = Cases.SelectMany(c => c.Pairs).ToList();
            return new Dictionary<string, int>
            {
                { "cases", Cases.Count },
                { PairResult.Pass, pairs.Count(p => p.Verdict == PairResult.Pass) },
                { PairResult.Fail, pairs.Count(p => p.Verdict == PairResult.Fail) },
                { PairResult.Error, pairs.Count(p => p.Verdict == PairResult.Error) + Cases.Count(c => c.Error.Length > 0) },
                { PairResult.NotApplicable, pairs.Count(p => p.Verdict == PairResult.NotApplicable) },
            };
        }
    }
}
