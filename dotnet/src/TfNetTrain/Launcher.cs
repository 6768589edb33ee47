using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Text;

namespace TfNetTrain
{
    /// <summary>
    /// Runs a command as N local MultiWorkerMirroredStrategy workers on 127.0.0.1, each with its TF_CONFIG, from C#:
    /// the same launcher as <c>tfnet-train launch --workers N -- CMD...</c>. Worker output arrives line by line,
    /// prefixed <c>[worker i] </c>; every worker ends as soon as one fails; the result is 0 or the first failing
    /// worker's exit status (124 when the timeout ends the run). Where the system allows it the workers run in a
    /// private network namespace with only loopback, since TensorFlow's gRPC server listens on every interface.
    /// <para>The Python launcher runs as a child process of the virtual environment's interpreter (found as
    /// <see cref="PythonLocation.Find"/> finds it), not inside an embedded interpreter: the workers are separate
    /// processes in any case, and so a launch neither needs nor disturbs a running <see cref="PythonRuntime"/>.
    /// The child inherits this process's environment (PYTHONPATH included) and runs with Python's <c>-P</c>, so that
    /// modules in the current directory are not imported.</para>
    /// </summary>
    public static class Launcher
    {
        /// <summary>Runs <paramref name="command"/> (program and arguments) as <paramref name="workers"/> workers,
        /// writing their output to the console; returns 0 or the first failing worker's exit status.</summary>
        public static int Run(int workers, params string[] command)
        {
            return Run(workers, command, new LaunchOptions());
        }

        /// <summary>As <see cref="Run(int, string[])"/>, with options (timeout, namespace, output writers, Python).</summary>
        public static int Run(int workers, string[] command, LaunchOptions options)
        {
            if (workers < 1)
                throw new TfNetTrainArgumentException(nameof(workers), $"expected a positive number of workers, got {workers}");
            if (command == null || command.Length == 0 || Array.IndexOf(command, null) >= 0)
                throw new TfNetTrainArgumentException(nameof(command), "expected a program and its arguments, none null");
            options = options ?? new LaunchOptions();
            if (options.Timeout.HasValue && options.Timeout.Value <= TimeSpan.Zero)
                throw new TfNetTrainArgumentException("options.Timeout", $"expected a positive time span, got {options.Timeout.Value}");

            string python = options.PythonExecutable ?? PythonLocation.Find(options.Python).ProgramName ?? "python3";
            // -P: the current directory stays off sys.path, so a json.py in the folder this process runs in is not
            // imported (not -I, which would drop the PYTHONPATH this process passes on).
            // --end-on-stdin-eof: the launcher's input is a pipe from this process, which the system closes when this
            // process ends, however it ends (a crash, a kill): the launcher then ends every worker.
            var arguments = new List<string> { "-P", "-m", "tfnet_train.launch", "--workers", workers.ToString(CultureInfo.InvariantCulture), "--end-on-stdin-eof" };
            if (!options.NetworkNamespace) arguments.Add("--no-netns");
            if (options.Timeout.HasValue)
            {
                arguments.Add("--timeout");
                arguments.Add(options.Timeout.Value.TotalSeconds.ToString("R", CultureInfo.InvariantCulture));
            }
            arguments.Add("--");
            arguments.AddRange(command);

            TextWriter output = options.Output ?? Console.Out, error = options.Error ?? Console.Error;
            var start = new ProcessStartInfo(python, Quote(arguments))
            {
                UseShellExecute = false,
                RedirectStandardInput = true,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                StandardOutputEncoding = Encoding.UTF8,
                StandardErrorEncoding = Encoding.UTF8,
            };
            var gate = new object();
            using (var process = new Process { StartInfo = start })
            {
                process.OutputDataReceived += (sender, e) => { if (e.Data != null) lock (gate) output.WriteLine(e.Data); };
                process.ErrorDataReceived += (sender, e) => { if (e.Data != null) lock (gate) error.WriteLine(e.Data); };
                try
                {
                    process.Start();
                }
                catch (System.ComponentModel.Win32Exception ex)
                {
                    throw new TfNetTrainStartupException($"Could not start the Python launcher '{python}': {ex.Message}",
                                                         new List<string> { python }, ex);
                }
                process.BeginOutputReadLine();
                process.BeginErrorReadLine();
                process.WaitForExit();  // also waits for the end of both output streams
                lock (gate)
                {
                    output.Flush();
                    error.Flush();
                }
                return process.ExitCode;
            }
        }

        /// <summary>One command line from arguments, each quoted as Mono and .NET split them again.</summary>
        private static string Quote(IEnumerable<string> arguments)
        {
            var line = new StringBuilder();
            foreach (string argument in arguments)
            {
                if (line.Length > 0) line.Append(' ');
                line.Append('"');
                int backslashes = 0;
                foreach (char c in argument)
                {
                    if (c == '\\') { backslashes++; continue; }
                    if (c == '"') line.Append('\\', 2 * backslashes + 1);
                    else line.Append('\\', backslashes);
                    backslashes = 0;
                    line.Append(c);
                }
                line.Append('\\', 2 * backslashes);
                line.Append('"');
            }
            return line.ToString();
        }
    }

    /// <summary>Options of <see cref="Launcher.Run(int, string[], LaunchOptions)"/>.</summary>
    public sealed class LaunchOptions
    {
        /// <summary>End every worker after this long (exit status 124); null waits as long as they run.</summary>
        public TimeSpan? Timeout { get; set; }

        /// <summary>Use a private network namespace where available (default true); false runs the workers on the
        /// host's network, where their ports are open on every interface (the launcher warns).</summary>
        public bool NetworkNamespace { get; set; } = true;

        /// <summary>Where worker lines go (default Console.Out).</summary>
        public TextWriter Output { get; set; }

        /// <summary>Where the launcher's own messages go (default Console.Error).</summary>
        public TextWriter Error { get; set; }

        /// <summary>The Python interpreter to run the launcher with; null finds the venv's as PythonRuntime does.</summary>
        public string PythonExecutable { get; set; }

        /// <summary>Where to look for Python when <see cref="PythonExecutable"/> is null.</summary>
        public PythonRuntimeOptions Python { get; set; }
    }
}
