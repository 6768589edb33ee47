using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using TfNetTrain.Reference;

namespace TfNetTrain.Conformance
{
    /// <summary>
    /// Runs cases through several implementations and compares each with a baseline, as
    /// <c>tfnet-train conformance run</c> does: every failure becomes a reported error, none stops the suite.
    /// </summary>
    public sealed class SuiteRunner
    {
        /// <summary>Preferred baselines, most independent first (the Python runner's order).</summary>
        public static readonly IReadOnlyList<string> BaselineOrder = new[] { "numpy", "keras", "csharp", "engine" };

        private readonly List<IConformanceImplementation> _implementations;

        /// <summary>A runner for at least two implementations with distinct names.</summary>
        /// <param name="implementations">The implementations, in report order.</param>
        /// <param name="baseline">The one the others are compared with; null picks by <see cref="BaselineOrder"/>.</param>
        public SuiteRunner(IEnumerable<IConformanceImplementation> implementations, string baseline = null)
        {
            if (implementations == null) throw new ArgumentNullException(nameof(implementations));
            _implementations = implementations.ToList();
            if (_implementations.Any(i => i == null)) throw new ArgumentException("implementations: expected no null entries", nameof(implementations));
            var names = _implementations.Select(i => i.Name).ToList();
            if (names.Count < 2)
                throw new ArgumentException("implementations: need at least two to compare, got [" + string.Join(", ", names) + "]", nameof(implementations));
            string repeated = names.GroupBy(n => n).Where(g => g.Count() > 1).Select(g => g.Key).FirstOrDefault();
            if (repeated != null)
                throw new ArgumentException("implementations: expected distinct names, got '" + repeated + "' twice", nameof(implementations));
            Baseline = ChooseBaseline(names, baseline);
        }

        /// <summary>The baseline's name.</summary>
        public string Baseline { get; }

        /// <summary>
        /// The project's tolerance for cases that state none; asked only when such a case comes. By default it is read
        /// from Python's tfnet_train.tolerances in the running <see cref="PythonRuntime"/>.
        /// </summary>
        public Func<Tolerance> DefaultTolerance { get; set; } = () => CaseTolerance.FromPython(PythonRuntime.Current);

        /// <summary>The implementation names, in order.</summary>
        public IList<string> Names => _implementations.Select(i => i.Name).ToList();

        /// <summary><paramref name="baseline"/> when it is one of <paramref name="names"/>; null picks by <see cref="BaselineOrder"/>, else the first.</summary>
        public static string ChooseBaseline(IList<string> names, string baseline = null)
        {
            if (names == null || names.Count == 0) throw new ArgumentException("names: expected at least one implementation", nameof(names));
            if (baseline != null)
            {
                if (!names.Contains(baseline))
                    throw new ArgumentException("baseline must be one of the implementations [" + string.Join(", ", names) + "], got '" + baseline + "'", nameof(baseline));
                return baseline;
            }
            return BaselineOrder.FirstOrDefault(names.Contains) ?? names[0];
        }

        /// <summary>Runs every case file of <paramref name="casePaths"/>; <paramref name="suite"/> names the suite in the report.</summary>
        public SuiteResult RunSuite(string suite, IEnumerable<string> casePaths, Action<CaseResult> progress = null)
        {
            if (casePaths == null) throw new ArgumentNullException(nameof(casePaths));
            var result = new SuiteResult(suite, Names, Baseline);
            foreach (string path in casePaths)
            {
                CaseResult caseResult = RunCase(path);
                result.Cases.Add(caseResult);
                progress?.Invoke(caseResult);
            }
            return result;
        }

        /// <summary>Loads one case file, runs it with every implementation and compares each with the baseline.</summary>
        public CaseResult RunCase(string jsonPath)
        {
            if (jsonPath == null) throw new ArgumentNullException(nameof(jsonPath));
            ConformanceCase loaded;
            try
            {
                loaded = ConformanceCase.Load(jsonPath);
            }
            catch (Exception e) when (e is CaseFormatException || e is NpyFormatException ||
                                      e is IOException || e is UnauthorizedAccessException || e is ArgumentException)
            {
                return new CaseResult(Path.GetFileNameWithoutExtension(jsonPath), null, "case file " + jsonPath + ": " + ErrorText.Summary(e));
            }
            var result = new CaseResult(loaded.Name, loaded);
            foreach (var implementation in _implementations) result.Runs.Add(RunImplementation(implementation, loaded, jsonPath));
            ImplementationRun baseline = result.Runs.First(r => r.Name == Baseline);
            Tolerance tolerance = null;
            foreach (var run in result.Runs)
            {
                if (run.Name == Baseline) continue;
                if (run.Status == ImplementationRun.Ok && baseline.Status == ImplementationRun.Ok)
                    tolerance = tolerance ?? CaseTolerance.Of(loaded, DefaultTolerance);
                result.Pairs.Add(ComparePair(run, baseline, tolerance));
            }
            return result;
        }

        /// <summary>Runs one implementation, turning any exception into an "error" (or "n/a") record.</summary>
        public static ImplementationRun RunImplementation(IConformanceImplementation implementation, ConformanceCase conformanceCase, string jsonPath)
        {
            if (implementation == null) throw new ArgumentNullException(nameof(implementation));
            var clock = Stopwatch.StartNew();
            try
            {
                var traces = implementation.Run(conformanceCase, jsonPath);
                if (traces == null) throw new InvalidOperationException(implementation.Name + " returned no traces");
                return new ImplementationRun(implementation.Name, ImplementationRun.Ok, traces, "", clock.Elapsed.TotalSeconds);
            }
            catch (NotApplicableException e)
            {
                return new ImplementationRun(implementation.Name, ImplementationRun.NotApplicable, null, e.Message, clock.Elapsed.TotalSeconds);
            }
            catch (Exception e)
            {
                return new ImplementationRun(implementation.Name, ImplementationRun.Error, null, ErrorText.Summary(e), clock.Elapsed.TotalSeconds);
            }
        }

        /// <summary>
        /// The verdict for run <paramref name="a"/> against the baseline run <paramref name="b"/> (the tolerance is
        /// needed only when both runs completed).
        /// </summary>
        public static PairResult ComparePair(ImplementationRun a, ImplementationRun b, Tolerance tolerance)
        {
            if (a == null) throw new ArgumentNullException(nameof(a));
            if (b == null) throw new ArgumentNullException(nameof(b));
            foreach (var run in new[] { a, b })
            {
                if (run.Status == ImplementationRun.Error) return new PairResult(a.Name, b.Name, PairResult.Error, null, run.Name + ": " + run.Message);
            }
            foreach (var run in new[] { a, b })
            {
                if (run.Status == ImplementationRun.NotApplicable)
                    return new PairResult(a.Name, b.Name, PairResult.NotApplicable, null, run.Name + ": " + run.Message);
            }
            TraceComparison comparison = TraceComparer.Compare(a.Traces, b.Traces, tolerance, a.Name, b.Name);
            string message = "";
            if (comparison.FirstDivergence != null) message = comparison.FirstDivergence.Describe(a.Name, b.Name);
            else if (!comparison.Passed) message = "no trace key in common: nothing was compared";
            return new PairResult(a.Name, b.Name, comparison.Passed ? PairResult.Pass : PairResult.Fail, comparison, message);
        }
    }
}
