using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Reflection;

namespace TfNetTrain.TestRunner
{
    /// <summary>
    /// Runs the NUnit 2.6 tests of one assembly where nunit-console cannot load (CoreCLR): a reflection runner over
    /// the attributes the project's suites use; <c>--fixtures</c> runs only the fixtures with those full names. Prints one line per test and the closing line "N passed, N failed";
    /// the exit code is 0 only when at least one test ran and none failed.
    /// </summary>
    public static class Program
    {
        private const string Usage = "usage: TfNetTrain.TestRunner ASSEMBLY [--where TEXT] [--fixtures NAME,NAME...] [--list]";

        public static int Main(string[] args)
        {
            string assemblyPath = null, where = null;
            HashSet<string> fixtures = null;
            bool list = false;
            for (int i = 0; i < args.Length; i++)
            {
                if (args[i] == "--where" && i + 1 < args.Length) where = args[++i];
                else if (args[i] == "--fixtures" && i + 1 < args.Length)
                    fixtures = new HashSet<string>(args[++i].Split(new[] { ',' }, StringSplitOptions.RemoveEmptyEntries), StringComparer.Ordinal);
                else if (args[i] == "--list") list = true;
                else if (assemblyPath == null && !args[i].StartsWith("--", StringComparison.Ordinal)) assemblyPath = args[i];
                else return Fail($"unexpected argument '{args[i]}'\n{Usage}");
            }
            if (assemblyPath == null) return Fail(Usage);
            if (!File.Exists(assemblyPath)) return Fail($"test assembly not found: {assemblyPath}");

            Assembly assembly = Assembly.LoadFrom(Path.GetFullPath(assemblyPath));
            TestPlan plan = TestPlan.Discover(assembly, where, fixtures);
            if (list)
            {
                foreach (TestCase test in plan.Fixtures.SelectMany(f => f.Cases)) Console.WriteLine(test.FullName);
                return 0;
            }
            Console.WriteLine($"runtime: {System.Runtime.InteropServices.RuntimeInformation.FrameworkDescription}");
            var results = new Execution(Console.Out).Run(plan);
            int passed = results.Count(r => r.Outcome == Outcome.Passed);
            int failed = results.Count(r => r.Outcome == Outcome.Failed);
            int skipped = results.Count(r => r.Outcome == Outcome.Skipped);
            Console.WriteLine();
            Console.WriteLine(skipped > 0 ? $"{passed} passed, {failed} failed, {skipped} skipped" : $"{passed} passed, {failed} failed");
            Console.Out.Flush();
            return failed == 0 && passed > 0 ? 0 : 1;
        }

        private static int Fail(string message)
        {
            Console.Error.WriteLine("TfNetTrain.TestRunner: " + message);
            return 2;
        }
    }
}
