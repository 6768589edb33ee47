using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.RegularExpressions;
using Python.Runtime;

namespace TfNetTrain.Conformance
{
    /// <summary>Finding a suite's case files: the packaged default suite, a folder of cases, or one case file.</summary>
    public static class SuiteFiles
    {
        /// <summary>The name that stands for the packaged default suite.</summary>
        public const string DefaultSuite = "default";

        /// <summary>The packaged default suite's folder, asked from Python (tfnet_train.conformance.runner.suite_dir).</summary>
        public static string DefaultSuiteFolder(PythonRuntime runtime)
        {
            if (runtime == null) throw new ArgumentNullException(nameof(runtime));
            return runtime.Run(() =>
            {
                using (var runner = Py.Import("tfnet_train.conformance.runner"))
                using (var name = new PyString(DefaultSuite))
                using (var folder = runner.InvokeMethod("suite_dir", name))
                {
                    return folder.ToString();
                }
            });
        }

        /// <summary>
        /// The case JSON files of <paramref name="suite"/> (a folder, sorted by name, or one .json file), keeping those
        /// whose name matches <paramref name="pattern"/> (a case name or glob with * ? [..]) when given.
        /// </summary>
        /// <exception cref="ArgumentException">The suite does not exist, or no case matches the pattern.</exception>
        public static List<string> CasePaths(string suite, string pattern = null)
        {
            if (suite == null) throw new ArgumentNullException(nameof(suite));
            List<string> paths;
            if (File.Exists(suite)) paths = new List<string> { suite };
            else if (Directory.Exists(suite))
                paths = Directory.GetFiles(suite, "*.json").OrderBy(p => p, StringComparer.Ordinal).ToList();
            else
                throw new ArgumentException("suite must be 'default', a folder of cases or a case .json file, got '" + suite + "'", nameof(suite));
            if (!string.IsNullOrEmpty(pattern))
            {
                Regex glob = Glob(pattern);
                paths = paths.Where(p => glob.IsMatch(Path.GetFileNameWithoutExtension(p))).ToList();
                if (paths.Count == 0)
                    throw new ArgumentException("case must name a case of the suite '" + suite + "', got '" + pattern + "'", nameof(pattern));
            }
            return paths;
        }

        /// <summary>A shell-style pattern (* ? [seq] [!seq]) as a whole-string, case-sensitive regular expression.</summary>
        public static Regex Glob(string pattern)
        {
            if (pattern == null) throw new ArgumentNullException(nameof(pattern));
            var sb = new StringBuilder("^");
            for (int i = 0; i < pattern.Length; i++)
            {
                char c = pattern[i];
                if (c == '*') sb.Append(".*");
                else if (c == '?') sb.Append('.');
                else if (c == '[')
                {
                    int close = pattern.IndexOf(']', i + 2 <= pattern.Length ? i + 2 : pattern.Length);
                    if (close < 0)
                    {
                        sb.Append(@"\[");
                        continue;
                    }
                    string body = pattern.Substring(i + 1, close - i - 1);
                    bool negate = body.StartsWith("!", StringComparison.Ordinal);
                    if (negate) body = body.Substring(1);
                    sb.Append('[').Append(negate ? "^" : "").Append(body.Replace(@"\", @"\\").Replace("[", @"\[")).Append(']');
                    i = close;
                }
                else sb.Append(Regex.Escape(c.ToString()));
            }
            return new Regex(sb.Append('$').ToString(), RegexOptions.Singleline | RegexOptions.CultureInvariant);
        }
    }
}
