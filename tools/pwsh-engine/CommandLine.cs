using System.Text;

namespace Toolpack.PwshEngine;

internal enum RunMode { File, Command, StandardInput }

// The part of pwsh's command line that Toolpack, its tests and its benchmarks use. Names are
// case-insensitive and may be shortened to any unambiguous prefix, as pwsh allows.
internal sealed class CommandLine
{
    public const string Usage =
        "usage: pwsh [-NoLogo] [-NoProfile] [-NonInteractive] [-ExecutionPolicy <policy>]\n" +
        "            [-WorkingDirectory <dir>] (-File <path> [args...] | -Command <text...> | -Command - | -EncodedCommand <base64>)\n" +
        "       pwsh -Version";

    public RunMode Mode { get; private set; } = RunMode.StandardInput;
    public string? FilePath { get; private set; }
    public IReadOnlyList<string> FileArguments { get; private set; } = [];
    public string? CommandText { get; private set; }
    public bool ShowVersion { get; private set; }
    public bool ShowHelp { get; private set; }

    private static readonly string[] Switches = ["NoLogo", "NoProfile", "NonInteractive", "Interactive", "Login", "MTA", "STA"];
    private static readonly string[] Valued = ["ExecutionPolicy", "OutputFormat", "InputFormat", "WindowStyle", "WorkingDirectory", "ConfigurationName", "SettingsFile"];
    private static readonly string[] Terminal = ["File", "Command", "EncodedCommand", "Version", "Help"];
    private static readonly Dictionary<string, string> Aliases = new(StringComparer.OrdinalIgnoreCase)
    {
        ["f"] = "File", ["c"] = "Command", ["e"] = "EncodedCommand", ["ec"] = "EncodedCommand",
        ["ep"] = "ExecutionPolicy", ["ex"] = "ExecutionPolicy", ["v"] = "Version", ["h"] = "Help",
        ["?"] = "Help", ["wd"] = "WorkingDirectory", ["o"] = "OutputFormat", ["if"] = "InputFormat",
    };

    public static CommandLine Parse(IReadOnlyList<string> argv)
    {
        var line = new CommandLine();
        for (var i = 0; i < argv.Count; i++)
        {
            var arg = argv[i];
            if (!IsParameter(arg))
            {
                // pwsh takes a first bare argument for the script file.
                line.UseFile(arg, argv.Skip(i + 1));
                return line;
            }
            var name = Resolve(arg.TrimStart('-', '/'));
            switch (name)
            {
                case "File":
                    if (i + 1 >= argv.Count) throw new ArgumentException("-File needs the path of a script.");
                    line.UseFile(argv[i + 1], argv.Skip(i + 2));
                    return line;
                case "Command":
                    if (i + 1 >= argv.Count) throw new ArgumentException("-Command needs the text to run, or - for standard input.");
                    if (argv[i + 1] == "-" && i + 2 == argv.Count)
                    {
                        line.Mode = RunMode.StandardInput;
                        return line;
                    }
                    line.Mode = RunMode.Command;
                    line.CommandText = string.Join(' ', argv.Skip(i + 1));
                    return line;
                case "EncodedCommand":
                    if (i + 1 >= argv.Count) throw new ArgumentException("-EncodedCommand needs base64 text.");
                    line.Mode = RunMode.Command;
                    line.CommandText = Encoding.Unicode.GetString(Convert.FromBase64String(argv[i + 1]));
                    return line;
                case "Version":
                    line.ShowVersion = true;
                    return line;
                case "Help":
                    line.ShowHelp = true;
                    return line;
                case "WorkingDirectory":
                    if (i + 1 >= argv.Count) throw new ArgumentException("-WorkingDirectory needs a folder.");
                    Directory.SetCurrentDirectory(argv[++i]);
                    break;
                default:
                    if (Array.IndexOf(Valued, name) >= 0)
                    {
                        if (i + 1 >= argv.Count) throw new ArgumentException($"-{name} needs a value.");
                        i++;
                    }
                    // The switches change nothing here: this engine never reads a profile,
                    // prints no logo and never prompts.
                    break;
            }
        }
        return line;
    }

    private void UseFile(string path, IEnumerable<string> rest)
    {
        Mode = RunMode.File;
        FilePath = path;
        FileArguments = rest.ToList();
    }

    private static bool IsParameter(string arg) =>
        arg.Length > 1 && (arg[0] == '-' || (OperatingSystem.IsWindows() && arg[0] == '/'));

    private static string Resolve(string given)
    {
        if (Aliases.TryGetValue(given, out var alias)) return alias;
        var matches = Switches.Concat(Valued).Concat(Terminal)
            .Where(n => n.StartsWith(given, StringComparison.OrdinalIgnoreCase))
            .ToList();
        var exact = matches.FirstOrDefault(n => n.Equals(given, StringComparison.OrdinalIgnoreCase));
        if (exact is not null) return exact;
        if (matches.Count == 1) return matches[0];
        if (matches.Count == 0) throw new ArgumentException($"-{given} is not a parameter this engine knows.");
        throw new ArgumentException($"-{given} is ambiguous: {string.Join(", ", matches.Select(m => "-" + m))}.");
    }
}
