using System;
using System.Collections.Generic;
using System.Linq;

namespace TfNetTrain.Conformance
{
    /// <summary>The options of <c>TfNetTrain.Conformance.exe run</c>.</summary>
    public sealed class RunOptions
    {
        /// <summary>"default" or a folder of cases or one case .json file.</summary>
        public string Suite { get; set; } = SuiteFiles.DefaultSuite;

        /// <summary>Implementation specs: engine, csharp, numpy, keras, or NAME=PATH for recorded traces.</summary>
        public IList<string> Implementations { get; set; } = new List<string> { EngineImplementation.DefaultName, CSharpReferenceImplementation.DefaultName };

        /// <summary>The implementation the others are compared with; null picks the most independent one.</summary>
        public string Baseline { get; set; }

        /// <summary>Folder for report.json; null writes none.</summary>
        public string ReportDirectory { get; set; }

        /// <summary>Only cases whose name matches (glob patterns allowed); null runs all.</summary>
        public string CasePattern { get; set; }

        /// <summary>Parses the arguments after "run".</summary>
        /// <exception cref="ArgumentException">An unknown option, a missing value or an empty implementation list.</exception>
        public static RunOptions Parse(IList<string> args)
        {
            if (args == null) throw new ArgumentNullException(nameof(args));
            var options = new RunOptions();
            for (int i = 0; i < args.Count; i++)
            {
                string arg = args[i];
                string value = null;
                int eq = arg.IndexOf('=');
                if (arg.StartsWith("--", StringComparison.Ordinal) && eq > 0)
                {
                    value = arg.Substring(eq + 1);
                    arg = arg.Substring(0, eq);
                }
                switch (arg)
                {
                    case "--suite": options.Suite = value ?? Next(args, ref i, arg); break;
                    case "--impl":
                        options.Implementations = (value ?? Next(args, ref i, arg)).Split(',').Select(s => s.Trim()).Where(s => s.Length > 0).ToList();
                        if (options.Implementations.Count == 0)
                            throw new ArgumentException("--impl: expected a comma-separated list of implementations, got none");
                        break;
                    case "--baseline": options.Baseline = value ?? Next(args, ref i, arg); break;
                    case "--report": options.ReportDirectory = value ?? Next(args, ref i, arg); break;
                    case "--case": options.CasePattern = value ?? Next(args, ref i, arg); break;
                    default:
                        throw new ArgumentException("run: unknown argument '" + args[i] + "' (expected --suite, --impl, --baseline, --report or --case)");
                }
            }
            return options;
        }

        private static string Next(IList<string> args, ref int i, string option)
        {
            if (i + 1 >= args.Count) throw new ArgumentException(option + ": expected a value, got none");
            return args[++i];
        }
    }
}
