using System;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using NUnit.Framework;

namespace TfNetTrain.Tests
{
    /// <summary>
    /// Shutting down with TensorFlow loaded, measured in a separate host process (a process can start Python only
    /// once): disposing and exiting take under a second, and so does exiting without Dispose.
    /// </summary>
    [TestFixture]
    public class ShutdownTests
    {
        private const string HostSource = @"
using System;
using System.Collections;
using System.Collections.Generic;
using System.Diagnostics;
using System.Threading;
using TfNetTrain;
using static TfNetTrain.TensorFlowNet.Binding;
using static TfNetTrain.TensorFlowNet.KerasApi;

// Batches of two rows made in DelayMs each; Started is set at the third batch of a pass after the first (the
// signature's); the enumerator's Dispose throws when ThrowOnDispose (not for the signature's enumeration).
public sealed class SlowBatches : IEnumerable<NDArray[]>
{
    public int Count = 8, DelayMs, Enumerations;
    public bool ThrowOnDispose;
    public readonly ManualResetEventSlim Started = new ManualResetEventSlim(false);

    public IEnumerator<NDArray[]> GetEnumerator() { Enumerations++; return new Cursor(this, Enumerations > 1); }

    IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();

    private sealed class Cursor : IEnumerator<NDArray[]>
    {
        private readonly SlowBatches _of;
        private readonly bool _streamed;
        private int _made;

        public Cursor(SlowBatches of, bool streamed) { _of = of; _streamed = streamed; }

        public NDArray[] Current { get; private set; }

        object IEnumerator.Current => Current;

        public bool MoveNext()
        {
            if (_made == _of.Count) return false;
            if (_streamed && _made == 2) _of.Started.Set();
            Thread.Sleep(_of.DelayMs);
            _made++;
            Current = new[] { new NDArray(new float[] { 1, 2, 3, 4, 5, 6, 7, 8 }, 2, 4), new NDArray(new long[] { 0, 2 }, 2) };
            return true;
        }

        public void Reset() { }

        public void Dispose()
        {
            if (_streamed && _of.ThrowOnDispose) throw new InvalidOperationException(""the cursor could not be closed"");
        }
    }
}

public sealed class DisposingCallback : CallbackBase
{
    public override void OnEpochEnd(int epoch, IDictionary<string, float> logs)
    {
        try
        {
            PythonRuntime.Current.Dispose();
            Console.WriteLine(""refused=none"");
        }
        catch (InvalidOperationException)
        {
            Console.WriteLine(""refused=InvalidOperationException"");
        }
    }
}

public sealed class SlowCallback : CallbackBase
{
    public readonly ManualResetEventSlim InFit = new ManualResetEventSlim(false);

    public override void OnEpochBegin(int epoch, IDictionary<string, float> logs)
    {
        if (epoch != 1) return;
        InFit.Set();
        Thread.Sleep(500); // Dispose runs on the main thread meanwhile
        Console.WriteLine(""current="" + (PythonRuntime.Current != null));
    }
}

public static class Host
{
    public static int Main(string[] args)
    {
        var python = PythonRuntime.Start();
        Step();
        // In the Dispose modes a watchdog turns a deadlock into a ""deadlock"" line (started after start-up, which
        // imports TensorFlow and may take long on a busy machine).
        var watchdog = new Thread(() => { Thread.Sleep(90000); Console.WriteLine(""deadlock""); Console.Out.Flush(); Environment.FailFast(""deadlock""); }) { IsBackground = true };
        if (args.Length > 0 && (args[0] == ""callback-dispose"" || args[0] == ""dispose-during-fit"")) watchdog.Start();
        if (args.Length > 0 && args[0] == ""callback-dispose"")
        {
            Fit(new DisposingCallback(), 2);
            Console.WriteLine(""after loss="" + Step());
        }
        if (args.Length > 0 && args[0] == ""dispose-during-fit"")
        {
            var slow = new SlowCallback();
            var fit = new Thread(() =>
            {
                try { Fit(slow, 3); Console.WriteLine(""fit finished""); }
                catch (ObjectDisposedException) { Console.WriteLine(""fit ended by the shutdown""); }
            });
            fit.Start();
            slow.InFit.Wait();
            python.Dispose();
            fit.Join();
            Console.WriteLine(""disposed during fit: current null="" + (PythonRuntime.Current == null));
        }
        if (args.Length > 0 && args[0] == ""restart"")
        {
            python.Dispose();
            python = PythonRuntime.Start(new PythonRuntimeOptions { ExtraPythonPaths = new[] { ""/tmp/tfnet-extra-path"" } });
            Console.WriteLine(""restarted loss="" + Step());
            Console.WriteLine(""path0="" + python.Run(() => Python.Runtime.PythonEngine.Eval(""__import__('sys').path[0]"").ToString()));
        }
        if (args.Length > 0 && args[0] == ""trace-dispose"") DisposeWhileTracing(python);
        if (args.Length > 0 && args[0] == ""stream-dispose-throws"")
        {
            try { StreamFit(new SlowBatches { ThrowOnDispose = true }); Console.WriteLine(""stream fit finished""); }
            catch (Exception e) { Console.WriteLine(""stream fit error="" + e.GetType().Name + "": "" + e.Message.Split('\n')[0]); }
            Console.WriteLine(""after loss="" + Step());
        }
        if (args.Length > 0 && args[0] == ""dispose-during-stream"")
        {
            watchdog.Start();
            var slow = new SlowBatches { Count = 400, DelayMs = 20 };
            string outcome = ""none"";
            var fit = new Thread(() =>
            {
                try { StreamFit(slow); outcome = ""finished""; }
                catch (Exception e) { outcome = ""error="" + e.GetType().Name + "": "" + e.Message.Split('\n')[0]; }
            });
            fit.Start();
            slow.Started.Wait();
            python.Dispose();
            fit.Join();
            Console.WriteLine(""stream fit "" + outcome);
        }
        Console.WriteLine(""ready"");
        Console.Out.Flush();
        if (args.Length > 0 && args[0] == ""dispose"")
        {
            var clock = Stopwatch.StartNew();
            python.Dispose();
            Console.WriteLine(""dispose_ms="" + clock.Elapsed.TotalMilliseconds.ToString(System.Globalization.CultureInfo.InvariantCulture));
            Console.Out.Flush();
        }
        return 0;
    }

    private static void Fit(ICallback callback, int epochs)
    {
        var model = Keras.Sequential(Layers.Input(4), Layers.Dense(3));
        model.Compile(""sgd"", ""mse"");
        model.Fit(new NDArray(new float[8], 2, 4), new NDArray(new float[6], 2, 3), epochs: epochs, verbose: 0,
                  callbacks: new List<ICallback> { callback });
    }

    // Dispose from another thread while a C# delegate is being traced: the trace finishes (its tf calls run inline),
    // then Python shuts down; a watchdog turns a deadlock into exit code 3.
    private static void DisposeWhileTracing(PythonRuntime python)
    {
        var tracing = new System.Threading.ManualResetEventSlim();
        var input = TfNetTrain.TensorFlowNet.Binding.tf.constant(new NDArray(new float[] { 1, 2 }));
        var twice = TfNetTrain.TensorFlowNet.Binding.tf.function((TfNetTrain.TensorFlowNet.Tensor x) =>
        {
            tracing.Set();
            System.Threading.Thread.Sleep(500);
            return x * 2f;
        });
        string outcome = ""none"";
        var caller = new System.Threading.Thread(() =>
        {
            try
            {
                var result = twice(input);                    // the call that was tracing completes
                outcome = ""returned"";
                try { outcome += "" value="" + string.Join("","", result.ToArray<float>()); }
                catch (ObjectDisposedException) { outcome += "", then reading it was refused: disposed""; }
            }
            catch (Exception e) { outcome = ""error="" + e.GetType().Name; }
        });
        caller.Start();
        tracing.Wait();
        var watchdog = new System.Threading.Timer(_ => { Console.WriteLine(""deadlock""); Console.Out.Flush(); Environment.Exit(3); }, null, 30000, -1);
        python.Dispose();
        caller.Join();
        watchdog.Dispose();
        Console.WriteLine(""traced call: "" + outcome);
        Console.WriteLine(""disposed while tracing"");
    }

    private static void StreamFit(SlowBatches batches)
    {
        var dataset = tf.data.Dataset.from_generator(batches, materialize: false);
        var model = keras.Sequential();
        model.add(keras.layers.Dense(3, input_shape: 4));
        model.compile(keras.optimizers.Adam(0.01f), keras.losses.SparseCategoricalCrossentropy(from_logits: true), new[] { ""accuracy"" });
        model.fit(dataset, epochs: 1, verbose: 0);
    }

    private static float Step()
    {
        var model = Keras.Sequential(Layers.Input(4), Layers.Dense(3, kernelInitializer: ""ones""));
        model.Compile(""sgd"", ""mse"");
        return model.TrainOnBatch(new NDArray(new float[] { 1, 1, 1, 1 }, 1, 4), new NDArray(new float[3], 1, 3))[""loss""];
    }
}
";

        private static string _hostExe;

        private static string BinDirectory => Path.GetDirectoryName(typeof(ShutdownTests).Assembly.Location);

        /// <summary>True under Mono, false under .NET (CoreCLR): the host is compiled and run for the runtime that runs
        /// the tests.</summary>
        private static bool OnMono => Type.GetType("Mono.Runtime") != null;

        /// <summary>The framework assemblies of the running runtime (Mono's lib/mono/4.5, or .NET's
        /// shared/Microsoft.NETCore.App/VERSION).</summary>
        private static string FrameworkDirectory => Path.GetDirectoryName(typeof(object).Assembly.Location);

        /// <summary>What mcs compiles the .NET host against: TFNET_TEST_REFERENCE_FRAMEWORK (mcs cannot read the
        /// framework of .NET 7 or later, so the tests name an older one; the host then rolls forward), else the running
        /// framework.</summary>
        private static string ReferenceFramework =>
            Environment.GetEnvironmentVariable("TFNET_TEST_REFERENCE_FRAMEWORK") ?? FrameworkDirectory;

        [TestFixtureSetUp]
        public void CompileHost()
        {
            string dir = Path.Combine(Path.GetTempPath(), "tfnet_shutdown_" + Guid.NewGuid().ToString("N"));
            Directory.CreateDirectory(dir);
            string source = Path.Combine(dir, "host.cs");
            File.WriteAllText(source, HostSource);
            string references;
            if (OnMono)
            {
                _hostExe = Path.Combine(dir, "host.exe");
                references = $"-r:\"{Path.Combine(BinDirectory, "TfNetTrain.dll")}\" -r:\"{Path.Combine(BinDirectory, "Python.Runtime.dll")}\" " +
                             "-r:Facades/netstandard.dll";
            }
            else
            {
                // .NET resolves an app's assemblies from its own folder (there is no MONO_PATH): the host gets copies,
                // and its runtimeconfig lets it run on the running runtime, newer than the one compiled against.
                _hostExe = Path.Combine(dir, "host.dll");
                foreach (string name in new[] { "TfNetTrain.dll", "Python.Runtime.dll" })
                    File.Copy(Path.Combine(BinDirectory, name), Path.Combine(dir, name));
                File.WriteAllText(Path.Combine(dir, "host.runtimeconfig.json"),
                    "{\"runtimeOptions\": {\"rollForward\": \"LatestMajor\", \"framework\": {\"name\": \"Microsoft.NETCore.App\", " +
                    "\"version\": \"" + Path.GetFileName(ReferenceFramework) + "\"}}}");
                references = "-nostdlib -noconfig -nowarn:1702 " +
                             string.Join(" ", Directory.GetFiles(ReferenceFramework, "*.dll").Select(f => $"-r:\"{f}\"")) +
                             $" -r:\"{Path.Combine(dir, "TfNetTrain.dll")}\" -r:\"{Path.Combine(dir, "Python.Runtime.dll")}\"";
            }
            string arguments = $"-nologo -langversion:7.2 -target:exe -out:\"{_hostExe}\" {references} \"{source}\"";
            var info = new ProcessStartInfo("mcs", arguments) { UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true };
            using (var mcs = Process.Start(info))
            {
                string output = mcs.StandardOutput.ReadToEnd() + mcs.StandardError.ReadToEnd();
                mcs.WaitForExit();
                Assert.AreEqual(0, mcs.ExitCode, "compiling the test host failed: " + output);
            }
        }

        [TestFixtureTearDown]
        public void RemoveHost()
        {
            if (_hostExe != null) Directory.Delete(Path.GetDirectoryName(_hostExe), true);
        }

        private static string _lastOutput = "";

        /// <summary>Runs the host; returns (seconds from "ready" to exit, reported dispose ms or NaN, exit code).</summary>
        private static Tuple<double, double, int> RunHost(string argument)
        {
            // The same runtime runs the host: mono, or the dotnet executable at the root of the running framework's
            // installation (ROOT/shared/Microsoft.NETCore.App/VERSION).
            string runtime = OnMono ? "mono" : Path.GetFullPath(Path.Combine(FrameworkDirectory, "..", "..", "..", "dotnet"));
            var info = new ProcessStartInfo(runtime, $"\"{_hostExe}\" {argument}")
            {
                UseShellExecute = false,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
            };
            info.EnvironmentVariables["MONO_PATH"] = BinDirectory;
            // The host's TfNetTrain.dll may sit outside the project (CoreCLR copy), so name the venv found from here.
            string venv = PythonLocation.Find().VenvPath;
            if (venv != null) info.EnvironmentVariables["TFNET_TRAIN_VENV"] = venv;
            info.EnvironmentVariables["TF_CPP_MIN_LOG_LEVEL"] = "3";
            using (var process = Process.Start(info))
            {
                process.ErrorDataReceived += (s, e) => { };
                process.BeginErrorReadLine();
                string line;
                _lastOutput = "";
                while ((line = process.StandardOutput.ReadLine()) != null && line != "ready") _lastOutput += line + "\n";
                Assert.AreEqual("ready", line, "the host did not start");
                var clock = Stopwatch.StartNew();
                double disposeMs = double.NaN;
                while ((line = process.StandardOutput.ReadLine()) != null)
                {
                    if (line.StartsWith("dispose_ms=", StringComparison.Ordinal))
                        disposeMs = double.Parse(line.Substring(11), CultureInfo.InvariantCulture);
                }
                Assert.IsTrue(process.WaitForExit(60000), "the host did not exit");
                return Tuple.Create(clock.Elapsed.TotalSeconds, disposeMs, process.ExitCode);
            }
        }

        [Test]
        public void DisposeAndExitTakeUnderASecond()
        {
            var result = RunHost("dispose");
            Assert.AreEqual(0, result.Item3, "exit code");
            Assert.Less(result.Item2, 1000.0, "Dispose (ms)");
            Assert.Less(result.Item1, 1.0, $"dispose + exit (s); Dispose alone took {result.Item2:F0} ms");
            Console.WriteLine($"Dispose {result.Item2:F0} ms; dispose and exit {result.Item1 * 1000:F0} ms");
        }

        [Test]
        public void ARuntimeCanStartAgainAfterDispose()
        {
            var result = RunHost("restart");
            Assert.AreEqual(0, result.Item3, "exit code");
            StringAssert.Contains("restarted loss=16", _lastOutput, "a step after the restart (all-ones kernel: loss 4²)");
            StringAssert.Contains("path0=/tmp/tfnet-extra-path", _lastOutput, "ExtraPythonPaths go first on sys.path");
        }

        [Test]
        public void DisposeInsideACallbackIsRefusedAndStopsNothing()
        {
            var result = RunHost("callback-dispose");
            Assert.AreEqual(0, result.Item3, "exit code; output:\n" + _lastOutput);
            StringAssert.Contains("refused=InvalidOperationException\nrefused=InvalidOperationException\n", _lastOutput);
            StringAssert.Contains("after loss=16", _lastOutput, "the runtime still trains after the refused Dispose");
        }

        [Test]
        public void DisposeWhileAFitRunsLetsItsCallbacksReadCurrent()
        {
            var result = RunHost("dispose-during-fit");
            Assert.AreEqual(0, result.Item3, "exit code; output:\n" + _lastOutput);
            StringAssert.DoesNotContain("deadlock", _lastOutput);
            StringAssert.Contains("current=True", _lastOutput, "a callback read PythonRuntime.Current while Dispose waited");
            StringAssert.Contains("disposed during fit: current null=True", _lastOutput);
        }

        [Test]
        public void DisposeWhileACSharpDelegateIsTracedNeitherDeadlocksNorCrashes()
        {
            var result = RunHost("trace-dispose");
            Assert.AreEqual(0, result.Item3, "exit code (3: deadlock)\n" + _lastOutput);
            StringAssert.Contains("disposed while tracing", _lastOutput);
            StringAssert.Contains("traced call: returned", _lastOutput, "the call that was tracing completes (later calls may be refused)");
        }

        [Test]
        public void AnEnumeratorWhoseDisposeThrowsFailsTheReadingCallAndTheHostLivesOn()
        {
            var result = RunHost("stream-dispose-throws");
            Assert.AreEqual(0, result.Item3, "exit code (the producer thread's exception must not end the host)\n" + _lastOutput);
            StringAssert.Contains("stream fit error=TfNetTrainException: ", _lastOutput);
            StringAssert.Contains("InvalidOperationException: the cursor could not be closed", _lastOutput);
            StringAssert.Contains("after loss=16", _lastOutput, "the runtime trains on");
        }

        [Test]
        public void DisposingTheRuntimeWhileAStreamIsReadEndsTheReadingCallWithAnError()
        {
            var result = RunHost("dispose-during-stream");
            Assert.AreEqual(0, result.Item3, "exit code\n" + _lastOutput);
            StringAssert.DoesNotContain("deadlock", _lastOutput);
            StringAssert.DoesNotContain("stream fit finished", _lastOutput, "a fit on part of the data must not end normally");
            StringAssert.Contains("stream fit error=", _lastOutput);
            StringAssert.Contains("shut down", _lastOutput);
        }

        [Test]
        public void ExitingWithoutDisposeIsFastToo()
        {
            var result = RunHost("");
            Assert.AreEqual(0, result.Item3, "exit code");
            Assert.Less(result.Item1, 1.0, "exit without Dispose (s)");
            Console.WriteLine($"exit without Dispose {result.Item1 * 1000:F0} ms");
        }
    }
}
