# Imports one PowerShell module and says which functions it exports and where each is defined,
# for discovery's engine fallback (packages/discovery/src/powershell-reader/engine-exports.ts).
# It answers WHICH and WHERE, and the facts of a function only the engine has: the parameters a
# `dynamicparam` block declares (as param-block text) and the names of the .NET enums its
# parameters are typed with. The static reader describes each function from its file and these
# facts, so both paths produce tools from the same code.
#
# The answer is one line on stdout after the marker, as JSON:
#   { version, exports: [{ name, file, line, kind, dynamic?, enums? }], files: [...] }   or   { version, error }
#   dynamic: { line, parameters: ['[Parameter(Mandatory = $true)][string]$Path', ...], reads: ['Kind'] }
#   enums:   [{ parameter, names: [...], flags }]
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

function ConvertTo-PowerShellText($Value) {
    if ($null -eq $Value) { return '$null' }
    if ($Value -is [bool]) { return $(if ($Value) { '$true' } else { '$false' }) }
    if ($Value -is [double] -or $Value -is [single]) { return $Value.ToString('R', [cultureinfo]::InvariantCulture) }
    if ($Value -is [int] -or $Value -is [long] -or $Value -is [decimal] -or $Value -is [byte] -or
        $Value -is [int16] -or $Value -is [uint32] -or $Value -is [uint64]) {
        return $Value.ToString($null, [cultureinfo]::InvariantCulture)
    }
    # PowerShell reads the typographic single quotes as quotes too: each is doubled like '.
    "'" + [regex]::Replace([string]$Value, "['\u2018\u2019\u201A\u201B]", '$0$0') + "'"
}

# One dynamic parameter as the param-block text that declares it: what PowerShell knows of it
# (sets, aliases, validation), in the attributes the static reader understands.
function ConvertTo-ParameterText($Parameter) {
    $attributes = foreach ($attribute in $Parameter.Attributes) {
        switch ($attribute) {
            { $_ -is [System.Management.Automation.ParameterAttribute] } {
                $arguments = @()
                if ($_.ParameterSetName -ne [System.Management.Automation.ParameterAttribute]::AllParameterSets) {
                    $arguments += 'ParameterSetName = ' + (ConvertTo-PowerShellText $_.ParameterSetName)
                }
                if ($_.Mandatory) { $arguments += 'Mandatory = $true' }
                if ($_.Position -ne [int]::MinValue) { $arguments += "Position = $($_.Position)" }
                if ($_.ValueFromPipeline) { $arguments += 'ValueFromPipeline = $true' }
                if ($_.ValueFromPipelineByPropertyName) { $arguments += 'ValueFromPipelineByPropertyName = $true' }
                if ($_.ValueFromRemainingArguments) { $arguments += 'ValueFromRemainingArguments = $true' }
                if ($_.HelpMessage) { $arguments += 'HelpMessage = ' + (ConvertTo-PowerShellText $_.HelpMessage) }
                '[Parameter(' + ($arguments -join ', ') + ')]'
            }
            { $_ -is [System.Management.Automation.AliasAttribute] } {
                '[Alias(' + (@($_.AliasNames | ForEach-Object { ConvertTo-PowerShellText $_ }) -join ', ') + ')]'
            }
            { $_ -is [System.Management.Automation.ValidateSetAttribute] } {
                $values = @($_.ValidValues | ForEach-Object { ConvertTo-PowerShellText $_ })
                if (-not $_.IgnoreCase) { $values += 'IgnoreCase = $false' }
                '[ValidateSet(' + ($values -join ', ') + ')]'
            }
            { $_ -is [System.Management.Automation.ValidateRangeAttribute] -and $null -ne $_.MinRange } {
                '[ValidateRange(' + (ConvertTo-PowerShellText $_.MinRange) + ', ' + (ConvertTo-PowerShellText $_.MaxRange) + ')]'
            }
            { $_ -is [System.Management.Automation.ValidatePatternAttribute] } {
                $options = if ($_.Options -ne [System.Text.RegularExpressions.RegexOptions]::IgnoreCase) {
                    ', Options = ' + (ConvertTo-PowerShellText $_.Options.ToString())
                }
                '[ValidatePattern(' + (ConvertTo-PowerShellText $_.RegexPattern) + $options + ')]'
            }
            { $_ -is [System.Management.Automation.ValidateLengthAttribute] } {
                "[ValidateLength($($_.MinLength), $($_.MaxLength))]"
            }
            { $_ -is [System.Management.Automation.ValidateCountAttribute] } {
                "[ValidateCount($($_.MinLength), $($_.MaxLength))]"
            }
            { $_ -is [System.Management.Automation.ValidateNotNullOrEmptyAttribute] } { '[ValidateNotNullOrEmpty()]' }
            { $_ -is [System.Management.Automation.ValidateNotNullAttribute] } { '[ValidateNotNull()]' }
            { $_ -is [System.Management.Automation.AllowNullAttribute] } { '[AllowNull()]' }
            { $_ -is [System.Management.Automation.AllowEmptyStringAttribute] } { '[AllowEmptyString()]' }
            { $_ -is [System.Management.Automation.AllowEmptyCollectionAttribute] } { '[AllowEmptyCollection()]' }
        }
    }
    $type = [Microsoft.PowerShell.ToStringCodeMethods]::Type($Parameter.ParameterType)
    (@($attributes) -join '') + "[$type]`$$($Parameter.Name)"
}

$commonParameters = [System.Collections.Generic.HashSet[string]]::new(
    [string[]]([System.Management.Automation.Cmdlet]::CommonParameters + [System.Management.Automation.Cmdlet]::OptionalCommonParameters),
    [System.StringComparer]::OrdinalIgnoreCase)

# What only the engine knows of one function, as JSON fields (empty when it knows nothing more):
# its dynamic parameters, and the enum names of parameters typed with a compiled .NET enum.
function Get-EngineFacts($Function, $Ast) {
    $fields = ''
    # Evaluating the parameters runs the dynamicparam block, as Get-Command does.
    $parameters = try { @($Function.Parameters.Values) } catch { @() }
    $body = if ($Ast -is [System.Management.Automation.Language.FunctionDefinitionAst]) { $Ast.Body } else { $null }
    if ($null -ne $body -and $null -ne $body.DynamicParamBlock) {
        $dynamic = foreach ($parameter in $parameters) {
            if ($parameter.IsDynamic) { ConvertTo-JsonText (ConvertTo-ParameterText $parameter) }
        }
        # What of the call the block reads: parameters it declares for some values of those
        # arguments are not among the ones it declares with none.
        $declared = @(if ($body.ParamBlock) { $body.ParamBlock.Parameters | ForEach-Object { $_.Name.VariablePath.UserPath } })
        $reads = @($body.DynamicParamBlock.FindAll({ param($node) $node -is [System.Management.Automation.Language.VariableExpressionAst] }, $true) |
            ForEach-Object { $_.VariablePath.UserPath } |
            Where-Object { $declared -contains $_ -or $_ -eq 'PSBoundParameters' } |
            Sort-Object -Unique | ForEach-Object { ConvertTo-JsonText $_ })
        $fields += ',"dynamic":{"line":' + $body.DynamicParamBlock.Extent.StartLineNumber + ',"parameters":[' + (@($dynamic) -join ',') + '],"reads":[' + ($reads -join ',') + ']}'
    }
    $enums = foreach ($parameter in $parameters) {
        if ($commonParameters.Contains($parameter.Name)) { continue }
        $type = $parameter.ParameterType
        if ($type.IsArray) { $type = $type.GetElementType() }
        # A PowerShell `enum` lives in a dynamic assembly: the static reader reads it from its file.
        if (-not $type.IsEnum -or $type.Assembly.IsDynamic) { continue }
        $names = @([System.Enum]::GetNames($type) | ForEach-Object { ConvertTo-JsonText $_ })
        $flags = if ($type.IsDefined([System.FlagsAttribute], $false)) { 'true' } else { 'false' }
        '{"parameter":' + (ConvertTo-JsonText $parameter.Name) + ',"names":[' + ($names -join ',') + '],"flags":' + $flags + '}'
    }
    if (@($enums).Count -gt 0) { $fields += ',"enums":[' + (@($enums) -join ',') + ']' }
    $fields
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
        ',"line":' + (ConvertTo-JsonText $line) + ',"kind":' + (ConvertTo-JsonText $kind) +
        (Get-EngineFacts $function $ast) + '}'
}

$loaded = foreach ($file in $files) { ConvertTo-JsonText $file }
Write-Answer ('"exports":[' + (@($exports) -join ',') + '],"files":[' + (@($loaded) -join ',') + ']')
