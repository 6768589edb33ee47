using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using NUnit.Framework;

namespace TfNetTrain.Tests
{
    /// <summary>
    /// PythonRuntimeOptions.Output and ErrorOutput: Python's sys.stdout and sys.stderr forward to the host's writers.
    /// The shared runtime (default options) follows Console.Out at each write; the other writers need their own
    /// runtime, started (and restarted) in a separate host process.
    /// </summary>
    [TestFixture]
    public class OutputTests
    {
        private static Model TinyModel()
        {
            Model model = Keras.Sequential(Layers.Input(4), Layers.Dense(3));
            model.Compile("sgd", "mse");
            return model;
        }

        [Test]
        public void PythonOutputFollowsConsoleOutByDefault()
        {
            TextWriter console = Console.Out;
            var captured = new StringWriter();
            Console.SetOut(captured);
            try
            {
                using (Model model = TinyModel())
                {
                    model.Fit(Data.Uniform(80, 8, 4), Data.Uniform(81, 8, 3), batchSize: 4, epochs: 2, verbose: 1);
                }
                PythonSetup.Runtime.Run(() => Python.Runtime.PythonEngine.Exec(
                    "import sys, threading\nprint('printed-on-the-worker')\n" +
                    "t = threading.Thread(target=lambda: print('printed-on-a-python-thread'))\nt.start()\nt.join()\n" +
                    "assert not sys.stdout.isatty() and sys.stdout.fileno() == 1\n"));
            }
            finally
            {
                Console.SetOut(console);
            }
            string text = captured.ToString();
            StringAssert.Contains("2/2", text, "Keras's progress bar");
            StringAssert.Contains("loss", text);
            StringAssert.Contains("printed-on-the-worker", text);
            StringAssert.Contains("printed-on-a-python-thread", text);
        }

        private const string HostSource = @"
using System;
using System.IO;
using System.Text;
using TfNetTrain;

public sealed class ThrowingWriter : TextWriter
{
    public int Calls;
    public override Encoding Encoding => Encoding.UTF8;
    public override void Write(char value) { Calls++; throw new IOException(""no console""); }
    public override void Write(string value) { Calls++; throw new IOException(""no console""); }
    public override void Flush() { Calls++; throw new IOException(""no console""); }
}

public static class Host
{
    private static float Fit()
    {
        var model = Keras.Sequential(Layers.Input(4), Layers.Dense(3));
        model.Compile(""sgd"", ""mse"");
        History history = model.Fit(new NDArray(new float[32], 8, 4), new NDArray(new float[24], 8, 3), batchSize: 4, epochs: 2, verbose: 1);
        return history[""loss""][1];
    }

    private static void Exec(PythonRuntime python, string code) => python.Run(() => Python.Runtime.PythonEngine.Exec(code));

    public static int Main(string[] args)
    {
        var output = new StringWriter();
        var errors = new StringWriter();
        var python = PythonRuntime.Start(new PythonRuntimeOptions { Output = output, ErrorOutput = errors });
        Fit();
        Exec(python, ""import sys, warnings\nprint('printed-by-python')\nwarnings.warn('warned-by-python')\nsys.stdout.flush()\n"");
        string o = output.ToString(), e = errors.ToString();
        Console.WriteLine(""string.progress="" + (o.Contains(""2/2"") && o.Contains(""loss"")));
        Console.WriteLine(""string.print="" + o.Contains(""printed-by-python""));
        Console.WriteLine(""string.warning="" + e.Contains(""warned-by-python""));
        Console.WriteLine(""string.apart="" + (!o.Contains(""warned-by-python"") && !e.Contains(""printed-by-python"")));
        python.Dispose();

        python = PythonRuntime.Start(new PythonRuntimeOptions { Output = TextWriter.Null, ErrorOutput = TextWriter.Null });
        Console.WriteLine(""null.fit="" + !float.IsNaN(Fit()));
        python.Dispose();

        var throwing = new ThrowingWriter();
        python = PythonRuntime.Start(new PythonRuntimeOptions { Output = throwing, ErrorOutput = throwing });
        bool fitted = !float.IsNaN(Fit());
        Exec(python, ""import warnings\nprint('after the failure')\nwarnings.warn('warned again')\n"");
        Console.WriteLine(""throwing.fit="" + fitted + "" tried="" + (throwing.Calls > 0));
        python.Dispose();

        python = PythonRuntime.Start();
        Console.WriteLine(""default:"");
        Fit();
        Exec(python, ""print('default-print-by-python')\n"");
        python.Dispose();
        Console.WriteLine(""after dispose: restored="" + (Console.Out != null));
        return 0;
    }
}
";

        private static string BinDirectory => Path.GetDirectoryName(typeof(OutputTests).Assembly.Location);

        private static bool OnMono => Type.GetType("Mono.Runtime") != null;

        private static string FrameworkDirectory => Path.GetDirectoryName(typeof(object).Assembly.Location);

        private static string ReferenceFramework =>
            Environment.GetEnvironmentVariable("TFNET_TEST_REFERENCE_FRAMEWORK") ?? FrameworkDirectory;

        /// <summary>Compiles the host as ShutdownTests does (Mono: an exe beside the library; .NET: a dll with copies).</summary>
        private static string CompileHost(string dir)
        {
            string source = Path.Combine(dir, "host.cs");
            File.WriteAllText(source, HostSource);
            string hostExe, references;
            if (OnMono)
            {
                hostExe = Path.Combine(dir, "host.exe");
                references = $"-r:\"{Path.Combine(BinDirectory, "TfNetTrain.dll")}\" -r:\"{Path.Combine(BinDirectory, "Python.Runtime.dll")}\" " +
                             "-r:Facades/netstandard.dll";
            }
            else
            {
                hostExe = Path.Combine(dir, "host.dll");
                foreach (string name in new[] { "TfNetTrain.dll", "Python.Runtime.dll" })
                    File.Copy(Path.Combine(BinDirectory, name), Path.Combine(dir, name));
                File.WriteAllText(Path.Combine(dir, "host.runtimeconfig.json"),
                    "{\"runtimeOptions\": {\"rollForward\": \"LatestMajor\", \"framework\": {\"name\": \"Microsoft.NETCore.App\", " +
                    "\"version\": \"" + Path.GetFileName(ReferenceFramework) + "\"}}}");
                references = "-nostdlib -noconfig -nowarn:1702 " +
                             string.Join(" ", Directory.GetFiles(ReferenceFramework, "*.dll").Select(f => $"-r:\"{f}\"")) +
                             $" -r:\"{Path.Combine(dir, "TfNetTrain.dll")}\" -r:\"{Path.Combine(dir, "Python.Runtime.dll")}\"";
            }
            var info = new ProcessStartInfo("mcs", $"-nologo -langversion:7.2 -target:exe -out:\"{hostExe}\" {references} \"{source}\"")
            {
                UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true,
            };
            using (var mcs = Process.Start(info))
            {
                string output = mcs.StandardOutput.ReadToEnd() + mcs.StandardError.ReadToEnd();
                mcs.WaitForExit();
                Assert.AreEqual(0, mcs.ExitCode, "compiling the test host failed: " + output);
            }
            return hostExe;
        }

        [Test]
        public void WritersReceivePythonOutputAndAFailingOneDoesNotFailTraining()
        {
            string dir = Path.Combine(Path.GetTempPath(), "tfnet_output_" + Guid.NewGuid().ToString("N"));
            Directory.CreateDirectory(dir);
            try
            {
                string hostExe = CompileHost(dir);
                string runtime = OnMono ? "mono" : Path.GetFullPath(Path.Combine(FrameworkDirectory, "..", "..", "..", "dotnet"));
                var info = new ProcessStartInfo(runtime, $"\"{hostExe}\"")
                {
                    UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true,
                };
                info.EnvironmentVariables["MONO_PATH"] = BinDirectory;
                string venv = PythonLocation.Find().VenvPath;
                if (venv != null) info.EnvironmentVariables["TFNET_TRAIN_VENV"] = venv;
                info.EnvironmentVariables["TF_CPP_MIN_LOG_LEVEL"] = "3";
                string stdout, stderr;
                int exitCode;
                using (var process = Process.Start(info))
                {
                    var errorText = process.StandardError.ReadToEndAsync();
                    stdout = process.StandardOutput.ReadToEnd();
                    Assert.IsTrue(process.WaitForExit(600000), "the host did not exit");
                    stderr = errorText.Result;
                    exitCode = process.ExitCode;
                }
                string all = "stdout:\n" + stdout + "\nstderr:\n" + stderr;
                Assert.AreEqual(0, exitCode, all);
                var lines = new List<string>(stdout.Split('\n').Select(l => l.TrimEnd('\r')));
                foreach (string expected in new[]
                {
                    "string.progress=True", "string.print=True", "string.warning=True", "string.apart=True",
                    "null.fit=True", "throwing.fit=True tried=True", "after dispose: restored=True",
                })
                {
                    CollectionAssert.Contains(lines, expected, all);
                }
                int defaultAt = lines.IndexOf("default:");
                Assert.GreaterOrEqual(defaultAt, 0, all);
                string before = string.Join("\n", lines.Take(defaultAt)), after = string.Join("\n", lines.Skip(defaultAt));
                StringAssert.DoesNotContain("printed-by-python", before, "a StringWriter's text stays there");
                StringAssert.DoesNotContain("after the failure", stdout + stderr, "a failed writer is not replaced by the console");
                StringAssert.Contains("loss", after, "the default: Console.Out");
                StringAssert.Contains("default-print-by-python", after);
                StringAssert.DoesNotContain("2/2", before, "no progress bar on the console before the default runtime");
            }
            finally
            {
                Directory.Delete(dir, true);
            }
        }
    }
}
