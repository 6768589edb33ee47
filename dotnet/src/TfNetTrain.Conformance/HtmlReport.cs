using System;
using System.IO;
using Python.Runtime;

namespace TfNetTrain.Conformance
{
    /// <summary>
    /// The HTML page of a report: index.html and plots/*.png drawn from report.json by Python's
    /// tfnet_train.conformance.render (the page the Python runner writes), which also fills each case's "plots" entry.
    /// </summary>
    public static class HtmlReport
    {
        /// <summary>
        /// Draws <paramref name="directory"/>/index.html and its plots from <paramref name="directory"/>/report.json in
        /// <paramref name="runtime"/>; returns the path of index.html.
        /// </summary>
        /// <exception cref="TfNetTrainException">The renderer raised (e.g. report.json is not a report).</exception>
        public static string Render(string directory, PythonRuntime runtime)
        {
            if (directory == null) throw new ArgumentNullException(nameof(directory));
            if (runtime == null) throw new ArgumentNullException(nameof(runtime));
            string full = Path.GetFullPath(directory);
            return runtime.Run(() =>
            {
                using (var render = Py.Import("tfnet_train.conformance.render"))
                using (var path = new PyString(full))
                using (var written = render.InvokeMethod("render_report_dir", path))
                using (var key = new PyString("html"))
                using (var html = written.GetItem(key))
                {
                    return html.ToString(); // str() of the pathlib.Path
                }
            });
        }

        /// <summary>
        /// <see cref="Render"/> with the runtime from <paramref name="startPython"/>; when Python cannot start or the
        /// renderer fails, returns null and sets <paramref name="reason"/> to why.
        /// </summary>
        public static string TryRender(string directory, Func<PythonRuntime> startPython, out string reason)
        {
            if (startPython == null) throw new ArgumentNullException(nameof(startPython));
            reason = null;
            PythonRuntime runtime;
            try
            {
                runtime = startPython();
            }
            catch (Exception e) // any start-up failure leaves report.json as the whole report
            {
                reason = "Python did not start: " + ErrorText.Summary(e);
                return null;
            }
            try
            {
                return Render(directory, runtime);
            }
            catch (TfNetTrainException e)
            {
                reason = "the HTML renderer failed: " + ErrorText.Summary(e);
                return null;
            }
        }
    }
}
