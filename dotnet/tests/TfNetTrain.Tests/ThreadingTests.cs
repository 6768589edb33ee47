using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Threading;
using NUnit.Framework;
using Python.Runtime;

namespace TfNetTrain.Tests
{
    [TestFixture]
    public class ThreadingTests
    {
        [Test]
        [Timeout(300000)]
        public void EightThreadsTimesTwoHundredCallsNeitherDeadlockNorLoseSteps()
        {
            using (var model = ModelParityTests.Classifier())
            {
                ModelParityTests.CompileSgd(model);
                const int threadCount = 8, callsPerThread = 200;
                NDArray x = Data.Uniform(400, 4, 4), y = Data.Labels(401, 4, 3);
                var errors = new ConcurrentQueue<Exception>();
                int trainSteps = 0;
                var start = new ManualResetEventSlim(false);
                var threads = new List<Thread>();
                for (int t = 0; t < threadCount; t++)
                {
                    int id = t;
                    var thread = new Thread(() =>
                    {
                        start.Wait();
                        try
                        {
                            for (int i = 0; i < callsPerThread; i++)
                            {
                                switch ((i + id) % 4)
                                {
                                    case 0:
                                        model.TrainOnBatch(x, y);
                                        Interlocked.Increment(ref trainSteps);
                                        break;
                                    case 1:
                                        Assert.AreEqual(4, model.Predict(x).Dim(0));
                                        break;
                                    case 2:
                                        Assert.GreaterOrEqual(model.TrainCounter, 0L);
                                        break;
                                    default:
                                        Assert.AreEqual(4, model.GetWeights().Count);
                                        break;
                                }
                            }
                        }
                        catch (Exception e)
                        {
                            errors.Enqueue(e);
                        }
                    });
                    thread.Start();
                    threads.Add(thread);
                }
                start.Set();
                foreach (var thread in threads)
                    Assert.IsTrue(thread.Join(TimeSpan.FromSeconds(240)), "a calling thread did not finish: deadlock?");
                Exception first;
                Assert.IsFalse(errors.TryPeek(out first), "errors: " + first);
                Assert.AreEqual(threadCount * callsPerThread / 4, trainSteps);
                Assert.AreEqual((long)trainSteps, model.TrainCounter, "every step counted once");
            }
        }

        private static string IdentAndLocal()
        {
            using (var sys = Py.Import("sys"))
            using (var threading = Py.Import("threading"))
            using (var ident = threading.InvokeMethod("get_ident"))
            using (var local = sys.GetAttr("_bridge_local"))
            using (var value = local.HasAttr("value") ? local.GetAttr("value") : PyObject.None)
            {
                return ident + " " + value;
            }
        }

        [Test]
        public void EveryCallRunsOnTheSamePythonThreadWithItsThreadLocalState()
        {
            var runtime = PythonSetup.Runtime;
            runtime.Run(() => PythonEngine.Exec(
                "import sys, threading\nsys._bridge_local = threading.local()\nsys._bridge_local.value = 43\n"));
            var seen = new ConcurrentBag<string>();
            var threads = new List<Thread>();
            for (int t = 0; t < 4; t++)
            {
                var thread = new Thread(() => seen.Add(runtime.Run(() => IdentAndLocal())));
                thread.Start();
                threads.Add(thread);
            }
            foreach (var thread in threads) thread.Join();
            string mine = runtime.Run(() => IdentAndLocal());
            StringAssert.EndsWith(" 43", mine, "thread-local state survives between calls");
            Assert.AreEqual(4, seen.Count);
            foreach (var s in seen) Assert.AreEqual(mine, s, "same Python thread for every C# thread");
        }
    }
}
