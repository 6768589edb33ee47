using System.Collections.Generic;
using Python.Runtime;

namespace TfNetTrain.Demo
{
    /// <summary>The curves of the demo's fit (loss and accuracy per epoch, train and validation) as a PNG.</summary>
    public static class TrainingCurves
    {
        /// <summary>Draws <paramref name="history"/> into <paramref name="reportDirectory"/>/training_curves.png
        /// (tfnet_train.demo.write_training_curves) and returns the file's path.</summary>
        public static string Write(PythonRuntime python, History history, string reportDirectory)
        {
            return python.Run(() =>
            {
                using (var demo = Py.Import("tfnet_train.demo"))
                using (var values = new PyDict())
                using (var folder = System.IO.Path.GetFullPath(reportDirectory).ToPython())
                {
                    foreach (KeyValuePair<string, IList<float>> pair in history.Values)
                    {
                        using (var list = new PyList())
                        {
                            foreach (float v in pair.Value)
                            {
                                using (var item = new PyFloat(v)) list.Append(item);
                            }
                            values[pair.Key] = list;
                        }
                    }
                    using (var path = demo.InvokeMethod("write_training_curves", values, folder))
                    {
                        return path.As<string>();
                    }
                }
            });
        }
    }
}
