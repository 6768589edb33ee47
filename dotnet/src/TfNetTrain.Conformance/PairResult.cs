namespace TfNetTrain.Conformance
{
    /// <summary>Implementation <see cref="A"/> compared with the baseline <see cref="B"/> on one case.</summary>
    public sealed class PairResult
    {
        /// <summary>Every common value within tolerance.</summary>
        public const string Pass = "pass";

        /// <summary>A divergence (or nothing in common to compare).</summary>
        public const string Fail = "fail";

        /// <summary>One of the two runs failed.</summary>
        public const string Error = "error";

        /// <summary>One of the two implementations does not run such cases.</summary>
        public const string NotApplicable = "n/a";

        internal PairResult(string a, string b, string verdict, TraceComparison comparison, string message)
        {
            A = a;
            B = b;
            Verdict = verdict;
            Comparison = comparison;
            Message = message ?? "";
        }

        /// <summary>The compared implementation.</summary>
        public string A { get; }

        /// <summary>The baseline.</summary>
        public string B { get; }

        /// <summary>"pass", "fail", "error" or "n/a".</summary>
        public string Verdict { get; }

        /// <summary>The comparison (null when a run did not complete).</summary>
        public TraceComparison Comparison { get; }

        /// <summary>The first divergence in words, or why there is no comparison; empty on a pass.</summary>
        public string Message { get; }
    }
}
