using System;
using System.IO;
using NUnit.Framework;

namespace TfNetTrain.Tests
{
    /// <summary>Launcher.Run from C#: the Python it starts imports nothing from the current directory.</summary>
    [TestFixture]
    public class LauncherTests
    {
        [Test]
        public void AJsonPyInTheCurrentDirectoryIsNotRun()
        {
            string folder = Path.Combine(Path.GetTempPath(), "tfnet_launcher_" + Guid.NewGuid().ToString("N"));
            Directory.CreateDirectory(folder);
            // The launcher imports json; a json.py found first would leave this marker and end it with status 98.
            File.WriteAllText(Path.Combine(folder, "json.py"),
                              "import os\nopen(os.path.join(os.getcwd(), 'ran-json'), 'w').close()\nraise SystemExit(98)\n");
            string saved = Environment.CurrentDirectory;
            var output = new StringWriter();
            var error = new StringWriter();
            try
            {
                Environment.CurrentDirectory = folder;
                int status = Launcher.Run(1, new[] { "true" }, new LaunchOptions
                {
                    NetworkNamespace = false, Timeout = TimeSpan.FromSeconds(60), Output = output, Error = error,
                });
                Assert.IsFalse(File.Exists(Path.Combine(folder, "ran-json")), error.ToString());
                Assert.AreEqual(0, status, error.ToString());
                StringAssert.Contains("[launcher] started 1 workers", error.ToString());
            }
            finally
            {
                Environment.CurrentDirectory = saved;
                Directory.Delete(folder, true);
            }
        }
    }
}
