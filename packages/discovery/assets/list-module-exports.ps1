# Imports one PowerShell module and says which functions it exports and where each is defined,
# for discovery's engine fallback (packages/discovery/src/powershell-reader/engine-exports.ts).
# It answers WHICH and WHERE only: the static reader describes each function from its file, so
# both paths produce tools from the same code.
#
# The answer is one line on stdout after the marker, as JSON:
#   { version, exports: [{ name, file, line, kind }], files: [...] }   or   { version, error }
# What the module itself prints (Write-Host, warnings) goes elsewhere or before the marker.
# Core cmdlets and .NET only, so that the bare engine (tools/pwsh-engine) runs it as a full pwsh does.
param(
    [Parameter(Mandatory)][string]$ModulePath,
    [Parameter(Mandatory)][string]$Marker
)

# Not 'Stop': the module's own code runs under this preference, and a non-terminating error in
# it (a missing optional command) must not fail an import that the runner's host would complete.
$ErrorActionPreference = 'Continue'
$ProgressPreference = 'SilentlyContinue'
$version = $PSVersionTable.PSVersion.ToString()

function ConvertTo-JsonText($Value) {
    if ($null -eq $Value) { return 'null' }
    if ($Value -is [int]) { return [string]$Value }
    [System.Text.Json.JsonSerializer]::Serialize([string]$Value, [string])
}

function Write-Answer([string]$Fields) {
    # Straight to the console: a module's own output must never be taken for the answer.
    [Console]::Out.WriteLine($Marker + '{"version":' + (ConvertTo-JsonText $version) + ',' + $Fields + '}')
}

try {
    $imported = @(Import-Module -Name $ModulePath -PassThru -DisableNameChecking -Force -ErrorAction Stop -WarningAction SilentlyContinue 3>$null 4>$null 5>$null 6>$null)
    $module = if ($imported.Count -gt 0) { $imported[0] } else { $null }
}
catch {
    $message = $_.Exception.Message
    # Where in the module's own code it failed: the first frame that is not this script's.
    foreach ($frame in ($_.ScriptStackTrace -split '\r?\n')) {
        if ($frame -match ', (?<file>.+): line (?<line>\d+)$' -and $Matches.file -ne $PSCommandPath) {
            $message = "$message (at $($Matches.file):$($Matches.line))"
            break
        }
    }
    Write-Answer ('"error":' + (ConvertTo-JsonText $message))
    exit 0
}
if ($null -eq $module) {
    Write-Answer ('"error":' + (ConvertTo-JsonText "Import-Module returned no module for $ModulePath."))
    exit 0
}

$files = [System.Collections.Generic.SortedSet[string]]::new([System.StringComparer]::Ordinal)
foreach ($path in @($module.Path, $ModulePath)) {
    if ($path) { [void]$files.Add([System.IO.Path]::GetFullPath($path)) }
}

# Every function of the module's session states (the root's and each nested script module's;
# a nested .ps1 runs in the root's): the files they come from are the files the module loaded.
$modules = @($module) + @($module.NestedModules)
foreach ($each in $modules) {
    if ($each.Path) { [void]$files.Add([System.IO.Path]::GetFullPath($each.Path)) }
    if ($null -eq $each.SessionState) { continue }
    foreach ($function in $each.SessionState.InvokeCommand.GetCommands('*', 'Function', $true)) {
        if ($null -eq $function.Module -or $modules -notcontains $function.Module) { continue }
        $file = $function.ScriptBlock.File
        if ($file) { [void]$files.Add([System.IO.Path]::GetFullPath($file)) }
    }
}

$exports = foreach ($function in $module.ExportedFunctions.Values) {
    $block = $function.ScriptBlock
    $ast = $block.Ast
    $file = if ($block.File) { [System.IO.Path]::GetFullPath($block.File) } else { $null }
    $line = if ($ast) { [int]$ast.Extent.StartLineNumber } else { $null }
    # A FunctionDefinitionAst is a `function` statement the reader can find; a bare script
    # block (`Set-Item function:X { }`, `${function:X} = { }`) is not.
    $kind = if ($ast -is [System.Management.Automation.Language.FunctionDefinitionAst]) { 'function' } else { 'scriptblock' }
    '{"name":' + (ConvertTo-JsonText $function.Name) + ',"file":' + (ConvertTo-JsonText $file) +
        ',"line":' + (ConvertTo-JsonText $line) + ',"kind":' + (ConvertTo-JsonText $kind) + '}'
}

$loaded = foreach ($file in $files) { ConvertTo-JsonText $file }
Write-Answer ('"exports":[' + (@($exports) -join ',') + '],"files":[' + (@($loaded) -join ',') + ']')
