using System;
using System.Collections.Generic;

namespace TfNetTrain.Reference
{
    /// <summary>Runs whole conformance cases with <see cref="ReferenceTrainer"/>.</summary>
    public static class ReferenceRunner
    {
        /// <summary>Every step's flat trace, in step order.</summary>
        public static List<Dictionary<string, NpyArray>> Run(ConformanceCase conformanceCase)
        {
            var trainer = new ReferenceTrainer(conformanceCase);
            var traces = new List<Dictionary<string, NpyArray>>();
            for (int step = 0; step < conformanceCase.Steps; step++) traces.Add(trainer.Step());
            return traces;
        }

        /// <summary>
        /// Loads the case at <paramref name="caseJsonPath"/> (its .npz beside it), runs it and writes every trace to
        /// <paramref name="outNpzPath"/> as a <see cref="TraceFile"/>.
        /// </summary>
        public static void RunToNpz(string caseJsonPath, string outNpzPath)
        {
            if (outNpzPath == null) throw new ArgumentNullException(nameof(outNpzPath));
            TraceFile.Write(outNpzPath, Run(ConformanceCase.Load(caseJsonPath)));
        }
    }
}
