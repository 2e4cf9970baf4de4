<#
.SYNOPSIS
Deletes temporary files older than a number of days from a folder.

.PARAMETER Path
The folder to clean.

.PARAMETER OlderThanDays
Only files last written more than this many days ago are deleted.

.PARAMETER Patterns
File name patterns to delete.

.NOTES
DestructiveHint: Deletes the matching files for good.
#>
param(
    [Parameter(Mandatory)]
    [string]$Path,

    [ValidateRange(1, 3650)]
    [int]$OlderThanDays = 7,

    [ValidateCount(1, 10)]
    [string[]]$Patterns = @('*.tmp', '*.bak')
)
$cutoff = (Get-Date).AddDays(-$OlderThanDays)
$removed = foreach ($pattern in $Patterns) {
    Get-ChildItem -LiteralPath $Path -Filter $pattern -File |
        Where-Object LastWriteTime -lt $cutoff |
        ForEach-Object { Remove-Item -LiteralPath $_.FullName; $_.Name }
}
@{ removed = @($removed); count = @($removed).Count }
