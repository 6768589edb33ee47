using System.Diagnostics;
using System.IO;
using Python.Runtime;
using TfNetTrain.Reference;

namespace TfNetTrain.Demo
{
    /// <summary>What the conformance check found and where it wrote its report.</summary>
    public sealed class ConformanceOutcome
    {
        internal ConformanceOutcome() { }

        /// <summary>True when every stage of every step agreed within the case's tolerance.</summary>
        public bool Passed { get; internal set; }

        /// <summary>The stage table with maximum errors and the verdict, ready to print.</summary>
        public string Table { get; internal set; }

        /// <summary>The HTML report (index.html).</summary>
        public string HtmlPath { get; internal set; }

        /// <summary>The machine-readable report (report.json).</summary>
        public string JsonPath { get; internal set; }

        /// <summary>Time the C# reference trainer took for the case.</summary>
        public double CSharpSeconds { get; internal set; }
    }

    /// <summary>
    /// Replays the first training steps with two independent implementations and compares them stage by stage:
    /// the Python engine (train_step_traced) and the pure C# reference trainer (TfNetTrain.Reference), both from
    /// the same initial weights and batches, written down once as a conformance case (JSON + npz).
    /// </summary>
    public static class ConformanceCheck
    {
        /// <summary>
        /// Records the case from <paramref name="freshModel"/> (compiled, untrained optimizer) and the first
        /// <paramref name="steps"/> batches of <paramref name="x"/>/<paramref name="y"/>, runs the C# reference on it here,
        /// then lets Python run the engine, compare and write the report into <paramref name="reportDirectory"/>.
        /// </summary>
        public static ConformanceOutcome Run(PythonRuntime python, Model freshModel, NDArray x, NDArray y, int steps,
                                             int batchSize, string reportDirectory)
        {
            string reportDir = Path.GetFullPath(reportDirectory);
            string caseDir = Path.Combine(reportDir, "case");
            string caseJson = python.Run(() =>
            {
                using (var demo = Py.Import("tfnet_train.demo"))
                using (var px = x.ToPython())
                using (var py = y.ToPython())
                using (var pySteps = steps.ToPython())
                using (var pyBatch = batchSize.ToPython())
                using (var pyDir = caseDir.ToPython())
                using (var path = demo.InvokeMethod("record_first_steps", freshModel.PythonObject, px, py, pySteps,
                                                    pyBatch, pyDir))
                {
                    return path.As<string>();
                }
            });

            string csharpTraces = Path.Combine(caseDir, "csharp_traces.npz");
            var clock = Stopwatch.StartNew();
            ReferenceRunner.RunToNpz(caseJson, csharpTraces);
            double csharpSeconds = clock.Elapsed.TotalSeconds;

            return python.Run(() =>
            {
                using (var demo = Py.Import("tfnet_train.demo"))
                using (var pyCase = caseJson.ToPython())
                using (var pyTraces = csharpTraces.ToPython())
                using (var pySeconds = csharpSeconds.ToPython())
                using (var pyReport = reportDir.ToPython())
                using (var report = demo.InvokeMethod("conformance_report", pyCase, pyTraces, pySeconds, pyReport))
                using (var passed = report.GetItem("passed"))
                using (var table = report.GetItem("table"))
                using (var html = report.GetItem("html"))
                using (var json = report.GetItem("json"))
                {
                    return new ConformanceOutcome
                    {
                        Passed = passed.IsTrue(), Table = table.As<string>(), HtmlPath = html.As<string>(),
                        JsonPath = json.As<string>(), CSharpSeconds = csharpSeconds,
                    };
                }
            });
        }
    }
}
