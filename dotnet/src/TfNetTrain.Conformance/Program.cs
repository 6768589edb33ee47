using System;
using System.Collections.Generic;
using System.Linq;
using TfNetTrain.Reference;

namespace TfNetTrain.Conformance
{
    /// <summary>
    /// <c>mono TfNetTrain.Conformance.exe run|list</c>: the conformance suite from the C# side, as
    /// <c>tfnet-train conformance run|list</c> runs it from Python. Exit status: 0 when everything passed, 1 when a
    /// comparison failed or errored, 2 for bad arguments.
    /// </summary>
    public static class Program
    {
        private const string Usage =
            "usage: TfNetTrain.Conformance.exe run [--suite default|PATH] [--impl engine,csharp] [--baseline NAME]\n" +
            "                                      [--report DIR] [--case NAME]\n" +
            "       TfNetTrain.Conformance.exe list [--suite default|PATH]\n" +
            "\n" +
            "run    runs every case of the suite with each implementation and compares each with the baseline\n" +
            "       --suite    'default' (the packaged suite, located through Python), a folder of cases or one .json\n" +
            "       --impl     comma-separated: engine (Python engine through the bridge), csharp (C# reference, in\n" +
            "                  process), numpy, keras (Python's implementations), NAME=PATH (recorded traces: a folder of\n" +
            "                  <case>.npz or one .npz with keys step<i>/<trace key>); default engine,csharp\n" +
            "       --baseline the implementation the others are compared with (default: numpy, keras, csharp, engine,\n" +
            "                  the first of these listed, else the first given)\n" +
            "       --report   folder for report.json (schema tfnet-train/conformance-report@1), and index.html with\n" +
            "                  plots/*.png drawn by Python (tfnet-train conformance render) when Python starts\n" +
            "       --case     only cases whose name matches (glob patterns allowed)\n" +
            "list   lists the cases of a suite: name, semantics, description\n" +
            "\n" +
            "exit status: 0 all passed, 1 a comparison failed or errored, 2 bad arguments";

        /// <summary>Runs a command; returns the exit status.</summary>
        public static int Main(string[] args)
        {
            if (args.Length == 0)
            {
                Console.Error.WriteLine(Usage);
                return 2;
            }
            if (args[0] == "help" || args[0] == "--help" || args[0] == "-h")
            {
                Console.WriteLine(Usage);
                return 0;
            }
            using (var python = new PythonSession())
            {
                try
                {
                    var rest = args.Skip(1).ToList();
                    switch (args[0])
                    {
                        case "run": return Run(RunOptions.Parse(rest), python);
                        case "list": return List(ListSuite(rest), python);
                        default: throw new ArgumentException("command must be run or list, got '" + args[0] + "'");
                    }
                }
                catch (ArgumentException e)
                {
                    // The message names the argument; Mono's "Parameter name:" line would only repeat it.
                    Console.Error.WriteLine("TfNetTrain.Conformance: error: " + e.Message.Split('\n')[0].TrimEnd());
                    return 2;
                }
                catch (Exception e)
                {
                    Console.Error.WriteLine("TfNetTrain.Conformance: " + ErrorText.Summary(e));
                    return 1;
                }
                finally
                {
                    Console.Out.Flush();
                }
            }
        }

        private static int Run(RunOptions options, PythonSession python)
        {
            var implementations = options.Implementations.Select(spec => ImplementationFactory.Create(spec, python)).ToList();
            var runner = new SuiteRunner(implementations, options.Baseline)
            {
                DefaultTolerance = () => CaseTolerance.FromPython(python.Start()),
            };
            string suite = ResolveSuite(options.Suite, python);
            List<string> paths = SuiteFiles.CasePaths(suite, options.CasePattern);
            SuiteResult result = runner.RunSuite(suite, paths);
            Console.WriteLine(ConformanceReport.FormatTable(result));
            if (options.ReportDirectory != null) WriteReport(result, options.ReportDirectory, python);
            return result.Passed ? 0 : 1;
        }

        private static void WriteReport(SuiteResult result, string directory, PythonSession python)
        {
            string json = ConformanceReport.Write(result, directory);
            string html = HtmlReport.TryRender(directory, python.Start, out string reason);
            Console.WriteLine(html != null ? "report: " + json + " and " + html
                                           : "report: " + json + " (only report.json was written: " + reason + ")");
        }

        private static string ListSuite(IList<string> args)
        {
            if (args.Count == 0) return SuiteFiles.DefaultSuite;
            if (args.Count == 2 && args[0] == "--suite") return args[1];
            if (args.Count == 1 && args[0].StartsWith("--suite=", StringComparison.Ordinal)) return args[0].Substring("--suite=".Length);
            throw new ArgumentException("list: expected only --suite default|PATH, got '" + string.Join(" ", args) + "'");
        }

        private static int List(string suiteOption, PythonSession python)
        {
            foreach (string path in SuiteFiles.CasePaths(ResolveSuite(suiteOption, python)))
            {
                ConformanceCase c = ConformanceCase.Load(path);
                Console.WriteLine("{0} {1} {2}", c.Name.PadRight(48), CaseNames.Of(c.Semantics).PadRight(6), c.Description ?? "");
            }
            return 0;
        }

        private static string ResolveSuite(string suite, PythonSession python)
        {
            return suite == SuiteFiles.DefaultSuite ? SuiteFiles.DefaultSuiteFolder(python.Start()) : suite;
        }
    }
}
