using System.Collections.ObjectModel;
using System.Globalization;
using System.Management.Automation;
using System.Management.Automation.Host;
using System.Security;

namespace Toolpack.PwshEngine;

// A console host for scripts that run unattended: output to stdout, errors to stderr, no
// prompts. It records `exit N` at the top level (SetShouldExit) for the process's exit code.
internal sealed class EngineHost : PSHost
{
    private readonly EngineHostUserInterface _ui = new();

    public bool ShouldExit { get; private set; }
    public int ExitCode { get; private set; }

    public override string Name => EngineIdentity.HostName;
    public override Version Version { get; } = typeof(PSObject).Assembly.GetName().Version ?? new Version(7, 6);
    public override Guid InstanceId { get; } = Guid.NewGuid();
    public override PSHostUserInterface UI => _ui;
    public override CultureInfo CurrentCulture => CultureInfo.CurrentCulture;
    public override CultureInfo CurrentUICulture => CultureInfo.CurrentUICulture;

    public override void SetShouldExit(int exitCode)
    {
        ShouldExit = true;
        ExitCode = exitCode;
    }

    public override void EnterNestedPrompt() => throw NonInteractive("a nested prompt");
    public override void ExitNestedPrompt() => throw NonInteractive("a nested prompt");
    public override void NotifyBeginApplication() { }
    public override void NotifyEndApplication() { }

    internal static PSInvalidOperationException NonInteractive(string what) =>
        new($"{what} needs an interactive host; this engine runs scripts unattended (-NonInteractive).");
}

internal sealed class EngineHostUserInterface : PSHostUserInterface
{
    private readonly TextWriter _out = Console.Out;
    private readonly TextWriter _error = Console.Error;
    private readonly bool _plain = Console.IsOutputRedirected;

    // The formatter colours table headers whatever the host says; pwsh's console host takes the
    // escapes out again when its output is a file or a pipe, and so does this one.
    private static readonly System.Text.RegularExpressions.Regex Escapes =
        new(@"\u001b\[[0-9;?]*[ -/]*[@-~]", System.Text.RegularExpressions.RegexOptions.Compiled);

    private string Plain(string value) => _plain && value.Contains('\u001b') ? Escapes.Replace(value, "") : value;

    public override PSHostRawUserInterface? RawUI => null;

    public override void Write(string value) => _out.Write(Plain(value));
    public override void Write(ConsoleColor foregroundColor, ConsoleColor backgroundColor, string value) => _out.Write(Plain(value));
    public override void WriteLine(string value) => _out.WriteLine(Plain(value));
    public override void WriteErrorLine(string value) => _error.WriteLine(Plain(value));
    public override void WriteDebugLine(string message) => _out.WriteLine($"DEBUG: {message}");
    public override void WriteVerboseLine(string message) => _out.WriteLine($"VERBOSE: {message}");
    public override void WriteWarningLine(string message) => _out.WriteLine($"WARNING: {message}");
    public override void WriteInformation(InformationRecord record) { }
    public override void WriteProgress(long sourceId, ProgressRecord record) { }

    public override string ReadLine() => Console.In.ReadLine() ?? "";
    public override SecureString ReadLineAsSecureString() => throw EngineHost.NonInteractive("reading a secret");
    public override Dictionary<string, PSObject> Prompt(string caption, string message, Collection<FieldDescription> descriptions) =>
        throw EngineHost.NonInteractive("a prompt");
    public override int PromptForChoice(string caption, string message, Collection<ChoiceDescription> choices, int defaultChoice) =>
        throw EngineHost.NonInteractive("a choice prompt");
    public override PSCredential PromptForCredential(string caption, string message, string userName, string targetName) =>
        throw EngineHost.NonInteractive("a credential prompt");
    public override PSCredential PromptForCredential(string caption, string message, string userName, string targetName,
        PSCredentialTypes allowedCredentialTypes, PSCredentialUIOptions options) =>
        throw EngineHost.NonInteractive("a credential prompt");
}
