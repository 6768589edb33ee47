using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using TfNetTrain.Reference;

namespace TfNetTrain.Conformance
{
    /// <summary>Writes a conformance case as <c>&lt;name&gt;.json</c> plus <c>&lt;name&gt;.npz</c> (docs/conformance.md).</summary>
    public static class CaseWriter
    {
        /// <summary>The case's JSON document (schema <c>tfnet-train/case@1</c>); the tolerance only when the case states one.</summary>
        public static JsonObject ToJson(ConformanceCase conformanceCase)
        {
            if (conformanceCase == null) throw new ArgumentNullException(nameof(conformanceCase));
            ConformanceCase c = conformanceCase;
            var doc = new JsonObject { { "schema", ConformanceCase.SchemaId }, { "name", c.Name } };
            if (!string.IsNullOrEmpty(c.Description)) doc.Add("description", c.Description);
            doc.Add("semantics", CaseNames.Of(c.Semantics));
            doc.Add("model", new JsonObject
            {
                { "input_shape", new[] { c.InputSize } },
                { "layers", c.Layers.Select(LayerJson).ToList() },
            });
            var loss = new JsonObject { { "name", c.Loss.AsString ? c.Loss.Name : CaseNames.Of(c.Loss.Kind) }, { "from_logits", c.Loss.FromLogits } };
            if (c.Loss.AsString) loss.Add("as_string", true);
            doc.Add("loss", loss);
            doc.Add("metrics", c.Metrics.ToList());
            var optimizer = new JsonObject();
            if (c.Optimizer.AsString)
            {
                optimizer.Add("name", c.Optimizer.Name);
                optimizer.Add("as_string", true);
            }
            else
            {
                optimizer.Add("name", CaseNames.Of(c.Optimizer.Kind));
                foreach (var parameter in OptimizerParameters.Of(c.Optimizer)) optimizer.Add(parameter.Key, parameter.Value);
            }
            doc.Add("optimizer", optimizer);
            doc.Add("batch_size", c.BatchSize);
            doc.Add("steps", c.Steps);
            if (c.Rtol.HasValue || c.Atol.HasValue)
            {
                var tolerance = new JsonObject();
                if (c.Rtol.HasValue) tolerance.Add("rtol", c.Rtol.Value);
                if (c.Atol.HasValue) tolerance.Add("atol", c.Atol.Value);
                doc.Add("tolerance", tolerance);
            }
            return doc;
        }

        private static JsonObject LayerJson(Reference.LayerSpec layer)
        {
            var doc = new JsonObject
            {
                { "type", "Dense" }, { "units", layer.Units }, { "activation", CaseNames.Of(layer.Activation) }, { "use_bias", layer.UseBias },
            };
            if (layer.KernelL2.HasValue) doc.Add("kernel_regularizer", new JsonObject { { "l2", layer.KernelL2.Value } });
            return doc;
        }

        /// <summary>The case's arrays under their .npz keys: weights/0.., x, y and sample_weight when present.</summary>
        public static List<KeyValuePair<string, NpyArray>> Arrays(ConformanceCase conformanceCase)
        {
            if (conformanceCase == null) throw new ArgumentNullException(nameof(conformanceCase));
            var arrays = new List<KeyValuePair<string, NpyArray>>();
            for (int i = 0; i < conformanceCase.Weights.Count; i++)
                arrays.Add(new KeyValuePair<string, NpyArray>("weights/" + i, conformanceCase.Weights[i]));
            arrays.Add(new KeyValuePair<string, NpyArray>("x", conformanceCase.X));
            arrays.Add(new KeyValuePair<string, NpyArray>("y", conformanceCase.Y));
            if (conformanceCase.SampleWeight != null)
                arrays.Add(new KeyValuePair<string, NpyArray>("sample_weight", conformanceCase.SampleWeight));
            return arrays;
        }

        /// <summary>
        /// Validates the case, then writes <c>&lt;directory&gt;/&lt;name&gt;.json</c> and <c>.npz</c> (replacing existing
        /// files) and returns the JSON path.
        /// </summary>
        /// <exception cref="CaseFormatException">The case does not follow the schema (nothing is written).</exception>
        public static string Save(ConformanceCase conformanceCase, string directory)
        {
            if (conformanceCase == null) throw new ArgumentNullException(nameof(conformanceCase));
            if (directory == null) throw new ArgumentNullException(nameof(directory));
            conformanceCase.Validate();
            JsonObject doc = ToJson(conformanceCase);
            ConformanceCase.ParseSpec(JsonWriter.Serialize(doc)); // the document written must read back
            Directory.CreateDirectory(directory);
            string jsonPath = Path.Combine(directory, conformanceCase.Name + ".json");
            JsonWriter.WriteFile(jsonPath, doc);
            Npz.Save(Path.ChangeExtension(jsonPath, ".npz"), Arrays(conformanceCase));
            return jsonPath;
        }
    }
}
