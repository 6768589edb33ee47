using System.Collections.Generic;
using System.Linq;

namespace TfNetTrain.Conformance
{
    /// <summary>Trace a compared with trace b (b is the baseline, the reference side of the tolerance).</summary>
    public sealed class TraceComparison
    {
        internal TraceComparison(string a, string b, Tolerance tolerance)
        {
            A = a;
            B = b;
            Tolerance = tolerance;
            Stages = new List<StageResult>();
            OnlyInA = new List<string>();
            OnlyInB = new List<string>();
        }

        /// <summary>Name of the compared implementation.</summary>
        public string A { get; }

        /// <summary>Name of the baseline.</summary>
        public string B { get; }

        /// <summary>The tolerance used.</summary>
        public Tolerance Tolerance { get; }

        /// <summary>One result per stage that had a common key, in stage order.</summary>
        public IList<StageResult> Stages { get; internal set; }

        /// <summary>The first divergence (step, then stage, then key, then flat index), or null.</summary>
        public Divergence FirstDivergence { get; internal set; }

        /// <summary>Steps present in both traces.</summary>
        public int StepsCompared { get; internal set; }

        /// <summary>Keys of step 0 that only trace a has (not compared).</summary>
        public IList<string> OnlyInA { get; internal set; }

        /// <summary>Keys of step 0 that only trace b has (not compared).</summary>
        public IList<string> OnlyInB { get; internal set; }

        /// <summary>Elements compared over all stages.</summary>
        public long Compared => Stages.Sum(s => s.Compared);

        /// <summary>No divergence and at least one value compared.</summary>
        public bool Passed => FirstDivergence == null && Compared > 0;

        /// <summary>The result of one stage, or null when no key of that stage was compared.</summary>
        public StageResult Stage(string name)
        {
            return Stages.FirstOrDefault(s => s.Stage == name);
        }
    }
}
