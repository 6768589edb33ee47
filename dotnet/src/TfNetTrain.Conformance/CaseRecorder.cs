using System;
using Python.Runtime;
using TfNetTrain.Reference;

namespace TfNetTrain.Conformance
{
    /// <summary>
    /// Turns a live bridged model and its data into a conformance case, so a training that misbehaves can be replayed
    /// by every implementation (the Python engine, Keras 3, the NumPy and C# references) and compared stage by stage.
    /// One call to Python's <c>tfnet_train.conformance.record.record</c>, which owns every check.
    /// </summary>
    public static class CaseRecorder
    {
        /// <summary>
        /// Writes <c>&lt;path&gt;.json</c> and <c>.npz</c> (a trailing ".json" on <paramref name="path"/> is optional; the
        /// file name is the case name): the model's layers, loss, metrics, optimizer and semantics profile, its current
        /// weights, and <paramref name="steps"/> steps of <paramref name="batchSize"/> rows of the data. Returns the
        /// case as read back from the files. A model that is not a stack of plain Dense layers on rank-1 inputs (a conv
        /// net, an LSTM, ...) is written as its Keras architecture config with every weight; the returned case then
        /// names the layer the C# reference does not implement in <see cref="ConformanceCase.UnsupportedLayer"/>.
        /// </summary>
        /// <param name="model">A compiled bridged Sequential or Functional model whose optimizer has not stepped.</param>
        /// <param name="x">Inputs (N, ...); stored as float32.</param>
        /// <param name="y">Targets (N,) or (N, k); stored as float32 (integer labels stay integers for sparse categorical cross-entropy).</param>
        /// <param name="steps">Training steps the case runs (at least 1).</param>
        /// <param name="batchSize">Rows per step (at least 1); step i trains on rows [i*batchSize, (i+1)*batchSize).</param>
        /// <param name="path">Where to write, e.g. "cases/my_failure" or "cases/my_failure.json".</param>
        /// <param name="sampleWeight">Per-sample weights (N,) or null.</param>
        /// <exception cref="TfNetTrainArgumentException">The model or data cannot be expressed as a case (the message names what and why).</exception>
        public static ConformanceCase Record(Model model, NDArray x, NDArray y, int steps, int batchSize, string path,
                                             NDArray sampleWeight = null)
        {
            if (model == null) throw new ArgumentNullException(nameof(model));
            if (x == null) throw new ArgumentNullException(nameof(x));
            if (y == null) throw new ArgumentNullException(nameof(y));
            if (path == null) throw new ArgumentNullException(nameof(path));
            string written = model.Runtime.Run(() =>
            {
                using (var module = Py.Import("tfnet_train.conformance.record"))
                using (var record = module.GetAttr("record"))
                using (PyObject px = x.ToPython(), py = y.ToPython(), psw = sampleWeight == null ? PyObject.None : sampleWeight.ToPython())
                using (PyObject pSteps = steps.ToPython(), pBatch = batchSize.ToPython(), pPath = path.ToPython())
                using (var args = new PyTuple(new[] { model.PythonObject, px, py, pSteps, pPath }))
                using (var kwargs = new PyDict())
                {
                    kwargs.SetItem("sample_weight", psw);
                    kwargs.SetItem("batch_size", pBatch);
                    using (var recorded = record.Invoke(args, kwargs))
                    using (var jsonPath = recorded.GetAttr("path"))
                    {
                        return jsonPath.ToString();
                    }
                }
            });
            return ConformanceCase.Load(written);
        }
    }
}
