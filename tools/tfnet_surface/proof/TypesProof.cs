// Calls members of the generated TF.NET types from C# and prints each result as JSON, one line per case:
// `case<TAB>json`. proof.py makes the same calls in Python on objects built alike (proof_objects.py) and compares.
// The objects come from Python (a Dense layer, a Sequential model, a tensor, a dataset, a variable) and are wrapped by
// the codec as the generated classes; the cases are TF.NET programs' member calls on them.
using System;
using System.Collections.Generic;
using System.IO;
using Python.Runtime;
using Tensorflow;
using Tensorflow.Keras;
using Tensorflow.Keras.Engine;
using Tensorflow.NumPy;

public static class TypesProof
{
    private static PyObject _describe;
    private static PyObject _objects;

    private static void Print(string name, Func<object> call)
    {
        string json;
        try
        {
            object value = call();
            json = FaceCodec.Run(() =>
            {
                using (PyObject py = FaceCodec.ToPython(value))
                using (PyObject text = _describe.Invoke(py))
                    return text.As<string>();
            });
        }
        catch (Exception e)
        {
            string python = e is TfNetTrain.TfNetTrainException t ? t.PythonType ?? "" : "";
            json = "{\"error\": \"" + e.GetType().Name + "\", \"python\": \"" + python + "\"}";
            Console.Error.WriteLine(name + ": " + e);
        }
        Console.WriteLine(name + "\t" + json);
    }

    // The object proof_objects.<name>() builds, as the codec wraps it for T.
    private static T Make<T>(string name) => FaceCodec.Run(() =>
    {
        using (PyObject maker = _objects.GetAttr(name))
        using (PyObject made = maker.Invoke())
            return FaceCodec.FromPython<T>(made);
    });

    public static int Main(string[] args)
    {
        FaceCodec.Run(() =>
        {
            using (PyObject module = PyModule.FromString("proof_describe", File.ReadAllText(args[0])))
                _describe = module.GetAttr("describe");
            _objects = PyModule.FromString("proof_objects", File.ReadAllText(args[1]));
            return 0;
        });

        Print("Layer.get_weights", () => Make<ILayer>("dense").get_weights());
        Print("Layer.count_params", () => Make<ILayer>("dense").count_params());
        Print("Layer.TrainableVariables.Count", () => Make<ILayer>("dense").TrainableVariables.Count);
        Print("Layer.TrainableVariables[0].numpy", () => Make<ILayer>("dense").TrainableVariables[0].numpy());
        Print("Layer.Weights[1].shape", () => Make<ILayer>("dense").Weights[1].shape);
        Print("Layer.OutputShape", () => Make<ILayer>("dense").OutputShape);
        Print("Layer.Name", () => Make<ILayer>("dense").Name);
        Print("Layer.Trainable", () => Make<ILayer>("dense").Trainable);
        Print("Layer.Built", () => Make<ILayer>("dense").Built);
        Print("Layer.DType", () => Make<ILayer>("dense").DType);
        Print("Layer.set_weights", () =>
        {
            ILayer layer = Make<ILayer>("dense");
            layer.set_weights(Make<ILayer>("other").get_weights());
            return layer.get_weights();
        });

        Print("Model.Layers.Count", () => Make<IModel>("model").Layers.Count);
        Print("Model.Layers[0].count_params", () => Make<IModel>("model").Layers[0].count_params());
        Print("Model.Layers[1].OutputShape", () => Make<IModel>("model").Layers[1].OutputShape);
        Print("Model.Layers[0].get_weights", () => Make<IModel>("model").Layers[0].get_weights());
        Print("Model.count_params", () => Make<IModel>("model").count_params());
        Print("Model.TrainableVariables.Count", () => Make<IModel>("model").TrainableVariables.Count);
        Print("Model.Optimizer", () => Make<Sequential>("model").Optimizer);
        Print("Model.Stop_training", () => Make<IModel>("model").Stop_training);
        Print("Model.metrics.Count", () => new List<Tensorflow.Keras.Metrics.IMetricFunc>(Make<Sequential>("model").metrics).Count);

        Print("Tensor.shape", () => Make<Tensor>("tensor").shape);
        Print("Tensor.dtype", () => Make<Tensor>("tensor").dtype);
        Print("Tensor.numpy", () => Make<Tensor>("tensor").numpy());
        Print("Tensor.ndim", () => Make<Tensor>("tensor").ndim);
        Print("Tensor.rank", () => Make<Tensor>("tensor").rank);
        Print("Tensor.size", () => (long)Make<Tensor>("tensor").size);
        Print("Tensor.dims", () => Make<Tensor>("tensor").dims);
        Print("Tensor.dtypesize", () => (long)Make<Tensor>("ints").dtypesize);
        Print("Tensor.Device", () => Make<Tensor>("tensor").Device);
        Print("Tensor.ToString", () => Make<Tensor>("tensor").ToString());

        Print("NDArray.shape", () => Make<NDArray>("array").shape);
        Print("NDArray.reshape", () => Make<NDArray>("array").reshape(Make<Shape>("three_by_two")));
        Print("NDArray.astype", () => Make<NDArray>("array").astype(TF_DataType.TF_INT32));
        Print("NDArray.ravel", () => Make<NDArray>("array").ravel());

        Shape shape = Make<Tensor>("tensor").shape;
        Shape open = Make<Shape>("open_shape");
        Print("Shape.ndim", () => shape.ndim);
        Print("Shape.IsFullyDefined", () => shape.IsFullyDefined);
        Print("Shape.size", () => shape.size);
        Print("Shape.is_compatible_with", () => shape.is_compatible_with(open));
        Print("Shape.merge_with", () => shape.merge_with(open));
        Print("Shape.concatenate", () => shape.concatenate(new long[] { 5 }));
        Print("Shape.with_rank_at_least", () => shape.with_rank_at_least(1));
        Print("Shape.with_rank.wrong", () => shape.with_rank(3));
        Print("Shape.ToString", () => shape.ToString());

        IDatasetV2 ds = Make<IDatasetV2>("dataset");
        Print("Dataset.cardinality", () => ds.cardinality());
        Print("Dataset.batch.cardinality", () => ds.batch(3).cardinality());
        Print("Dataset.batch.drop_remainder.cardinality", () => ds.batch(3, drop_remainder: true).cardinality());
        Print("Dataset.take.cardinality", () => ds.take(4).cardinality());
        Print("Dataset.skip.cardinality", () => ds.skip(2).cardinality());
        Print("Dataset.repeat.cardinality", () => ds.repeat(2).cardinality());
        Print("Dataset.repeat.forever.cardinality", () => ds.repeat().cardinality());
        Print("Dataset.shuffle.take.cardinality", () => ds.shuffle(4, seed: 1).take(3).cardinality());
        Print("Dataset.concatenate.cardinality", () => ds.concatenate(ds.take(2)).cardinality());
        Print("Dataset.prefetch.cardinality", () => ds.prefetch().cardinality());

        Print("Variable.numpy", () => Make<IVariableV1>("variable").numpy());
        Print("Variable.assign_add", () =>
        {
            IVariableV1 v = Make<IVariableV1>("variable");
            v.assign_add(Make<Tensor>("delta"));
            return v.numpy();
        });
        Print("Variable.shape", () => Make<IVariableV1>("variable").shape);
        Print("Variable.dtype", () => Make<IVariableV1>("variable").dtype);
        Print("Variable.Trainable", () => Make<IVariableV1>("variable").Trainable);
        Print("Variable.Name", () => Make<IVariableV1>("variable").Name);

        Tensor t = Make<Tensor>("tensor");
        Tensor ints = Make<Tensor>("ints");
        Print("Tensor.op_Addition", () => t + t);
        Print("Tensor.op_Multiply.float", () => t * 2f);
        Print("Tensor.op_Subtraction.int.left", () => 3 - t);
        Print("Tensor.op_Division.int", () => ints / 2);
        Print("Tensor.op_Modulus.long", () => ints % 4L);
        Print("Tensor.op_GreaterThan.float", () => t > 2.5f);
        Print("Tensor.op_LessThanOrEqual.double", () => t <= 2.0);
        Print("Tensor.op_UnaryNegation", () => -t);
        Print("ResourceVariable.op_Addition.float", () => Make<ResourceVariable>("variable") + 1f);
        Print("NDArray.op_Addition", () => Make<NDArray>("array") + Make<NDArray>("array"));

        Print("TF_DataType.is_floating", () => TF_DataType.TF_FLOAT.is_floating());
        Print("TF_DataType.is_integer", () => TF_DataType.TF_INT32.is_integer());
        Print("TF_DataType.is_complex", () => TF_DataType.TF_COMPLEX64.is_complex());
        Print("TF_DataType.is_unsigned", () => TF_DataType.TF_UINT8.is_unsigned());
        Print("TF_DataType.is_bool", () => TF_DataType.TF_BOOL.is_bool());
        Print("TF_DataType.min", () => TF_DataType.TF_INT8.min());
        Print("TF_DataType.max", () => TF_DataType.TF_INT16.max());
        Print("TF_DataType.get_datatype_size", () => TF_DataType.TF_DOUBLE.get_datatype_size());
        Print("TF_DataType.as_numpy_name", () => TF_DataType.TF_FLOAT.as_numpy_name());
        Print("TF_DataType.name", () => TF_DataType.TF_INT64.name());
        Print("TF_DataType.as_base_dtype", () => TF_DataType.TF_INT32.as_base_dtype());
        Print("TF_DataType.real_dtype", () => TF_DataType.TF_COMPLEX64.real_dtype());
        Print("TF_DataType.is_compatible_with", () => TF_DataType.TF_FLOAT.is_compatible_with(TF_DataType.TF_DOUBLE));
        return 0;
    }
}
