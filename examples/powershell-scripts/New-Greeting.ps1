<#
.SYNOPSIS
Writes a greeting in the chosen language.
.NOTES
ReadOnlyHint: Only returns text.
#>
param(
    # Who to greet.
    [Parameter(Mandatory = $true)]
    [ValidateLength(1, 40)]
    [string]$Name,

    # The language of the greeting.
    [ValidateSet('en', 'fr', 'de')]
    [string]$Language = 'en',

    # Shout the greeting.
    [switch]$Loud
)
$text = switch ($Language) {
    'fr' { "Bonjour, $Name !" }
    'de' { "Hallo, $Name!" }
    default { "Hello, $Name!" }
}
if ($Loud) { $text.ToUpperInvariant() } else { $text }
