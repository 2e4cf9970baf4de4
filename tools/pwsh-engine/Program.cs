// A pwsh-compatible command line on the PowerShell engine package alone, so that CI runs every
// PowerShell test on machines where the PowerShell tool cannot be installed. Test
// infrastructure: Toolpack never ships it. README.md beside this file lists what it accepts and
// where it knowingly differs from pwsh.
using System.Collections.ObjectModel;
using System.Management.Automation;
using System.Management.Automation.Runspaces;
using System.Text;

namespace Toolpack.PwshEngine;

internal static class Program
{
    private static int Main(string[] argv)
    {
        var utf8 = new UTF8Encoding(encoderShouldEmitUTF8Identifier: false);
        Console.OutputEncoding = utf8;
        Console.InputEncoding = utf8;

        CommandLine line;
        try
        {
            line = CommandLine.Parse(argv);
        }
        catch (ArgumentException error)
        {
            Console.Error.WriteLine($"pwsh-engine: {error.Message}");
            Console.Error.WriteLine(CommandLine.Usage);
            return ExitCodes.BadCommandLine;
        }

        if (line.ShowVersion)
        {
            Console.Out.WriteLine($"PowerShell {EngineIdentity.EngineVersion} ({EngineIdentity.Description})");
            return 0;
        }
        if (line.ShowHelp)
        {
            Console.Out.WriteLine(CommandLine.Usage);
            return 0;
        }

        var host = new EngineHost();
        var state = InitialSessionState.CreateDefault2();
        // Execution policy exists only on Windows; elsewhere setting it throws.
        if (OperatingSystem.IsWindows()) state.ExecutionPolicy = Microsoft.PowerShell.ExecutionPolicy.Bypass;
        state.ThreadOptions = PSThreadOptions.UseCurrentThread;

        using var runspace = RunspaceFactory.CreateRunspace(host, state);
        runspace.Open();
        EngineIdentity.Publish(runspace);
        // pwsh writes no colour escapes into a file or a pipe; neither does this engine.
        if (Console.IsOutputRedirected) PSStyle.Instance.OutputRendering = OutputRendering.PlainText;

        return line.Mode switch
        {
            RunMode.File => RunFile(runspace, host, line),
            RunMode.Command => RunCommand(runspace, host, line.CommandText ?? ""),
            _ => RunCommand(runspace, host, Console.In.ReadToEnd()),
        };
    }

    // pwsh -File: the script runs in a scope of its own with the arguments bound as a command
    // line binds them; its exit code is what `exit N` said, 1 after a terminating error, else 0.
    private static int RunFile(Runspace runspace, EngineHost host, CommandLine line)
    {
        var path = Path.GetFullPath(line.FilePath!);
        if (!File.Exists(path))
        {
            Console.Error.WriteLine(
                $"The argument '{line.FilePath}' is not recognized as the name of a script file. Check the spelling of the name, or if a path was included, verify that the path is correct and try again.");
            return ExitCodes.BadCommandLine;
        }

        using var shell = PowerShell.Create(runspace);
        var command = new Command(path, isScript: false, useLocalScope: true);
        foreach (var parameter in FileArguments.Bind(line.FileArguments, DeclaredParameters(runspace, path)))
        {
            command.Parameters.Add(parameter);
        }
        command.MergeMyResults(PipelineResultTypes.Error, PipelineResultTypes.Output);
        shell.Commands.AddCommand(command);
        shell.AddCommand("Out-Default");

        // `exit N` inside a script sets $LASTEXITCODE as it unwinds; clear it first so a value
        // left by a profile or the engine's start cannot be mistaken for the script's.
        runspace.SessionStateProxy.SetVariable("LASTEXITCODE", null);
        if (!Invoke(shell, host)) return host.ShouldExit ? host.ExitCode : 1;
        if (host.ShouldExit) return host.ExitCode;
        return runspace.SessionStateProxy.GetVariable("LASTEXITCODE") is int code ? code : 0;
    }

    private static IDictionary<string, ParameterMetadata> DeclaredParameters(Runspace runspace, string path)
    {
        try
        {
            var script = runspace.SessionStateProxy.InvokeCommand.GetCommand(path, CommandTypes.ExternalScript);
            return script?.Parameters ?? new Dictionary<string, ParameterMetadata>();
        }
        catch (Exception error) when (error is RuntimeException or IOException)
        {
            // A script that does not parse: the invocation reports the parse error itself.
            return new Dictionary<string, ParameterMetadata>();
        }
    }

    // pwsh -Command: the text runs at the top level; `exit N` ends the process with N, a
    // terminating error with 1. (pwsh also exits with 1 when the last command merely set $?
    // to false; this engine cannot see $? after the pipeline and exits with 0 then.)
    private static int RunCommand(Runspace runspace, EngineHost host, string text)
    {
        using var shell = PowerShell.Create(runspace);
        shell.AddScript(text, useLocalScope: false);
        shell.Commands.Commands[0].MergeMyResults(PipelineResultTypes.Error, PipelineResultTypes.Output);
        shell.AddCommand("Out-Default");
        var completed = Invoke(shell, host);
        if (host.ShouldExit) return host.ExitCode;
        if (!completed) return 1;
        return 0;
    }

    private static bool Invoke(PowerShell shell, EngineHost host)
    {
        try
        {
            shell.Invoke();
            return true;
        }
        catch (RuntimeException error) when (host.ShouldExit && error is PipelineStoppedException)
        {
            return true;
        }
        catch (RuntimeException error)
        {
            host.UI.WriteErrorLine(ErrorText.Describe(error.ErrorRecord));
            return false;
        }
    }
}

internal static class ExitCodes
{
    // The codes pwsh itself uses for a bad command line.
    public const int BadCommandLine = 64;
}

internal static class ErrorText
{
    // pwsh's "concise" view: where, then what. Enough for a person and for tests that look for
    // the script path and line.
    public static string Describe(ErrorRecord record)
    {
        var text = new StringBuilder();
        var position = record.InvocationInfo?.PositionMessage;
        if (!string.IsNullOrWhiteSpace(position))
        {
            text.AppendLine(position);
        }
        text.Append(record.ErrorDetails?.Message ?? record.Exception?.Message ?? record.ToString());
        return text.ToString();
    }
}
