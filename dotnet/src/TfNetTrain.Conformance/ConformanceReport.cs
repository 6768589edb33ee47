using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using TfNetTrain.Reference;

namespace TfNetTrain.Conformance
{
    /// <summary>
    /// Reports of a suite run: the terminal table and report.json, schema <c>tfnet-train/conformance-report@1</c>
    /// as the Python side writes it (tfnet_train/conformance/report.py). Every case's "plots" is written null;
    /// <see cref="HtmlReport"/> then draws the plots and index.html and fills them in.
    /// </summary>
    public static class ConformanceReport
    {
        /// <summary>The report schema identifier.</summary>
        public const string Schema = "tfnet-train/conformance-report@1";

        /// <summary>The report.json document.</summary>
        public static JsonObject ToJson(SuiteResult result)
        {
            if (result == null) throw new ArgumentNullException(nameof(result));
            var summary = result.Summary();
            return new JsonObject
            {
                { "schema", Schema },
                { "suite", result.Suite },
                { "implementations", result.Implementations.ToList() },
                { "baseline", result.Baseline },
                { "passed", result.Passed },
                { "tolerance_rule", Tolerance.Rule },
                { "summary", new JsonObject
                    {
                        { "cases", summary["cases"] }, { "pass", summary[PairResult.Pass] }, { "fail", summary[PairResult.Fail] },
                        { "error", summary[PairResult.Error] }, { "n/a", summary[PairResult.NotApplicable] },
                    }
                },
                { "cases", result.Cases.Select(CaseJson).ToList() },
            };
        }

        /// <summary>Writes <c>report.json</c> into <paramref name="directory"/> (created when missing); returns its path.</summary>
        public static string Write(SuiteResult result, string directory)
        {
            if (directory == null) throw new ArgumentNullException(nameof(directory));
            Directory.CreateDirectory(directory);
            string path = Path.Combine(directory, "report.json");
            JsonWriter.WriteFile(path, ToJson(result));
            return path;
        }

        /// <summary>Case x pair x verdict with the first divergence (or the reason) per row, and a summary line.</summary>
        public static string FormatTable(SuiteResult result)
        {
            if (result == null) throw new ArgumentNullException(nameof(result));
            var rows = new List<string[]> { new[] { "case", "pair", "verdict", "first divergence / note" } };
            foreach (CaseResult c in result.Cases)
            {
                if (c.Error.Length > 0) rows.Add(new[] { c.Name, "-", "ERROR", c.Error });
                foreach (PairResult p in c.Pairs) rows.Add(new[] { c.Name, p.A + " vs " + p.B, p.Verdict.ToUpperInvariant(), p.Message });
            }
            var widths = Enumerable.Range(0, 3).Select(i => rows.Max(r => r[i].Length)).ToArray();
            var sb = new StringBuilder();
            for (int i = 0; i < rows.Count; i++)
            {
                string[] row = rows[i];
                sb.Append(string.Join("  ", Enumerable.Range(0, 3).Select(k => row[k].PadRight(widths[k])))).Append("  ").Append(row[3]).Append('\n');
                if (i == 0)
                    sb.Append(string.Join("  ", widths.Select(w => new string('-', w)))).Append("  ").Append(new string('-', rows[0][3].Length)).Append('\n');
            }
            var counts = result.Summary();
            sb.Append('\n');
            sb.AppendFormat("{0} cases, baseline {1}: {2} pass, {3} fail, {4} error, {5} n/a -> {6}", counts["cases"], result.Baseline,
                            counts[PairResult.Pass], counts[PairResult.Fail], counts[PairResult.Error],
                            counts[PairResult.NotApplicable], result.Passed ? "PASSED" : "FAILED");
            return sb.ToString();
        }

        private static JsonObject CaseJson(CaseResult result)
        {
            ConformanceCase c = result.Case;
            return new JsonObject
            {
                { "name", result.Name },
                { "description", c == null ? "" : c.Description ?? "" },
                { "semantics", c == null ? null : CaseNames.Of(c.Semantics) },
                { "steps", c == null ? (object)null : c.Steps },
                { "tolerance", c == null ? null : ToleranceJson(result) },
                { "passed", result.Passed },
                { "error", result.Error.Length == 0 ? null : result.Error },
                { "runs", result.Runs.Select(RunJson).ToList() },
                { "pairs", result.Pairs.Select(PairJson).ToList() },
                { "plots", null },
            };
        }

        private static JsonObject ToleranceJson(CaseResult result)
        {
            // The tolerance a comparison used; a case whose pairs made none shows what it states itself.
            Tolerance used = result.Pairs.Where(p => p.Comparison != null).Select(p => p.Comparison.Tolerance).FirstOrDefault();
            return new JsonObject
            {
                { "rtol", used != null ? used.Rtol : (object)result.Case.Rtol },
                { "atol", used != null ? used.Atol : (object)result.Case.Atol },
            };
        }

        private static JsonObject RunJson(ImplementationRun run)
        {
            return new JsonObject
            {
                { "implementation", run.Name },
                { "status", run.Status },
                { "message", run.Message },
                { "seconds", Math.Round(run.Seconds, 4) },
                { "losses", run.Losses },
            };
        }

        private static JsonObject PairJson(PairResult pair)
        {
            TraceComparison c = pair.Comparison;
            return new JsonObject
            {
                { "a", pair.A },
                { "b", pair.B },
                { "verdict", pair.Verdict },
                { "message", pair.Message },
                { "steps_compared", c == null ? 0 : c.StepsCompared },
                { "values_compared", c == null ? 0L : c.Compared },
                { "stages", c == null ? new List<JsonObject>() : c.Stages.Select(StageJson).ToList() },
                { "first_divergence", c == null || c.FirstDivergence == null ? null : DivergenceJson(c.FirstDivergence) },
                { "only_in_a", c == null ? new List<string>() : c.OnlyInA.ToList() },
                { "only_in_b", c == null ? new List<string>() : c.OnlyInB.ToList() },
            };
        }

        private static JsonObject StageJson(StageResult stage)
        {
            return new JsonObject
            {
                { "stage", stage.Stage },
                { "compared", stage.Compared },
                { "max_abs", stage.MaxAbs },
                { "max_rel", stage.MaxRel },
                { "passed", stage.Passed },
            };
        }

        private static JsonObject DivergenceJson(Divergence d)
        {
            return new JsonObject
            {
                { "step", d.Step },
                { "stage", d.Stage },
                { "key", d.Key },
                { "reason", d.Reason },
                { "index", d.Index },
                { "position", d.Position == null ? null : d.Position.ToList() },
                { "a", d.A },
                { "b", d.B },
                { "abs_error", d.AbsError },
                { "allowed", d.Allowed },
                { "detail", d.Detail },
            };
        }
    }
}
