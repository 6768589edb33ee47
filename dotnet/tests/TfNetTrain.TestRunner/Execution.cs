using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Threading;

namespace TfNetTrain.TestRunner
{
    public enum Outcome { Passed, Failed, Skipped }

    public sealed class TestResult
    {
        public TestResult(string name, Outcome outcome, string message, double milliseconds)
        {
            Name = name;
            Outcome = outcome;
            Message = message;
            Milliseconds = milliseconds;
        }

        public string Name { get; }
        public Outcome Outcome { get; }
        public string Message { get; }
        public double Milliseconds { get; }
    }

    /// <summary>Runs a <see cref="TestPlan"/> the way NUnit 2.6 does: one fixture instance for all its cases,
    /// [TestFixtureSetUp]/[TestFixtureTearDown] once per fixture, [SetUp]/[TearDown] around every case, [TearDown]
    /// even after a failure, and [Timeout] cases on a thread of their own.</summary>
    public sealed class Execution
    {
        private readonly TextWriter _log;
        private readonly List<TestResult> _results = new List<TestResult>();

        public Execution(TextWriter log)
        {
            _log = log;
        }

        public List<TestResult> Run(TestPlan plan)
        {
            var scoped = plan.SetUpFixtures.Where(s => plan.Fixtures.Any(f => InNamespace(f.Type, s.Type.Namespace))).ToList();
            var started = new List<Tuple<Fixture, object>>();
            string setUpError = null;
            foreach (Fixture setUp in scoped)
            {
                object instance = null;
                setUpError = Invoke(() => instance = Activator.CreateInstance(setUp.Type))
                             ?? InvokeAll(setUp.FixtureSetUp, instance);
                started.Add(Tuple.Create(setUp, instance));
                if (setUpError != null)
                {
                    setUpError = $"[SetUpFixture] {setUp.Type.FullName} failed: {setUpError}";
                    break;
                }
            }
            foreach (Fixture fixture in plan.Fixtures)
            {
                if (setUpError != null) FailAll(fixture, setUpError);
                else RunFixture(fixture);
            }
            for (int i = started.Count - 1; i >= 0; i--)
            {
                string error = InvokeAll(started[i].Item1.FixtureTearDown, started[i].Item2);
                if (error != null) Report(new TestResult(started[i].Item1.Type.FullName + ".(SetUpFixture tear-down)", Outcome.Failed, error, 0));
            }
            return _results;
        }

        private static bool InNamespace(Type type, string ns) =>
            string.IsNullOrEmpty(ns) || type.Namespace == ns || (type.Namespace ?? "").StartsWith(ns + ".", StringComparison.Ordinal);

        private void RunFixture(Fixture fixture)
        {
            object instance = null;
            string error = Invoke(() => instance = Activator.CreateInstance(fixture.Type))
                           ?? InvokeAll(fixture.FixtureSetUp, instance);
            if (error != null)
            {
                FailAll(fixture, "[TestFixtureSetUp] failed: " + error);
            }
            else
            {
                foreach (TestCase test in fixture.Cases) Report(RunCase(fixture, instance, test));
            }
            if (instance == null) return;
            string tearDown = InvokeAll(fixture.FixtureTearDown, instance);
            if (tearDown != null) Report(new TestResult(fixture.Type.FullName + ".(TestFixtureTearDown)", Outcome.Failed, tearDown, 0));
        }

        private TestResult RunCase(Fixture fixture, object instance, TestCase test)
        {
            if (test.Unsupported != null) return new TestResult(test.FullName, Outcome.Failed, test.Unsupported, 0);
            if (test.SkipReason != null) return new TestResult(test.FullName, Outcome.Skipped, test.SkipReason, 0);
            var clock = Stopwatch.StartNew();
            string error = InvokeAll(fixture.SetUp, instance);
            Outcome outcome = Outcome.Failed;
            if (error == null)
            {
                Exception thrown = test.TimeoutMs > 0 ? RunWithTimeout(test, instance) : Catch(() => test.Method.Invoke(instance, test.Arguments));
                outcome = Classify(thrown);
                error = thrown == null ? null : Describe(thrown);
                string tearDown = InvokeAll(fixture.TearDown, instance);
                if (tearDown != null)
                {
                    outcome = Outcome.Failed;
                    error = (error == null ? "" : error + "\n") + "[TearDown] failed: " + tearDown;
                }
            }
            else
            {
                error = "[SetUp] failed: " + error;
            }
            return new TestResult(test.FullName, outcome, error, clock.Elapsed.TotalMilliseconds);
        }

        /// <summary>Runs the case on its own thread; past the timeout the thread is left behind (CoreCLR cannot abort
        /// it) and the case fails.</summary>
        private static Exception RunWithTimeout(TestCase test, object instance)
        {
            Exception thrown = null;
            var thread = new Thread(() => thrown = Catch(() => test.Method.Invoke(instance, test.Arguments))) { IsBackground = true };
            thread.Start();
            if (thread.Join(test.TimeoutMs)) return thrown;
            return new TimeoutException($"Test exceeded Timeout value of {test.TimeoutMs}ms");
        }

        private void FailAll(Fixture fixture, string error)
        {
            foreach (TestCase test in fixture.Cases) Report(new TestResult(test.FullName, Outcome.Failed, error, 0));
        }

        private void Report(TestResult result)
        {
            _results.Add(result);
            string tag = result.Outcome == Outcome.Passed ? "PASS" : result.Outcome == Outcome.Failed ? "FAIL" : "SKIP";
            _log.WriteLine($"{tag} {result.Name} ({result.Milliseconds:F0} ms)");
            if (result.Message != null && result.Outcome != Outcome.Passed)
                foreach (string line in result.Message.Split('\n')) _log.WriteLine("    " + line.TrimEnd('\r'));
            _log.Flush();
        }

        private static string InvokeAll(List<MethodInfo> methods, object instance)
        {
            foreach (MethodInfo method in methods)
            {
                string error = Invoke(() => method.Invoke(method.IsStatic ? null : instance, null));
                if (error != null) return $"{method.DeclaringType.FullName}.{method.Name}: {error}";
            }
            return null;
        }

        private static string Invoke(Action action)
        {
            Exception thrown = Catch(action);
            return thrown == null || Classify(thrown) == Outcome.Passed ? null : Describe(thrown);
        }

        private static Exception Catch(Action action)
        {
            try
            {
                action();
                return null;
            }
            catch (TargetInvocationException e) when (e.InnerException != null)
            {
                return e.InnerException;
            }
            catch (Exception e)
            {
                return e;
            }
        }

        /// <summary>NUnit's own exceptions by name: Assert.Pass succeeds, Assert.Ignore and Assert.Inconclusive skip,
        /// a failed assertion and any other exception fail.</summary>
        private static Outcome Classify(Exception thrown)
        {
            if (thrown == null) return Outcome.Passed;
            switch (thrown.GetType().FullName)
            {
                case "NUnit.Framework.SuccessException": return Outcome.Passed;
                case "NUnit.Framework.IgnoreException":
                case "NUnit.Framework.InconclusiveException": return Outcome.Skipped;
                default: return Outcome.Failed;
            }
        }

        private static string Describe(Exception thrown)
        {
            if (thrown.GetType().FullName == "NUnit.Framework.AssertionException") return thrown.Message.TrimEnd() + "\n" + thrown.StackTrace;
            return thrown.GetType().FullName + ": " + thrown.Message + "\n" + thrown.StackTrace;
        }
    }
}
