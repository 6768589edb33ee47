using NUnit.Framework;

namespace TfNetTrain.Tests
{
    /// <summary>One Python runtime for the whole test assembly (started once, disposed at the end).</summary>
    [SetUpFixture]
    public class PythonSetup
    {
        /// <summary>The shared runtime.</summary>
        public static PythonRuntime Runtime { get; private set; }

        [SetUp]
        public void StartPython()
        {
            Runtime = PythonRuntime.Start();
        }

        [TearDown]
        public void StopPython()
        {
            Runtime?.Dispose();
            Runtime = null;
        }
    }
}
