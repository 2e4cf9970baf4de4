#Requires -Version 7.2

<#
.SYNOPSIS
Writes, as one JSON document, what PowerShell reports about the vendored public modules and scripts.

.DESCRIPTION
The PowerShell reader's parity collector (packages/discovery/src/powershell-reader/fixtures/parity-collect.ps1)
gathers the facts; this script dot-sources it for its functions and adds what public modules need:
stand-ins run before any import (types of binary dependencies that cannot be vendored), and
Get-Help's synopsis and description for exported functions that have no comment-based help, since
help can also come from a MAML file (en-US/<Module>-help.xml), which GetHelpContent() does not read.

.PARAMETER ListPath
A text file with one entry a line: "script" or "module", a tab and an absolute path.

.PARAMETER OutPath
Where the JSON document goes.

.PARAMETER Prelude
Scripts to dot-source first, once, in this process, separated by the path separator (: or ;).
#>
[CmdletBinding()]
param(
    [Parameter(Mandatory)]
    [string]$ListPath,

    [Parameter(Mandatory)]
    [string]$OutPath,

    [string]$Prelude = ''
)

foreach ($path in $Prelude.Split([System.IO.Path]::PathSeparator)) {
    if ($path -ne '') { . $path }
}

# Dot-sourcing the collector with an empty list defines its functions here and writes an empty
# document; it also sets its parameters here, so this script's own are kept aside first.
$corpusList = $ListPath
$corpusOut = $OutPath
$emptyList = [System.IO.Path]::GetTempFileName()
$parityCollector = [System.IO.Path]::Combine($PSScriptRoot, '..', '..', 'packages', 'discovery', 'src', 'powershell-reader', 'fixtures', 'parity-collect.ps1')
. $parityCollector -ListPath $emptyList -OutPath $corpusOut
[System.IO.File]::Delete($emptyList)

function Add-EngineHelp($Facts, [string]$Name) {
    # Help PowerShell found outside the comment help (MAML): only a MamlCommandHelpInfo is real
    # help; without any, Get-Help makes one up from the syntax.
    if ($Facts.hasHelp) { return $Facts }
    $help = Get-Help -Name $Name -Full -ErrorAction SilentlyContinue
    if ($null -eq $help -or @($help.PSObject.TypeNames) -notcontains 'MamlCommandHelpInfo') { return $Facts }
    $Facts['engineHelp'] = [ordered]@{
        synopsis    = [string]$help.Synopsis
        description = Get-HelpText $help.description
    }
    return $Facts
}

function Add-EnumNames($Facts, $CommandInfo) {
    # The names a .NET enum parameter (or an array of one) takes, which the parity facts leave
    # out: the engine converts any of them, in any case. Flags enums also take combinations, so
    # they are marked.
    if ($null -eq $Facts.parameters) { return $Facts }
    foreach ($parameter in $Facts.parameters) {
        $type = $CommandInfo.Parameters[$parameter.name].ParameterType
        if ($type.IsArray) { $type = $type.GetElementType() }
        $underlying = [System.Nullable]::GetUnderlyingType($type)
        if ($null -ne $underlying) { $type = $underlying }
        if (-not $type.IsEnum) { continue }
        $parameter['enumNames'] = [string[]][System.Enum]::GetNames($type)
        $parameter['enumFlags'] = $type.IsDefined([System.FlagsAttribute], $false)
    }
    return $Facts
}

function Add-CorpusModuleFacts([System.Collections.Generic.List[object]]$Commands, [string]$Path) {
    # Add-ModuleFacts of the parity collector, plus the engine's help while the module is loaded.
    $name = [System.IO.Path]::GetFileNameWithoutExtension($Path)
    try {
        $module = @(Import-Module -Name $Path -PassThru -Force -DisableNameChecking -ErrorAction Stop -WarningAction SilentlyContinue)[0]
    }
    catch {
        $Commands.Add([ordered]@{ kind = 'module'; file = $Path; module = $Path; name = $name; loadError = $_.Exception.Message })
        return
    }
    try {
        $exported = [System.Collections.Generic.List[object]]::new($module.ExportedFunctions.Values)
        $exported.Sort([System.Comparison[object]] { param($a, $b) [string]::CompareOrdinal($a.Name, $b.Name) })
        foreach ($function in $exported) {
            try {
                $facts = Get-CommandFacts $function 'function' $function.ScriptBlock.File $Path $function.Name $function.Name
                $facts = Add-EnumNames (Add-EngineHelp $facts $function.Name) $function
                $Commands.Add($facts)
            }
            catch {
                $Commands.Add([ordered]@{ kind = 'function'; file = $function.ScriptBlock.File; module = $Path; name = $function.Name; loadError = $_.Exception.Message })
            }
        }
    }
    finally {
        Remove-Module -ModuleInfo $module -Force -ErrorAction SilentlyContinue
    }
}

$commands = [System.Collections.Generic.List[object]]::new()
foreach ($line in [System.IO.File]::ReadAllLines($corpusList)) {
    if ($line.Trim() -eq '') { continue }
    $kind, $path = $line.Split("`t", 2)
    if ($kind -eq 'module') { Add-CorpusModuleFacts $commands $path }
    else {
        $facts = Get-ScriptFacts $path
        if ($null -eq $facts['loadError']) { $facts = Add-EnumNames $facts (Get-Command -Name $path) }
        $commands.Add($facts)
    }
}

$builder = [System.Text.StringBuilder]::new()
Add-JsonValue $builder ([ordered]@{
        psVersion = $PSVersionTable.PSVersion.ToString()
        engine    = if ($PSVersionTable.ContainsKey('ToolpackEngine')) { 'engine' } else { 'full' }
        commands  = $commands
    })
[System.IO.File]::WriteAllText($corpusOut, $builder.ToString(), [System.Text.UTF8Encoding]::new($false))
