using System.Collections;
using System.Management.Automation;
using System.Management.Automation.Runspaces;

namespace Toolpack.PwshEngine;

// How a script, `mcp doctor` or a test tells this engine from a full PowerShell: the host's
// name, and $PSVersionTable.ToolpackEngine, which a real pwsh never has.
internal static class EngineIdentity
{
    public const string HostName = "Toolpack PowerShell engine";
    public const string Description = "PowerShell engine without the built-in modules";

    public static string EngineVersion =>
        typeof(PSObject).Assembly
            .GetCustomAttributes(typeof(System.Reflection.AssemblyInformationalVersionAttribute), false)
            .OfType<System.Reflection.AssemblyInformationalVersionAttribute>()
            .Select(a => a.InformationalVersion.Split(' ', '+')[0])
            .FirstOrDefault() ?? "7";

    public static void Publish(Runspace runspace)
    {
        if (runspace.SessionStateProxy.GetVariable("PSVersionTable") is Hashtable table)
        {
            table["ToolpackEngine"] = $"{Description} (System.Management.Automation {EngineVersion})";
        }
    }
}
