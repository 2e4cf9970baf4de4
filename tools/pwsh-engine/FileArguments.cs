using System.Management.Automation;
using System.Management.Automation.Runspaces;

namespace Toolpack.PwshEngine;

// How pwsh -File passes the words after the script path, as a typed command line would bind
// them: `-Name value` binds value to the parameter Name (or the one Name abbreviates or
// aliases); `-Switch` sets a switch; `-Name:value` binds value, with $true and $false read as
// booleans so `-Switch:$false` works; every other word is positional. A `-Word` the script
// does not declare stays a word, as pwsh leaves it in $args.
internal static class FileArguments
{
    public static List<CommandParameter> Bind(IReadOnlyList<string> words, IDictionary<string, ParameterMetadata> declared)
    {
        var bound = new List<CommandParameter>();
        for (var i = 0; i < words.Count; i++)
        {
            var word = words[i];
            if (word.Length < 2 || word[0] != '-' || !(char.IsLetter(word[1]) || word[1] == '_'))
            {
                bound.Add(new CommandParameter(null, word));
                continue;
            }
            var colon = word.IndexOf(':');
            var given = colon < 0 ? word[1..] : word[1..colon];
            var parameter = Find(declared, given);
            if (parameter is null)
            {
                bound.Add(new CommandParameter(null, word));
                continue;
            }
            if (colon >= 0)
            {
                var text = word[(colon + 1)..];
                object value = text.ToLowerInvariant() switch
                {
                    "$true" => true,
                    "$false" => false,
                    _ => text,
                };
                bound.Add(new CommandParameter(parameter.Name, value));
            }
            else if (parameter.SwitchParameter)
            {
                bound.Add(new CommandParameter(parameter.Name, true));
            }
            else if (i + 1 < words.Count)
            {
                bound.Add(new CommandParameter(parameter.Name, words[++i]));
            }
            else
            {
                // No value follows: let the binder say the argument is missing, as pwsh does.
                bound.Add(new CommandParameter(parameter.Name));
            }
        }
        return bound;
    }

    private static ParameterMetadata? Find(IDictionary<string, ParameterMetadata> declared, string given)
    {
        var all = declared.Values.ToList();
        var exact = all.FirstOrDefault(p =>
            p.Name.Equals(given, StringComparison.OrdinalIgnoreCase) ||
            p.Aliases.Any(a => a.Equals(given, StringComparison.OrdinalIgnoreCase)));
        if (exact is not null) return exact;
        var prefixed = all.Where(p => p.Name.StartsWith(given, StringComparison.OrdinalIgnoreCase)).ToList();
        return prefixed.Count == 1 ? prefixed[0] : null;
    }
}
