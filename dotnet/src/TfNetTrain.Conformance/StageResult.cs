namespace TfNetTrain.Conformance
{
    /// <summary>All values of one stage over all compared steps: how many, the worst errors, and the verdict.</summary>
    public sealed class StageResult
    {
        internal StageResult(string stage)
        {
            Stage = stage;
            Passed = true;
        }

        /// <summary>The stage name, e.g. "gradients".</summary>
        public string Stage { get; }

        /// <summary>Elements compared.</summary>
        public long Compared { get; internal set; }

        /// <summary>Largest |a - b|.</summary>
        public double MaxAbs { get; internal set; }

        /// <summary>Largest |a - b| / |b| over elements with b non-zero.</summary>
        public double MaxRel { get; internal set; }

        /// <summary>False when any element was out of tolerance or any shape differed.</summary>
        public bool Passed { get; internal set; }
    }
}
