<#
.SYNOPSIS
Reports how much space a folder and its largest children use.

.DESCRIPTION
Walks the folder once and returns its total size in bytes and the largest entries,
biggest first.

.PARAMETER Path
The folder to measure.

.PARAMETER Top
How many of the largest entries to return.

.EXAMPLE
Get-DiskUsage -Path . -Top 3
The current folder's total size and its three largest entries.

.OUTPUTS
System.Management.Automation.PSCustomObject
    path     <string>    The folder measured, as a full path.
    bytes    <long>      Its total size in bytes.
    largest  <object[]>  The largest entries, biggest first: name and bytes of each.

.NOTES
ReadOnlyHint: Only reads file sizes; changes nothing.
IdempotentHint: The same folder gives the same answer until its files change.
#>
[CmdletBinding()]
[OutputType([pscustomobject])]
param(
    [Parameter(Mandatory)]
    [string]$Path,

    [ValidateRange(1, 50)]
    [int]$Top = 5
)

$items = Get-ChildItem -LiteralPath $Path -Force | ForEach-Object {
    $size = if ($_.PSIsContainer) {
        (Get-ChildItem -LiteralPath $_.FullName -Recurse -File -Force -ErrorAction SilentlyContinue | Measure-Object Length -Sum).Sum
    } else { $_.Length }
    [pscustomobject]@{ name = $_.Name; bytes = [long]$size }
}
[pscustomobject]@{
    path    = (Resolve-Path -LiteralPath $Path).Path
    bytes   = [long]($items | Measure-Object bytes -Sum).Sum
    largest = @($items | Sort-Object bytes -Descending | Select-Object -First $Top)
}
