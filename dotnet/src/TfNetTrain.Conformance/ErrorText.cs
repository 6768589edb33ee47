using System;
using System.Linq;

namespace TfNetTrain.Conformance
{
    /// <summary>One-line error descriptions for reports.</summary>
    internal static class ErrorText
    {
        /// <summary>
        /// "Type: message"; a Python error keeps its Python type, and one raised inside a tf.function only its final
        /// message line; a C# message keeps its first line.
        /// </summary>
        public static string Summary(Exception e)
        {
            var python = e as TfNetTrainException;
            if (python != null && python.IsPythonError)
            {
                string text = python.PythonMessage ?? "";
                if (text.Contains("in user code:"))
                {
                    string last = text.Split('\n').Select(l => l.Trim()).LastOrDefault(l => l.Length > 0) ?? "";
                    string prefix = python.PythonType + ": ";
                    text = last.StartsWith(prefix, StringComparison.Ordinal) ? last.Substring(prefix.Length) : last;
                }
                return python.PythonType + ": " + text;
            }
            // Multi-line messages (a start-up failure lists every place searched) keep their first line in a table.
            string message = e.Message ?? "";
            int newline = message.IndexOf('\n');
            return e.GetType().Name + ": " + (newline < 0 ? message : message.Substring(0, newline).TrimEnd());
        }
    }
}
