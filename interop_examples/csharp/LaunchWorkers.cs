// Multi-worker training on one machine, started from C#: runs a command as N MultiWorkerMirroredStrategy workers on
// 127.0.0.1, each with its TF_CONFIG, output prefixed "[worker i] ", all ended when one fails (Launcher.Run).
//
// Run:  make build && mono dotnet/bin/LaunchWorkers.exe --workers 2 [--timeout 600] [--no-netns] -- .venv/bin/python script.py
//
// The exit status is the first failing worker's (0 when all succeed), so a CI job can run this as it is.
using System;
using System.Globalization;
using TfNetTrain;

namespace TfNetTrain.Examples
{
    public static class LaunchWorkers
    {
        public static int Main(string[] args)
        {
            int split = Array.IndexOf(args, "--");
            if (split < 0 || split == args.Length - 1)
            {
                Console.Error.WriteLine("usage: LaunchWorkers.exe --workers N [--timeout S] [--no-netns] -- CMD...");
                return 2;
            }
            var options = new LaunchOptions();
            int workers = 2;
            for (int i = 0; i < split; i++)
            {
                if (args[i] == "--workers" && i + 1 < split) workers = int.Parse(args[++i], CultureInfo.InvariantCulture);
                else if (args[i] == "--timeout" && i + 1 < split)
                    options.Timeout = TimeSpan.FromSeconds(double.Parse(args[++i], CultureInfo.InvariantCulture));
                else if (args[i] == "--no-netns") options.NetworkNamespace = false;
                else
                {
                    Console.Error.WriteLine($"unknown option {args[i]}");
                    return 2;
                }
            }
            var command = new string[args.Length - split - 1];
            Array.Copy(args, split + 1, command, 0, command.Length);
            try
            {
                return Launcher.Run(workers, command, options);
            }
            catch (TfNetTrainException ex)
            {
                Console.Error.WriteLine(ex.Message);
                return 2;
            }
        }
    }
}
