using System;
using System.Linq;
using Python.Runtime;

namespace TfNetTrain.Conformance
{
    /// <summary>
    /// <c>mono TfNetTrain.Conformance.exe run|list ...</c>: a front over Python's conformance runner
    /// (<c>tfnet-train conformance run|list ...</c>) in the embedded interpreter, so both write the same table,
    /// report.json and HTML page. Only the default implementations differ: <c>engine,csharp</c> here.
    /// Exit status: 0 when everything passed, 1 when a comparison failed or errored (or Python did not start),
    /// 2 for bad arguments.
    /// </summary>
    public static class Program
    {
        /// <summary>The implementations <c>run</c> compares when <c>--impl</c> is not given.</summary>
        public const string DefaultImplementations = "engine,csharp";

        /// <summary>Runs a command; returns the exit status.</summary>
        public static int Main(string[] args)
        {
            string[] argv = new[] { "conformance" }.Concat(WithDefaultImplementations(args)).ToArray();
            if (Environment.GetEnvironmentVariable("TF_CPP_MIN_LOG_LEVEL") == null)
                Environment.SetEnvironmentVariable("TF_CPP_MIN_LOG_LEVEL", "3");
            PythonRuntime existing = PythonRuntime.Current, runtime;
            try
            {
                runtime = existing ?? PythonRuntime.Start();
            }
            catch (TfNetTrainStartupException e)
            {
                Console.Error.WriteLine("TfNetTrain.Conformance: Python did not start: " + e.GetType().Name + ": " + e.Message);
                return 1;
            }
            try
            {
                return runtime.Run(() =>
                {
                    using (var cli = Py.Import("tfnet_train.cli"))
                    using (var list = new PyList(argv.Select(a => (PyObject)new PyString(a)).ToArray()))
                    using (var status = cli.InvokeMethod("host_main", list))
                    {
                        return status.As<int>();
                    }
                });
            }
            catch (TfNetTrainException e)
            {
                Console.Error.WriteLine("TfNetTrain.Conformance: " + e.Message + Environment.NewLine + e.PythonTraceback);
                return 1;
            }
            finally
            {
                Console.Out.Flush();
                if (existing == null) runtime.Dispose();
            }
        }

        /// <summary><paramref name="args"/>, with <c>--impl engine,csharp</c> added to a <c>run</c> that names none.</summary>
        public static string[] WithDefaultImplementations(string[] args)
        {
            if (args == null) throw new ArgumentNullException(nameof(args));
            bool named = args.Any(a => a == "--impl" || a.StartsWith("--impl=", StringComparison.Ordinal));
            if (args.Length == 0 || args[0] != "run" || named) return args;
            return args.Concat(new[] { "--impl", DefaultImplementations }).ToArray();
        }
    }
}
