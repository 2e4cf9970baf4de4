#Requires -Version 7.2
<#
.SYNOPSIS
    Toolpack's PowerShell host. Started by @toolpack/runners; not meant to be run by hand.

.DESCRIPTION
    Runs PowerShell tools for one Toolpack runner. It talks to Node over a private channel
    (a Unix domain socket, or a named pipe on Windows) created by Node and named by
    -ChannelPath, never over stdout/stderr: whatever a tool prints (Write-Host,
    [Console]::WriteLine, native commands) cannot corrupt the protocol.

    Framing: one JSON object per line, UTF-8, both ways.

    Node -> host
        { type: "call", id, mode: "script"|"tool-folder"|"module", scriptPath, functionName,
          modulePath, toolName, arguments, session?, credentials? }
                                            session (tool folders): { key, origin, imports,
                                            setup, variables, environment }: loaded once into
                                            a runspace that then serves only that session's
                                            calls (see __Toolpack-EnterSession)
                                            credentials? (scripts, modules): [{ parameter,
                                            type, username, password }] read from server
                                            secrets, built into a PSCredential or SecureString
                                            just before the call (see __Toolpack-RunTool)
        { type: "stop", id }                stops the call's pipeline
        { type: "warm-module", modulePath } opens the module's runspace ahead of its first call
        { type: "warm-session", session }   loads a tool-folder session into a runspace ahead of
                                            its first call (nothing is answered)
        { type: "forget-modules", modulePaths } drops module runspaces (all when null) so the
                                            next call imports the module afresh (hot reload)
        { type: "answer", id, askId, action: "accept"|"decline"|"cancel"|"error", values?,
          error? }                          the user's answer to an "ask" (see Send-Questions)
        { type: "shutdown" }
    host -> Node
        { type: "hello", token, pid, psVersion }  first line; the token proves who connected
        { type: "progress", id, activityId, parentId, activity, status, operation, percent,
          completed }                       one Write-Progress record; a run of one activity's
                                            records is sent as its latest
        { type: "log", id, level, message }
        { type: "ask", id, askId, message, fields: [{ name, title, description, choices?,
          default? }], secret }             a question the tool put to its host (ShouldProcess,
                                            Read-Host, PromptForChoice); no fields: a yes/no;
                                            secret (what was asked for) or null: Node refuses
                                            a secret prompt without asking anyone
        { type: "result", id, kind: "none"|"text"|"json"|"error", text, json, error, file,
          line, truncated, stopped, errorCount }

    Script and tool-folder calls run on a pool of runspaces (up to -PoolSize, one opened at
    start, a second once it has served, more as parallel calls need them), each reused after its call has been cleaned
    (__Toolpack-Clean) and reset (ResetRunspaceState); see Complete-Runspace. Module calls run
    in one runspace per module (the module imported once, by an explicit Import-Module pipeline
    that must have completed before the first call starts), one call at a time, so module
    state persists between calls.

    The main loop is single-threaded: it waits on the channel and on every running
    pipeline's task, so no PowerShell script ever runs on a thread without a runspace.
#>
# The compiled JSON codecs (New-JsonCodecs) are written as expression trees.
using namespace System.Linq.Expressions
param(
    [Parameter(Mandatory = $true)] [string] $ChannelPath,
    [Parameter(Mandatory = $true)] [string] $ProjectRoot,
    [int] $PoolSize = 4,
    [long] $MaxOutputChars = 1048576,
    [int] $IdleReleaseMs = 5000
)

$ErrorActionPreference = 'Stop'
$ProgressPreference = 'SilentlyContinue'
Set-StrictMode -Off

# Assembly.Load, not Add-Type: Add-Type lives in Microsoft.PowerShell.Utility, which the bare
# engine (System.Management.Automation alone) does not have. These ship with .NET itself.
foreach ($assemblyName in @('System.Text.Json', 'System.Text.Encodings.Web', 'System.Net.Sockets', 'System.IO.Pipes')) {
    try { [void][System.Reflection.Assembly]::Load($assemblyName) } catch { }
}

# The host every tool runspace gets: the default one has no UI, so ShouldProcess, Read-Host and
# PromptForChoice failed. This one puts such questions to Node (which asks the MCP client) and
# waits for the answer on the tool's own pipeline thread; it never asks for a secret.
function New-ToolpackHostTypes {
    # The PSHost's members and the interface's RawUI are read on threads without a runspace
    # (a runspace opening on its own thread), where a PowerShell class's members, being
    # script, never run (the open hangs): they are plain .NET members, emitted here (the bare
    # engine has no Add-Type). The interface's prompts run on the tool's pipeline thread: a
    # PowerShell class deriving from the emitted base.
    $module = [System.Reflection.Emit.AssemblyBuilder]::DefineDynamicAssembly(
        [System.Reflection.AssemblyName]::new('Toolpack.Host'), [System.Reflection.Emit.AssemblyBuilderAccess]::Run).DefineDynamicModule('Toolpack.Host')
    $getter = [System.Reflection.MethodAttributes]'Public, Virtual, HideBySig, SpecialName'
    $method = [System.Reflection.MethodAttributes]'Public, Virtual, HideBySig'
    $op = [System.Reflection.Emit.OpCodes]

    $base = $module.DefineType('Toolpack.HostInterfaceBase', [System.Reflection.TypeAttributes]'Public, Abstract, Class', [System.Management.Automation.Host.PSHostUserInterface])
    $il = $base.DefineMethod('get_RawUI', $getter, [System.Management.Automation.Host.PSHostRawUserInterface], [type[]]@()).GetILGenerator()
    $il.Emit($op::Ldnull); $il.Emit($op::Ret)
    $ctor = $base.DefineConstructor([System.Reflection.MethodAttributes]'Public', [System.Reflection.CallingConventions]::Standard, [type[]]@()).GetILGenerator()
    $ctor.Emit($op::Ldarg_0)
    $ctor.Emit($op::Call, [System.Management.Automation.Host.PSHostUserInterface].GetConstructor([System.Reflection.BindingFlags]'Instance, NonPublic, Public', $null, [type[]]@(), $null))
    $ctor.Emit($op::Ret)
    # What tools print to the host goes nowhere (only the streams reach Node), in plain .NET:
    # as script, with Set-PSDebug -Trace on, writing each traced line ran a traced line, and
    # the recursion overflowed the stack and killed the host.
    $voidWrites = @(
        @('Write', [type[]]@([string])),
        @('Write', [type[]]@([System.ConsoleColor], [System.ConsoleColor], [string])),
        @('WriteLine', [type[]]@([string])),
        @('WriteErrorLine', [type[]]@([string])),
        @('WriteDebugLine', [type[]]@([string])),
        @('WriteProgress', [type[]]@([long], [System.Management.Automation.ProgressRecord])),
        @('WriteVerboseLine', [type[]]@([string])),
        @('WriteWarningLine', [type[]]@([string])))
    foreach ($write in $voidWrites) {
        $il = $base.DefineMethod($write[0], $method, [void], $write[1]).GetILGenerator()
        $il.Emit($op::Ret)
    }
    $baseType = $base.CreateType()

    $hostBuilder = $module.DefineType('Toolpack.Host', [System.Reflection.TypeAttributes]'Public, Sealed, Class', [System.Management.Automation.Host.PSHost])
    $uiField = $hostBuilder.DefineField('ui', [System.Management.Automation.Host.PSHostUserInterface], [System.Reflection.FieldAttributes]'Private, InitOnly')
    $idField = $hostBuilder.DefineField('id', [guid], [System.Reflection.FieldAttributes]'Private, InitOnly')
    $il = $hostBuilder.DefineConstructor([System.Reflection.MethodAttributes]'Public', [System.Reflection.CallingConventions]::Standard, [type[]]@([System.Management.Automation.Host.PSHostUserInterface])).GetILGenerator()
    $il.Emit($op::Ldarg_0)
    $il.Emit($op::Call, [System.Management.Automation.Host.PSHost].GetConstructor([System.Reflection.BindingFlags]'Instance, NonPublic, Public', $null, [type[]]@(), $null))
    $il.Emit($op::Ldarg_0); $il.Emit($op::Ldarg_1); $il.Emit($op::Stfld, $uiField)
    $il.Emit($op::Ldarg_0); $il.Emit($op::Call, [guid].GetMethod('NewGuid')); $il.Emit($op::Stfld, $idField)
    $il.Emit($op::Ret)
    $il = $hostBuilder.DefineMethod('get_Name', $getter, [string], [type[]]@()).GetILGenerator()
    $il.Emit($op::Ldstr, 'Toolpack'); $il.Emit($op::Ret)
    $il = $hostBuilder.DefineMethod('get_Version', $getter, [version], [type[]]@()).GetILGenerator()
    $il.Emit($op::Ldc_I4_1); $il.Emit($op::Ldc_I4_0); $il.Emit($op::Newobj, [version].GetConstructor([type[]]@([int], [int]))); $il.Emit($op::Ret)
    $il = $hostBuilder.DefineMethod('get_InstanceId', $getter, [guid], [type[]]@()).GetILGenerator()
    $il.Emit($op::Ldarg_0); $il.Emit($op::Ldfld, $idField); $il.Emit($op::Ret)
    $il = $hostBuilder.DefineMethod('get_UI', $getter, [System.Management.Automation.Host.PSHostUserInterface], [type[]]@()).GetILGenerator()
    $il.Emit($op::Ldarg_0); $il.Emit($op::Ldfld, $uiField); $il.Emit($op::Ret)
    foreach ($name in 'get_CurrentCulture', 'get_CurrentUICulture') {
        $il = $hostBuilder.DefineMethod($name, $getter, [System.Globalization.CultureInfo], [type[]]@()).GetILGenerator()
        $il.Emit($op::Call, [System.Globalization.CultureInfo].GetProperty($name.Substring(4)).GetGetMethod()); $il.Emit($op::Ret)
    }
    $il = $hostBuilder.DefineMethod('SetShouldExit', $method, [void], [type[]]@([int])).GetILGenerator()
    $il.Emit($op::Ret)
    $il = $hostBuilder.DefineMethod('EnterNestedPrompt', $method, [void], [type[]]@()).GetILGenerator()
    $il.Emit($op::Ldstr, 'A Toolpack tool cannot enter a nested prompt.')
    $il.Emit($op::Newobj, [System.Management.Automation.PSNotSupportedException].GetConstructor([type[]]@([string])))
    $il.Emit($op::Throw)
    foreach ($name in 'ExitNestedPrompt', 'NotifyBeginApplication', 'NotifyEndApplication') {
        $il = $hostBuilder.DefineMethod($name, $method, [void], [type[]]@()).GetILGenerator()
        $il.Emit($op::Ret)
    }
    return @{ InterfaceBase = $baseType; Host = $hostBuilder.CreateType() }
}

$script:QuestionQueue = [System.Collections.Concurrent.ConcurrentQueue[hashtable]]::new()
$script:HostTypes = New-ToolpackHostTypes
# A class compiled from text, after its base exists: [NoRunspaceAffinity()] (7.4+) must be
# left out where it does not exist, and without it 7.4+ would run every method on this
# script's runspace, busy in the main loop.
$script:HostTypes['Interface'] = . ([scriptblock]::Create(@'
__AFFINITY__
class ToolpackHostInterface : Toolpack.HostInterfaceBase {
    [System.Collections.Concurrent.ConcurrentQueue[hashtable]] $Questions
    [string] $CallId = ''
    ToolpackHostInterface([System.Collections.Concurrent.ConcurrentQueue[hashtable]] $questions) { $this.Questions = $questions }

    hidden [hashtable] Put([hashtable] $question) {
        $answer = [System.Threading.Tasks.TaskCompletionSource[hashtable]]::new([System.Threading.Tasks.TaskCreationOptions]::RunContinuationsAsynchronously)
        $question['CallId'] = $this.CallId
        $question['Answer'] = $answer
        $this.Questions.Enqueue($question)
        $reply = $answer.Task.GetAwaiter().GetResult()
        $action = [string]$reply['action']
        if ($action -eq 'stopped') { throw [System.Management.Automation.PipelineStoppedException]::new() }
        if ($action -eq 'error') { throw [System.Management.Automation.PSInvalidOperationException]::new([string]$reply['error']) }
        return $reply
    }
    hidden [hashtable] Ask([string] $message, [object[]] $fields) {
        return $this.Put(@{ Message = $message; Fields = $fields; Secret = $null })
    }
    hidden [hashtable] AskForValues([string] $message, [object[]] $fields) {
        $reply = $this.Ask($message, $fields)
        if ([string]$reply['action'] -ne 'accept') {
            throw [System.Management.Automation.PSInvalidOperationException]::new("The user $([string]$reply['action'])d the question `"$message`"; the tool got no answer.")
        }
        $values = $reply['values']
        if ($values -isnot [hashtable]) { $values = @{} }
        return $values
    }
    hidden [void] RefuseSecret([string] $what) {
        # Node answers a secret question with its refusal (E_ELICITATION_SECRET), never the client.
        $null = $this.Put(@{ Message = ''; Fields = @(); Secret = $what })
        throw [System.Management.Automation.PSInvalidOperationException]::new("The tool asked for $what, which is never asked.")
    }
    [string] ReadLine() {
        return [string]$this.AskForValues('The tool asks for a line of text.', @(@{ name = 'value'; title = 'Answer' }))['value']
    }
    [System.Security.SecureString] ReadLineAsSecureString() { $this.RefuseSecret('a secure string (Read-Host -AsSecureString)'); return $null }
    [System.Management.Automation.PSCredential] PromptForCredential([string] $caption, [string] $message, [string] $userName, [string] $targetName) {
        $this.RefuseSecret('a credential (Get-Credential or a PSCredential prompt)'); return $null
    }
    [System.Management.Automation.PSCredential] PromptForCredential([string] $caption, [string] $message, [string] $userName, [string] $targetName,
        [System.Management.Automation.PSCredentialTypes] $allowedTypes, [System.Management.Automation.PSCredentialUIOptions] $options) {
        $this.RefuseSecret('a credential (Get-Credential or a PSCredential prompt)'); return $null
    }
    [System.Collections.Generic.Dictionary[string, System.Management.Automation.PSObject]] Prompt([string] $caption, [string] $message,
        [System.Collections.ObjectModel.Collection[System.Management.Automation.Host.FieldDescription]] $descriptions) {
        $fields = [System.Collections.Generic.List[object]]::new()
        foreach ($description in $descriptions) {
            $type = [string]$description.ParameterTypeFullName
            if ($type -like 'System.Security.SecureString*' -or $type -like 'System.Management.Automation.PSCredential*') {
                $this.RefuseSecret("`"$($description.Name)`" as a $($type.Split('.')[-1]) (Read-Host -AsSecureString, or a mandatory secret parameter left out)")
            }
            $field = @{ name = [string]$description.Name; title = [string]$description.Name }
            if (-not [string]::IsNullOrEmpty($description.Label)) { $field['title'] = [string]$description.Label.Replace('&', '') }
            if (-not [string]::IsNullOrEmpty($description.HelpMessage)) { $field['description'] = [string]$description.HelpMessage }
            $fields.Add($field)
        }
        $text = (@($caption, $message) | Where-Object { -not [string]::IsNullOrWhiteSpace($_) }) -join "`n"
        if ($text -eq '') { $text = 'The tool asks: ' + ((@($fields) | ForEach-Object { $_['title'] }) -join ', ') }
        $values = $this.AskForValues($text, $fields.ToArray())
        $result = [System.Collections.Generic.Dictionary[string, System.Management.Automation.PSObject]]::new()
        foreach ($field in $fields) { $result[$field['name']] = [System.Management.Automation.PSObject]::new([string]$values[$field['name']]) }
        return $result
    }
    [int] PromptForChoice([string] $caption, [string] $message,
        [System.Collections.ObjectModel.Collection[System.Management.Automation.Host.ChoiceDescription]] $choices, [int] $defaultChoice) {
        $text = (@($caption, $message) | Where-Object { -not [string]::IsNullOrWhiteSpace($_) }) -join "`n"
        # ShouldProcess and ShouldContinue ask through here (MshCommandRuntime.InquireHelper):
        # a yes/no confirmation, Yes first; a decline or a cancel is No (nothing happens).
        if ([System.Environment]::StackTrace.Contains('MshCommandRuntime.InquireHelper')) {
            $reply = $this.Ask($text, @())
            if ([string]$reply['action'] -eq 'accept') { return 0 }
            if ($choices.Count -ge 4) { return 2 }
            return 1
        }
        $options = [System.Collections.Generic.List[object]]::new()
        foreach ($choice in $choices) {
            $option = @{ value = [string]$choice.Label.Replace('&', '') }
            if (-not [string]::IsNullOrEmpty($choice.HelpMessage)) { $option['description'] = [string]$choice.HelpMessage }
            $options.Add($option)
        }
        $field = @{ name = 'choice'; title = 'Choice'; choices = $options.ToArray() }
        if ($defaultChoice -ge 0 -and $defaultChoice -lt $options.Count) { $field['default'] = $options[$defaultChoice]['value'] }
        $picked = [string]$this.AskForValues($text, @($field))['choice']
        for ($index = 0; $index -lt $options.Count; $index++) {
            if ($options[$index]['value'] -ceq $picked) { return $index }
        }
        throw [System.Management.Automation.PSInvalidOperationException]::new("The answer `"$picked`" is none of the choices of `"$text`".")
    }
}

[ToolpackHostInterface]
'@.Replace('__AFFINITY__', $(if ($PSVersionTable.PSVersion -ge [version]'7.4') { '[NoRunspaceAffinity()]' } else { '' }))))

# The token proves to Node that this process is the host it started; tools must not see it.
$script:Token = [string]$env:TOOLPACK_HOST_TOKEN
# [NullString]::Value, not $null: PowerShell passes $null to a string parameter as '', which
# would leave the variable set (empty) instead of removing it.
[System.Environment]::SetEnvironmentVariable('TOOLPACK_HOST_TOKEN', [NullString]::Value)
# Node gave pwsh a cache folder of its own (XDG_CACHE_HOME), where it read and keeps .NET's
# startup profile; the tools get the environment's own back: '' for none, '=' and the value.
$cacheHomeWas = [System.Environment]::GetEnvironmentVariable('TOOLPACK_HOST_CACHE_HOME')
if ($null -ne $cacheHomeWas) {
    [System.Environment]::SetEnvironmentVariable('TOOLPACK_HOST_CACHE_HOME', [NullString]::Value)
    if ($cacheHomeWas.StartsWith('=')) {
        [System.Environment]::SetEnvironmentVariable('XDG_CACHE_HOME', $cacheHomeWas.Substring(1))
    } else {
        [System.Environment]::SetEnvironmentVariable('XDG_CACHE_HOME', [NullString]::Value)
    }
}
# .NET settings Node gave this process's start only (pwsh-host.ts), where the environment
# had none: the runtime has read them, and the tools see the environment's own.
$startSettings = [System.Environment]::GetEnvironmentVariable('TOOLPACK_HOST_START_SETTINGS')
if ($null -ne $startSettings) {
    foreach ($name in $startSettings.Split(',')) { [System.Environment]::SetEnvironmentVariable($name, [NullString]::Value) }
    [System.Environment]::SetEnvironmentVariable('TOOLPACK_HOST_START_SETTINGS', [NullString]::Value)
}
# The environment every call starts with (Restore-ProcessState puts it back between calls).
$script:Environment = [System.Environment]::GetEnvironmentVariables()

$script:MaxLogsPerCall = 1000
$script:MaxLogChars = 8000

# ---------------------------------------------------------------------------------------
# Functions copied into every tool runspace (through the InitialSessionState). They only
# use .NET types, so they need no module to be loaded.
# ---------------------------------------------------------------------------------------

function __Toolpack-WriteJsonValue {
    # Writes one value, or opens a container and returns its frame for the caller's loop.
    # Plain .NET objects nested in plain .NET objects deeper than 2 levels are written with
    # ToString(): their property graphs are unbounded (FileInfo.Directory.Parent...). Data
    # (hashtables, PSCustomObjects, arrays) is never cut, at any depth.
    param($Writer, $Value, [int] $ObjectDepth, $Seen, [long] $MaxItems)

    if ($null -eq $Value -or $Value -is [System.DBNull]) { $Writer.WriteNullValue(); return }

    if ($Value -is [System.Management.Automation.PSCustomObject]) {
        if ($Seen.Contains($Value)) { $Writer.WriteStringValue('[circular reference]'); return }
        $items = [System.Collections.Generic.List[object]]::new()
        foreach ($property in $Value.PSObject.Properties) {
            $propertyValue = $null
            try { $propertyValue = $property.Value } catch { continue }
            $items.Add(@([string]$property.Name, $propertyValue))
        }
        [void]$Seen.Add($Value)
        $Writer.WriteStartObject()
        return @{ IsObject = $true; Items = $items; Index = 0; ChildDepth = $ObjectDepth; Identity = $Value }
    }

    $base = $Value
    if ($base -is [System.Management.Automation.PSObject]) { $base = $base.PSObject.BaseObject }

    if ($base -is [string] -or $base -is [char]) { $Writer.WriteStringValue([string]$base); return }
    if ($base -is [bool]) { $Writer.WriteBooleanValue([bool]$base); return }
    if ($base -is [System.Management.Automation.SwitchParameter]) { $Writer.WriteBooleanValue([bool]$base.IsPresent); return }
    if ($base -is [System.Enum]) { $Writer.WriteStringValue([string]$base.ToString()); return }

    $typeCode = [string][System.Type]::GetTypeCode($base.GetType())
    if ($typeCode -in @('Byte', 'SByte', 'Int16', 'UInt16', 'Int32', 'UInt32', 'Int64')) {
        $Writer.WriteNumberValue([long]$base); return
    }
    if ($typeCode -eq 'UInt64' -or $typeCode -eq 'Decimal') { $Writer.WriteNumberValue([decimal]$base); return }
    if ($typeCode -eq 'Single' -or $typeCode -eq 'Double') {
        $number = [double]$base
        if ([double]::IsFinite($number)) { $Writer.WriteNumberValue($number) } else { $Writer.WriteNullValue() }
        return
    }
    if ($typeCode -eq 'DateTime') {
        $Writer.WriteStringValue(([datetime]$base).ToString('o', [System.Globalization.CultureInfo]::InvariantCulture)); return
    }
    if ($base -is [System.DateTimeOffset]) {
        $Writer.WriteStringValue(([System.DateTimeOffset]$base).ToString('o', [System.Globalization.CultureInfo]::InvariantCulture)); return
    }
    if ($base -is [type]) { $Writer.WriteStringValue([string]$base.FullName); return }
    if ($base -is [guid] -or $base -is [timespan] -or $base -is [uri] -or $base -is [version] -or
        $base -is [scriptblock] -or $base -is [System.Numerics.BigInteger] -or $base -is [System.IntPtr] -or
        $base -is [System.Text.RegularExpressions.Regex] -or $base -is [System.Net.IPAddress] -or
        $base -is [System.Security.SecureString]) {
        $Writer.WriteStringValue([string]$base.ToString()); return
    }

    if ($base -is [System.Collections.IDictionary]) {
        if ($Seen.Contains($base)) { $Writer.WriteStringValue('[circular reference]'); return }
        $items = [System.Collections.Generic.List[object]]::new()
        foreach ($entry in $base.GetEnumerator()) {
            $items.Add(@([string]$entry.Key, $entry.Value))
        }
        [void]$Seen.Add($base)
        $Writer.WriteStartObject()
        return @{ IsObject = $true; Items = $items; Index = 0; ChildDepth = $ObjectDepth; Identity = $base }
    }

    if ($base -is [System.Collections.IEnumerable]) {
        if ($Seen.Contains($base)) { $Writer.WriteStringValue('[circular reference]'); return }
        $items = [System.Collections.Generic.List[object]]::new()
        foreach ($element in $base) {
            $items.Add($element)
            # Each item costs at least one character, so more items than that can only be cut.
            if ($items.Count -gt $MaxItems) { break }
        }
        [void]$Seen.Add($base)
        $Writer.WriteStartArray()
        return @{ IsObject = $false; Items = $items; Index = 0; ChildDepth = $ObjectDepth; Identity = $base }
    }

    if ($ObjectDepth -ge 2) {
        $text = $null
        try { $text = [string]$base.ToString() } catch { $text = [string]$base.GetType().FullName }
        $Writer.WriteStringValue($text)
        return
    }
    $identity = $null
    if (-not $base.GetType().IsValueType) {
        if ($Seen.Contains($base)) { $Writer.WriteStringValue('[circular reference]'); return }
        $identity = $base
    }
    $items = [System.Collections.Generic.List[object]]::new()
    foreach ($property in $Value.PSObject.Properties) {
        if (-not $property.IsGettable) { continue }
        $propertyValue = $null
        try { $propertyValue = $property.Value } catch { continue }
        $items.Add(@([string]$property.Name, $propertyValue))
    }
    if ($null -ne $identity) { [void]$Seen.Add($identity) }
    $Writer.WriteStartObject()
    return @{ IsObject = $true; Items = $items; Index = 0; ChildDepth = $ObjectDepth + 1; Identity = $identity }
}

function __Toolpack-ConvertToJson {
    # JSON without ConvertTo-Json's depth truncation. Iterative (an explicit stack of open
    # containers), so deep data cannot overflow PowerShell's call depth; cycles become
    # "[circular reference]". Stops once the text passes MaxChars and says so.
    # Compiled: the plain-data writer of New-JsonCodecs, tried first (it writes the same text
    # in a tenth of the time); whatever it declines is written here.
    param($Value, [long] $MaxChars = 1048576, $Compiled = $null)

    $writerOptions = [System.Text.Json.JsonWriterOptions]@{
        Encoder  = [System.Text.Encodings.Web.JavaScriptEncoder]::UnsafeRelaxedJsonEscaping
        MaxDepth = 100000
    }
    if ($null -ne $Compiled) {
        $stream = [System.IO.MemoryStream]::new()
        $writer = [System.Text.Json.Utf8JsonWriter]::new([System.IO.Stream]$stream, $writerOptions)
        try {
            # A text of no more bytes than MaxChars has no more characters either.
            if ($Compiled.Invoke($Value, $writer, 0, $MaxChars)) {
                $writer.Flush()
                if ($stream.Length -le $MaxChars) {
                    return @{ Json = [System.Text.Encoding]::UTF8.GetString($stream.GetBuffer(), 0, [int]$stream.Length); Truncated = $false }
                }
            }
        } finally {
            $writer.Dispose()
            $stream.Dispose()
        }
    }
    $stream = [System.IO.MemoryStream]::new()
    $writer = [System.Text.Json.Utf8JsonWriter]::new([System.IO.Stream]$stream, $writerOptions)
    $seen = [System.Collections.Generic.HashSet[object]]::new([System.Collections.Generic.ReferenceEqualityComparer]::Instance)
    $stack = [System.Collections.Generic.Stack[hashtable]]::new()
    $limit = $MaxChars * 4 + 16
    $truncated = $false
    $pending = $Value
    $pendingDepth = 0
    $hasPending = $true
    try {
        while ($true) {
            if ($hasPending) {
                $hasPending = $false
                $frame = __Toolpack-WriteJsonValue -Writer $writer -Value $pending -ObjectDepth $pendingDepth -Seen $seen -MaxItems $MaxChars
                if ($null -ne $frame) { $stack.Push($frame) }
            }
            if ($stack.Count -eq 0) { break }
            if (($writer.BytesPending + $writer.BytesCommitted) -gt $limit) { $truncated = $true; break }
            $top = $stack.Peek()
            if ($top.Index -lt $top.Items.Count) {
                $item = $top.Items[$top.Index]
                $top.Index = $top.Index + 1
                if ($top.IsObject) {
                    $writer.WritePropertyName([string]$item[0])
                    $pending = $item[1]
                } else {
                    $pending = $item
                }
                $pendingDepth = $top.ChildDepth
                $hasPending = $true
            } else {
                [void]$stack.Pop()
                if ($top.IsObject) { $writer.WriteEndObject() } else { $writer.WriteEndArray() }
                if ($null -ne $top.Identity) { [void]$seen.Remove($top.Identity) }
            }
        }
        $writer.Flush()
        $json = [System.Text.Encoding]::UTF8.GetString($stream.ToArray())
    } finally {
        $writer.Dispose()
        $stream.Dispose()
    }
    if ($truncated -or $json.Length -gt $MaxChars) {
        return @{ Json = $json.Substring(0, [int][Math]::Min([long]$json.Length, $MaxChars)); Truncated = $true }
    }
    return @{ Json = $json; Truncated = $false }
}

function __Toolpack-InvokeTool {
    # The one command every pipeline on a tool runspace runs (a PowerShell object with
    # several statements never completes on a ReuseThread runspace, so there is one).
    # Mode 'prepare' is a new runspace's first pipeline: it records what a clean runspace
    # holds (and compiles the functions that do). A request that carries that Baseline is
    # cleaned after the tool, for the runspace's next call. The JSON writer is not warmed
    # here: the first call waits for this pipeline, and would pay for the warm-up (50-65 ms
    # at start) even when it returns a string; a call that returns an object compiles what
    # it uses.
    param([hashtable] $Request)
    # The channel to Node, kept out of the request (which the tool's scope can read) in a
    # private variable: a tool shares this process, so this is tidiness, not a boundary.
    $ExecutionContext.SessionState.PSVariable.Set([psvariable]::new('__tpChannel', $Request['Channel'], [System.Management.Automation.ScopedItemOptions]::Private))
    $Request['Channel'] = $null
    if ($Request['Mode'] -eq 'prepare') {
        $null = __Toolpack-RunTool @{ Mode = 'prepare' }
        $Request['Baseline'] = __Toolpack-ReadState
        __Toolpack-Clean @{} $Request['Baseline']
        return
    }
    if ($Request['Mode'] -eq 'warm-session') {
        # Not a call: the session is loaded and the runspace cleaned, then it waits for the
        # session's first call (a failure leaves it uncleaned, so it is closed instead).
        if ($null -eq (__Toolpack-EnterSession $Request) -and $null -ne $Request['Baseline']) { __Toolpack-Clean $Request $Request['Baseline'] }
        return
    }
    # What ResetRunspaceState would reset, before the tool runs (see the end of this function):
    # as the last call on this runspace found and left it, when that call changed none of it.
    $stateBefore = $null
    $baseline = $Request['Baseline']
    if ($null -ne $Request['Fingerprint'] -and $null -ne $baseline -and $null -ne $baseline.VariableTable) {
        $kept = $baseline['Unchanged']
        $baseline['Unchanged'] = $null
        if ($null -ne $kept) {
            $stateBefore = $kept.State
            $locationBefore = $kept.Location
            $eventIdBefore = $kept.EventId
        } else {
            try {
                $stateBefore = $Request['Fingerprint'].Item1.Invoke($baseline.VariableTable)
                $locationBefore = $ExecutionContext.SessionState.Path.CurrentLocation.Path
                $eventIdBefore = $baseline.DebugTrace.EventId.GetValue($ExecutionContext.Events)
            } catch {
                $stateBefore = $null
            }
        }
    }
    $sessionFailure = if ($null -eq $Request['Session']) { $null } else { __Toolpack-EnterSession $Request }
    if ($null -eq $sessionFailure) {
        __Toolpack-RunTool $Request
    } else {
        $Request['Envelope'] = @{ Kind = 'error'; Text = $null; Json = $null; Error = $sessionFailure; File = $null; Line = 0; Truncated = $false }
    }
    # The answer is built here, on the runspace's own thread, so that calls finishing
    # together do not queue for the host's single loop to serialise them, and sent from here
    # when nothing else has to go with it (no stream records, no stop): waking the loop to
    # send it cost a thread switch per call, which on a busy machine is most of a call.
    $envelope = $Request['Envelope']
    $options = $Request['JsonOptions']
    if ($null -ne $envelope -and $null -ne $options) {
        # A flat message of strings, numbers and booleans: System.Text.Json writes it in a
        # few microseconds, where the general writer (__Toolpack-ConvertToJson) takes 0.3 ms.
        $answer = [System.Collections.Generic.Dictionary[string, object]]::new()
        $answer['type'] = 'result'
        $answer['id'] = [string]$Request['Id']
        $answer['kind'] = [string]$envelope['Kind']
        foreach ($name in 'Text', 'Json', 'Error', 'File') {
            $value = $envelope[$name]
            if ($null -eq $value) { $answer[$name.ToLowerInvariant()] = $null } else { $answer[$name.ToLowerInvariant()] = [string]$value }
        }
        $answer['line'] = [int]$envelope['Line']
        $answer['truncated'] = [bool]$envelope['Truncated']
        $answer['stopped'] = $false
        $answer['errorCount'] = 0
        $Request['Answer'] = [System.Text.Json.JsonSerializer]::Serialize($answer, [System.Collections.Generic.Dictionary[string, object]], $options) + "`n"
        $streams = $Request['Streams']
        if ($null -ne $__tpChannel -and $null -ne $streams) {
            # Under the call's lock, which the loop holds while it drains the call's streams or
            # stops it, and the channel's, which every writer holds: nothing interleaves.
            [System.Threading.Monitor]::Enter($Request)
            try {
                if (-not $Request['Stopping'] -and -not $Request['HadErrors'] -and $streams.Error.Count -eq 0 -and $streams.Warning.Count -eq 0 -and
                    $streams.Information.Count -eq 0 -and $streams.Progress.Count -eq 0 -and $streams.Verbose.Count -eq 0 -and $streams.Debug.Count -eq 0) {
                    [System.Threading.Monitor]::Enter($__tpChannel)
                    try {
                        # Marked before it is written: once Node has the answer, the next call
                        # can arrive and start at once, and it must find this call's tool ended
                        # (the process state it left is put back before the next one runs).
                        $Request['Answered'] = $true
                        try {
                            $__tpChannel.Write([string]$Request['Answer'])
                            $__tpChannel.Flush()
                        } catch {
                            $Request['Answered'] = $false
                            throw
                        }
                    } finally {
                        [System.Threading.Monitor]::Exit($__tpChannel)
                    }
                }
            } finally {
                [System.Threading.Monitor]::Exit($Request)
            }
        }
    }
    # A runspace whose session failed to load half-way is not cleaned, so it is closed.
    if ($null -ne $Request['Baseline'] -and $null -eq $sessionFailure) { __Toolpack-Clean $Request $Request['Baseline'] }
    # Unchanged: the call left everything ResetRunspaceState resets as it found it (global
    # variables, location, event subscriptions and events, none generated, breakpoints and the debugger's mode,
    # script tracing, history), so the host reuses the runspace without that reset, which
    # costs about 1 ms of CPU a call. Anything unlike before, or any failure to tell, resets.
    if ($null -ne $stateBefore -and $Request['Cleaned'] -eq $true -and $Request['Baseline'] -eq $baseline) {
        try {
            $global:ToolpackToolName = ''
            $trace = $baseline.DebugTrace
            $debugger = [runspace]::DefaultRunspace.Debugger
            $Request['Unchanged'] = $Request['Fingerprint'].Item2.Invoke($stateBefore, $Request['Fingerprint'].Item1.Invoke($baseline.VariableTable)) -and
                $ExecutionContext.SessionState.Path.CurrentLocation.Path -ceq $locationBefore -and
                $ExecutionContext.Events.Subscribers.Count -eq 0 -and $ExecutionContext.Events.ReceivedEvents.Count -eq 0 -and
                $trace.EventId.GetValue($ExecutionContext.Events) -eq $eventIdBefore -and
                $debugger.GetBreakpoints().Count -eq 0 -and $debugger.DebugMode -eq $trace.Mode -and
                [int]$trace.Level.GetValue($trace.Context) -eq 0 -and -not [bool]$trace.Step.GetValue($trace.Context) -and
                $(if ($null -ne $trace.History) { [int]$trace.History.Count.GetValue($trace.History.Property.GetValue([runspace]::DefaultRunspace)) -eq 0 } else { @(Get-History -Count 1).Count -eq 0 })
            if ($Request['Unchanged']) { $baseline['Unchanged'] = @{ State = $stateBefore; Location = $locationBefore; EventId = $eventIdBefore } }
        } catch {
            $Request['Unchanged'] = $false
        }
    }
    # Whether the process's environment and working directory are as the host started with,
    # now that the tool has ended: looked at here, after the answer, so that the loop need not
    # put them back (Restore-ProcessState, 40-60 us of its thread) before the next call starts.
    $processState = $Request['ProcessState']
    if ($null -ne $processState) { $Request['ProcessStateKept'] = __Toolpack-TestProcessState $processState }
}

function __Toolpack-TestProcessState {
    param([hashtable] $ProcessState)
    if ([System.Environment]::CurrentDirectory -cne $ProcessState.Directory) { return $false }
    $expected = $ProcessState.Environment
    $current = [System.Environment]::GetEnvironmentVariables()
    if ($current.Count -ne $expected.Count) { return $false }
    foreach ($entry in $expected.GetEnumerator()) {
        if (-not $current.ContainsKey($entry.Key) -or $current[$entry.Key] -cne $entry.Value) { return $false }
    }
    return $true
}

function __Toolpack-EnterSession {
    # A tool-folder source's session (a preload: list, or dotbot's own server session): the
    # variables and environment are set before every call (the reset after each call drops
    # them); the imports and the setup run once per runspace, after which the runspace's
    # baseline includes them, so __Toolpack-Clean keeps them and the host gives the runspace
    # only calls of the same session. Returns $null, or why the session cannot be had.
    param([hashtable] $__tpRequest)
    $__tpSession = $__tpRequest['Session']
    if ($null -eq $__tpSession) { return $null }
    $__tpVariables = $__tpSession['variables']
    if ($__tpVariables -is [hashtable]) {
        foreach ($__tpName in @($__tpVariables.Keys)) {
            $__tpValue = $__tpVariables[$__tpName]
            $__tpExisting = $ExecutionContext.SessionState.PSVariable.Get("global:$__tpName")
            # Text takes the type the variable has: 'Stop' becomes an ActionPreference.
            if ($null -ne $__tpExisting -and $null -ne $__tpExisting.Value -and $__tpValue -is [string] -and $__tpExisting.Value -isnot [string]) {
                $__tpValue = [System.Management.Automation.LanguagePrimitives]::ConvertTo($__tpValue, $__tpExisting.Value.GetType())
            }
            $ExecutionContext.SessionState.PSVariable.Set("global:$__tpName", $__tpValue)
        }
    }
    $__tpEnvironment = $__tpSession['environment']
    if ($__tpEnvironment -is [hashtable]) {
        foreach ($__tpName in @($__tpEnvironment.Keys)) {
            [System.Environment]::SetEnvironmentVariable([string]$__tpName, [string]$__tpEnvironment[$__tpName])
        }
    }
    if ($__tpRequest['SessionLoaded'] -eq $true) { return $null }
    $__tpProvider = $ExecutionContext.SessionState.InvokeProvider
    foreach ($__tpPath in @($__tpSession['imports'])) {
        $__tpPath = [string]$__tpPath
        try {
            if ($__tpPath -match '\.ps1$') {
                $__tpBefore = [System.Collections.Generic.HashSet[string]]::new([System.StringComparer]::OrdinalIgnoreCase)
                foreach ($__tpItem in $__tpProvider.ChildItem.Get('function:', $false)) { [void]$__tpBefore.Add([string]$__tpItem.Name) }
                $null = . $__tpPath
                # Dot-sourced here, its functions live in this function's scope: make them
                # global, as a script dot-sourced at the top of a server script leaves them.
                foreach ($__tpItem in @($__tpProvider.ChildItem.Get('function:', $false))) {
                    if ($__tpBefore.Contains([string]$__tpItem.Name) -or $null -ne $__tpItem.Module) { continue }
                    $null = $__tpProvider.Item.Set("function:global:$($__tpItem.Name)", $__tpItem.ScriptBlock)
                }
            } else {
                $null = Import-Module -Name $__tpPath -Global -DisableNameChecking -ErrorAction Stop
            }
        } catch {
            return "The tool's session ($([string]$__tpSession['origin'])) could not load $($__tpPath): $($_.Exception.Message)"
        }
    }
    if (-not [string]::IsNullOrEmpty([string]$__tpSession['setup'])) {
        try {
            $null = . ([scriptblock]::Create([string]$__tpSession['setup']))
        } catch {
            return "The tool's session ($([string]$__tpSession['origin'])) could not be set up: $($_.Exception.Message)"
        }
    }
    $__tpRequest['Baseline'] = __Toolpack-ReadState
    $__tpRequest['SessionLoaded'] = $true
    return $null
}

function __Toolpack-RunTool {
    # Runs one tool in the current runspace and stores the outcome in the request itself
    # (the host reads it after the pipeline ends), so nothing the tool does to the output
    # stream can be mistaken for the envelope. Variables are prefixed because a tool-folder
    # script is dot-sourced into this scope.
    param([hashtable] $__tpRequest)

    if ($__tpRequest['Mode'] -eq 'prepare') { return }
    $__tpArguments = $__tpRequest['Arguments']
    if ($null -eq $__tpArguments) { $__tpArguments = @{} }
    $global:ToolpackToolName = [string]$__tpRequest['ToolName']
    $__tpOutput = $null
    $__tpFailure = $null
    try {
        $__tpMode = [string]$__tpRequest['Mode']
        # Server-bound credentials (toolpack.yaml credentials:) become a SecureString or a
        # PSCredential here, in the tool's own runspace just before the call; the plain text
        # leaves the request at once and no variable of this scope keeps it for the tool to see.
        $__tpCredentials = $__tpRequest['Credentials']
        $__tpRequest['Credentials'] = $null
        if ($null -ne $__tpCredentials -and $__tpMode -ne 'tool-folder') {
            foreach ($__tpCredential in $__tpCredentials) {
                $__tpSecret = [System.Net.NetworkCredential]::new('', [string]$__tpCredential['password']).SecurePassword
                $__tpSecret.MakeReadOnly()
                if ([string]$__tpCredential['type'] -eq 'pscredential') {
                    $__tpSecret = [System.Management.Automation.PSCredential]::new([string]$__tpCredential['username'], $__tpSecret)
                }
                $__tpArguments[[string]$__tpCredential['parameter']] = $__tpSecret
            }
        }
        $__tpCredentials = $null
        $__tpCredential = $null
        $__tpSecret = $null
        if ($__tpMode -eq 'tool-folder' -or $__tpMode -eq 'script') {
            $__tpScript = [string]$__tpRequest['ScriptPath']
            # A file that is not there is left to the path's own error.
            $__tpCommand = $__tpScript
            $__tpFactory = $__tpRequest['ScriptCommand']
            if ($null -ne $__tpFactory -and [System.IO.Path]::IsPathRooted($__tpScript) -and [System.IO.File]::Exists($__tpScript)) {
                $__tpCommand = $__tpFactory.Constructor.Invoke(@([System.IO.Path]::GetFileName($__tpScript), $__tpScript, $__tpFactory.Context.GetValue($ExecutionContext)))
            }
            $__tpFactory = $null
            if ($__tpMode -eq 'tool-folder') {
                $__tpFunction = [string]$__tpRequest['FunctionName']
                $null = . $__tpCommand
                $__tpOutput = @(& $__tpFunction -Arguments $__tpArguments)
            } else {
                $__tpOutput = @(& $__tpCommand @__tpArguments)
            }
        } else {
            $__tpFunction = [string]$__tpRequest['FunctionName']
            $__tpOutput = @(& $__tpFunction @__tpArguments)
        }
    } catch {
        $__tpFailure = $_
    }

    $__tpEnvelope = @{ Kind = 'none'; Text = $null; Json = $null; Error = $null; File = $null; Line = 0; Truncated = $false }
    $__tpMax = [long]$__tpRequest['MaxOutputChars']

    if ($null -ne $__tpFailure) {
        $__tpEnvelope['Kind'] = 'error'
        $__tpEnvelope['Error'] = [string]$__tpFailure.Exception.Message
        $__tpInfo = $__tpFailure.InvocationInfo
        if ($null -ne $__tpInfo -and -not [string]::IsNullOrEmpty($__tpInfo.ScriptName)) {
            $__tpEnvelope['File'] = [string]$__tpInfo.ScriptName
            $__tpEnvelope['Line'] = [int]$__tpInfo.ScriptLineNumber
        } else {
            foreach ($__tpFrame in ([string]$__tpFailure.ScriptStackTrace -split "`n")) {
                if ($__tpFrame -match '^\s*at .*?, (?<file>.+): line (?<line>\d+)\s*$' -and $Matches['file'] -ne '<No file>') {
                    $__tpEnvelope['File'] = [string]$Matches['file']
                    $__tpEnvelope['Line'] = [int]$Matches['line']
                    break
                }
            }
        }
        if ($null -eq $__tpEnvelope['File'] -and -not [string]::IsNullOrEmpty([string]$__tpRequest['ScriptPath'])) {
            $__tpEnvelope['File'] = [string]$__tpRequest['ScriptPath']
        }
        $__tpRequest['Envelope'] = $__tpEnvelope
        return
    }

    $__tpCount = 0
    foreach ($__tpItem in $__tpOutput) { if ($null -ne $__tpItem) { $__tpCount++ } }
    if ($__tpCount -eq 0) {
        $__tpRequest['Envelope'] = $__tpEnvelope
        return
    }

    if ($__tpOutput.Count -eq 1 -and $__tpOutput[0] -is [string]) {
        $__tpText = [string]$__tpOutput[0]
        if ($__tpText.Length -gt $__tpMax) {
            $__tpText = $__tpText.Substring(0, [int]$__tpMax)
            $__tpEnvelope['Truncated'] = $true
        }
        $__tpEnvelope['Kind'] = 'text'
        $__tpEnvelope['Text'] = $__tpText
        $__tpRequest['Envelope'] = $__tpEnvelope
        return
    }

    # One object is the result itself; several are an array (PowerShell's own rule).
    if ($__tpOutput.Count -eq 1) { $__tpValue = $__tpOutput[0] } else { $__tpValue = $__tpOutput }
    try {
        $__tpSession = $__tpRequest['Session']
        if ($null -ne $__tpSession -and [string]$__tpSession['jsonWriter'] -eq 'ConvertTo-Json') {
            # As dotbot's server writes a result (Invoke-CallTool in dotbot-mcp.ps1).
            $__tpText = [string](ConvertTo-Json -InputObject $__tpValue -Depth 100 -Compress)
            $__tpJson = @{ Json = $__tpText; Truncated = $false }
            if ($__tpText.Length -gt $__tpMax) { $__tpJson = @{ Json = $__tpText.Substring(0, [int]$__tpMax); Truncated = $true } }
        } else {
            $__tpJson = __Toolpack-ConvertToJson -Value $__tpValue -MaxChars $__tpMax -Compiled $__tpRequest['JsonWriter']
        }
        $__tpEnvelope['Kind'] = 'json'
        $__tpEnvelope['Json'] = [string]$__tpJson['Json']
        $__tpEnvelope['Truncated'] = [bool]$__tpJson['Truncated']
    } catch {
        $__tpEnvelope['Kind'] = 'error'
        $__tpEnvelope['Error'] = "The tool's result could not be converted to JSON: $($_.Exception.Message)"
    }
    $__tpRequest['Envelope'] = $__tpEnvelope
}

function __Toolpack-ReadState {
    # What the global scope holds besides variables (which ResetRunspaceState restores):
    # function, alias and drive names, and the modules imported, by path.
    $provider = $ExecutionContext.SessionState.InvokeProvider
    $state = @{
        Functions = [System.Collections.Generic.HashSet[string]]::new([System.StringComparer]::OrdinalIgnoreCase)
        Aliases   = [System.Collections.Generic.HashSet[string]]::new([System.StringComparer]::OrdinalIgnoreCase)
        Drives    = [System.Collections.Generic.HashSet[string]]::new([System.StringComparer]::OrdinalIgnoreCase)
        Modules   = [System.Collections.Generic.HashSet[string]]::new([System.StringComparer]::Ordinal)
    }
    foreach ($item in $provider.ChildItem.Get('function:', $false)) { [void]$state.Functions.Add([string]$item.Name) }
    foreach ($item in $provider.ChildItem.Get('alias:', $false)) { [void]$state.Aliases.Add([string]$item.Name) }
    foreach ($drive in $ExecutionContext.SessionState.Drive.GetAll()) { [void]$state.Drives.Add([string]$drive.Name) }
    foreach ($module in (Get-Module)) { [void]$state.Modules.Add([string]$module.Path) }
    # How many type and format entries the runspace's own InitialSessionState lists: each
    # Update-TypeData, Remove-TypeData, Update-FormatData and module type or format file adds
    # one there (Remove-Module takes a module's out again), and no reset restores those tables.
    $initial = [runspace]::DefaultRunspace.InitialSessionState
    $state['TypeData'] = @(@{ Entries = $initial.Types; Known = $initial.Types.Count }, @{ Entries = $initial.Formats; Known = $initial.Formats.Count })
    # The global scope's alias and function tables themselves (PowerShell's internals since
    # 7.2, read by reflection, created once per runspace): __Toolpack-Clean compares their
    # names with the baseline in one call, where listing the alias: and function: drives cost
    # about 0.4 ms a call. Where a PowerShell names them otherwise, the drives are listed.
    $state['AliasTable'] = $null
    $state['FunctionTable'] = $null
    $state['VariableTable'] = $null
    $state['DebugTrace'] = $null
    $state['GlobalScope'] = $null
    $state['GlobalDrives'] = $null
    $state['ModuleTable'] = $null
    $state['ModuleKeys'] = $null
    try {
        $flags = [System.Reflection.BindingFlags]'Instance, NonPublic'
        $internal = [System.Management.Automation.SessionState].GetProperty('Internal', $flags).GetValue($ExecutionContext.SessionState)
        $scope = $internal.GetType().GetProperty('GlobalScope', $flags).GetValue($internal)
        $aliasTable = $scope.GetType().GetMethod('GetAliases', $flags, $null, [type[]]@(), $null).Invoke($scope, @())
        $functionTable = $scope.GetType().GetProperty('FunctionTable', $flags).GetValue($scope)
        if ($aliasTable -is [System.Collections.Generic.Dictionary[string, System.Management.Automation.AliasInfo]] -and
            $functionTable -is [System.Collections.Generic.Dictionary[string, System.Management.Automation.FunctionInfo]]) {
            $state['AliasTable'] = $aliasTable
            $state['FunctionTable'] = $functionTable
            # What each is, in the tables' own order (a dictionary's keys and values enumerate
            # alike), by member enumeration: one step each, on the first call's path.
            $functions = [object[]]@($functionTable.Values)
            $aliases = [object[]]@($aliasTable.Values)
            $state['Definitions'] = @(
                @{ Table = $functionTable; Names = [string[]]@($functionTable.Keys); Items = $functions; Members = [object[]]@($functions.ScriptBlock); Options = [object[]]@($functions.Options); Member = 'ScriptBlock' },
                @{ Table = $aliasTable; Names = [string[]]@($aliasTable.Keys); Items = $aliases; Members = [object[]]@($aliases.Definition); Options = [object[]]@($aliases.Options); Member = 'Definition' })
        }
        # The global scope's own drives: what __Toolpack-Clean lists after each call, where
        # Drive.GetAll() also reads the system's mount table (0.05 ms a call on Linux).
        $globalDrives = $scope.GetType().GetProperty('Drives', $flags)
        if ($null -ne $globalDrives -and $globalDrives.PropertyType -eq [System.Collections.Generic.IEnumerable[System.Management.Automation.PSDriveInfo]]) {
            $state['GlobalScope'] = $scope
            $state['GlobalDrives'] = $globalDrives
        }
        $variableTable = $scope.GetType().GetProperty('Variables', $flags).GetValue($scope)
        $context = [System.Management.Automation.EngineIntrinsics].GetField('_context', $flags).GetValue($ExecutionContext)
        $traceLevel = $context.GetType().GetProperty('PSDebugTraceLevel', $flags)
        $traceStep = $context.GetType().GetProperty('PSDebugTraceStep', $flags)
        # The event manager numbers each event it is given at once, and queues the event itself
        # to a thread-pool thread: a generated event may not be in ReceivedEvents yet.
        $eventId = [System.Management.Automation.PSEventManager].GetField('_nextEventId', $flags)
        if ($variableTable -is [System.Collections.Generic.IDictionary[string, System.Management.Automation.PSVariable]] -and
            $null -ne $traceLevel -and $null -ne $traceStep -and $null -ne $eventId) {
            $state['VariableTable'] = $variableTable
            $state['DebugTrace'] = @{ Context = $context; Level = $traceLevel; Step = $traceStep; Mode = [runspace]::DefaultRunspace.Debugger.DebugMode; EventId = $eventId; History = $null }
            # The runspace's history (a new object after each reset) and its count, which the
            # check after a call reads instead of running Get-History (0.03 ms a call).
            $historyProperty = [runspace]::DefaultRunspace.GetType().GetProperty('History', $flags)
            if ($null -ne $historyProperty) {
                $historyCount = $historyProperty.PropertyType.GetField('_countEntriesInBuffer', $flags)
                if ($null -ne $historyCount -and $historyCount.FieldType -eq [int]) { $state['DebugTrace']['History'] = @{ Property = $historyProperty; Count = $historyCount } }
            }
        }
        # The global session state's module table (keyed by path, what Get-Module lists): the
        # clean-up runs Get-Module (0.03 ms a call) only when its keys are not the ones it left.
        $moduleTable = $internal.GetType().GetProperty('ModuleTable', $flags).GetValue($internal)
        if ($moduleTable -is [System.Collections.Generic.Dictionary[string, System.Management.Automation.PSModuleInfo]]) {
            $state['ModuleTable'] = $moduleTable
            $state['ModuleKeys'] = [System.Collections.Generic.HashSet[string]]::new([string[]]@($moduleTable.Keys), [System.StringComparer]::Ordinal)
        }
    } catch { }
    return $state
}

function __Toolpack-TestDefinitions {
    # Whether the baseline's functions and aliases are the very ones it had (the object, its
    # script block or definition, its options): a tool that redefines one in the global scope
    # (function global:prompt, an alias set with -Force) keeps its name, so no name is left to
    # remove, yet the next call would run its version.
    param([hashtable] $Request, [hashtable] $Baseline)
    $check = $Request['DefinitionCheck']
    foreach ($definitions in $Baseline.Definitions) {
        if ($null -ne $check) {
            if (-not $check.Invoke($definitions.Table, $definitions.Names, $definitions.Items, $definitions.Members, $definitions.Options)) { return $false }
            continue
        }
        # Until the host's first rest compiles the check: the same comparison, in PowerShell.
        $member = $definitions.Member
        for ($index = 0; $index -lt $definitions.Names.Length; $index++) {
            $item = $null
            if (-not $definitions.Table.TryGetValue($definitions.Names[$index], [ref]$item) -or
                -not [object]::Equals($item, $definitions.Items[$index]) -or
                -not [object]::Equals($item.$member, $definitions.Members[$index]) -or
                -not [object]::Equals($item.Options, $definitions.Options[$index])) { return $false }
        }
    }
    return $true
}

function __Toolpack-TestTypeData {
    # Whether the runspace's type and format data are still the baseline's: a tool's
    # Update-TypeData (a ScriptProperty on [string], say) would otherwise be seen by every later
    # call on the runspace, since neither __Toolpack-Clean nor ResetRunspaceState reaches them.
    # Entries added from files under $PSHOME are pwsh's own modules' (PSResourceGet,
    # PSReadLine), which stay loaded as those modules do: they become the baseline's.
    param([hashtable] $Baseline)
    foreach ($table in $Baseline.TypeData) {
        $entries = $table.Entries
        $known = $table.Known
        if ($entries.Count -eq $known) { continue }
        if ($entries.Count -lt $known -or [string]::IsNullOrEmpty($PSHOME)) { return $false }
        for ($index = $known; $index -lt $entries.Count; $index++) {
            $file = [string]$entries[$index].FileName
            if ($file.Length -eq 0 -or -not $file.StartsWith($PSHOME, [System.StringComparison]::OrdinalIgnoreCase)) { return $false }
        }
        $table.Known = $entries.Count
    }
    return $true
}

function __Toolpack-Clean {
    # Runs after each script or tool-folder call on a runspace that is kept for the next
    # one: removes the functions, aliases, drives and modules the call left in the global
    # scope (ResetRunspaceState, run by the host next, restores variables and the location).
    # Modules from $PSHOME stay: pwsh's own modules (loaded on first use of their cmdlets)
    # carry no tool state, and loading them again would cost every call. Sets Cleaned only
    # when everything went, so a runspace it could not clean is closed instead of reused.
    param([hashtable] $Request, [hashtable] $Baseline)
    $provider = $ExecutionContext.SessionState.InvokeProvider
    try {
    $moduleTable = $Baseline.ModuleTable
    if ($null -eq $moduleTable -or -not $Baseline.ModuleKeys.SetEquals($moduleTable.Keys)) {
        foreach ($module in @(Get-Module)) {
            if ($Baseline.Modules.Contains([string]$module.Path)) { continue }
            if (-not [string]::IsNullOrEmpty($PSHOME) -and ([string]$module.ModuleBase).StartsWith($PSHOME, [System.StringComparison]::OrdinalIgnoreCase)) { continue }
            Remove-Module -ModuleInfo $module -Force -ErrorAction Stop
        }
        # What stays: the baseline's modules and pwsh's own that calls loaded.
        if ($null -ne $moduleTable) { $Baseline['ModuleKeys'] = [System.Collections.Generic.HashSet[string]]::new([string[]]@($moduleTable.Keys), [System.StringComparer]::Ordinal) }
    }
    # No name beyond the baseline's in a table: nothing of it to remove, without listing it.
    if ($null -eq $Baseline.FunctionTable -or -not $Baseline.Functions.IsSupersetOf($Baseline.FunctionTable.Keys)) {
        foreach ($item in @($provider.ChildItem.Get('function:', $false))) {
            if ($Baseline.Functions.Contains([string]$item.Name) -or $null -ne $item.Module) { continue }
            $provider.Item.Remove([string[]]@("function:\$($item.Name)"), $false, $true, $true)
        }
    }
    if ($null -eq $Baseline.AliasTable -or -not $Baseline.Aliases.IsSupersetOf($Baseline.AliasTable.Keys)) {
        foreach ($item in @($provider.ChildItem.Get('alias:', $false))) {
            if ($Baseline.Aliases.Contains([string]$item.Name) -or $null -ne $item.Module) { continue }
            $provider.Item.Remove([string[]]@("alias:\$($item.Name)"), $false, $true, $true)
        }
    }
    # Only the global scope's drives outlive the call (the tool's scopes have ended).
    $drives = if ($null -ne $Baseline.GlobalDrives) { @($Baseline.GlobalDrives.GetValue($Baseline.GlobalScope)) } else { @($ExecutionContext.SessionState.Drive.GetAll()) }
    foreach ($drive in $drives) {
        if ($Baseline.Drives.Contains([string]$drive.Name)) { continue }
        $ExecutionContext.SessionState.Drive.Remove([string]$drive.Name, $true, 'global')
    }
    # A baseline function or alias redefined: the runspace is closed rather than mended
    # (a new runspace's own clean-up, right after its baseline was read, has none to look at).
    if ($null -ne $Request['Mode'] -and -not (__Toolpack-TestDefinitions $Request $Baseline)) { return }
    # Type or format data changed: closed as well, for no public API takes them back.
    if (-not (__Toolpack-TestTypeData $Baseline)) { return }
    $Request['Cleaned'] = $true
    } catch {
        # Not cleaned: the host closes this runspace instead of reusing it.
    }
}

# ---------------------------------------------------------------------------------------
# The host itself.
# ---------------------------------------------------------------------------------------

function ConvertFrom-ToolpackJsonElement {
    # JSON -> hashtables, object[] and primitives, keeping strings as strings
    # (ConvertFrom-Json would turn date-like strings into DateTime). Reads the messages that
    # arrive before the compiled reader of New-JsonCodecs, which does the same, is built.
    param($Element)
    $kind = [string]$Element.ValueKind
    if ($kind -eq 'Object') {
        $table = @{}
        foreach ($property in $Element.EnumerateObject()) {
            $table[$property.Name] = ConvertFrom-ToolpackJsonElement $property.Value
        }
        return $table
    }
    if ($kind -eq 'Array') {
        $items = [System.Collections.Generic.List[object]]::new()
        foreach ($item in $Element.EnumerateArray()) {
            $items.Add((ConvertFrom-ToolpackJsonElement $item))
        }
        return , $items.ToArray()
    }
    if ($kind -eq 'String') { return [string]$Element.GetString() }
    if ($kind -eq 'Number') {
        $raw = [string]$Element.GetRawText()
        if ($raw -notmatch '[.eE]') {
            [long] $integer = 0
            if ($Element.TryGetInt64([ref] $integer)) { return $integer }
            [decimal] $exact = 0
            if ($Element.TryGetDecimal([ref] $exact)) { return $exact }
        }
        return [double]$Element.GetDouble()
    }
    if ($kind -eq 'True') { return $true }
    if ($kind -eq 'False') { return $false }
    return $null
}

function Send-Message {
    # Logs, progress and questions, on the loop's thread: with the compiled writer once the
    # host has built it (the same text; json-codecs.test.ts), a few microseconds a message
    # instead of about 0.3 ms.
    param([System.Collections.IDictionary] $Message)
    $compiled = if ($null -ne $script:Codecs) { $script:Codecs.Item2 } else { $null }
    $line = [string](__Toolpack-ConvertToJson -Value $Message -MaxChars 1073741823 -Compiled $compiled)['Json'] + "`n"
    Write-Channel $line
}

function Write-Channel {
    # Tool runspaces send their own answers (__Toolpack-InvokeTool): every write holds the lock.
    param([string] $Line)
    [System.Threading.Monitor]::Enter($script:Writer)
    try {
        $script:Writer.Write($Line)
        $script:Writer.Flush()
    } finally {
        [System.Threading.Monitor]::Exit($script:Writer)
    }
}

function Send-Log {
    param([hashtable] $Call, [string] $Level, [string] $Message)
    if ($Call['LogCount'] -ge $script:MaxLogsPerCall) { return }
    $Call['LogCount'] = [int]$Call['LogCount'] + 1
    if ($Message.Length -gt $script:MaxLogChars) { $Message = $Message.Substring(0, $script:MaxLogChars) + ' [truncated]' }
    Send-Message ([ordered]@{ type = 'log'; id = [string]$Call['Id']; level = $Level; message = $Message })
}

function Format-ErrorRecord {
    param($Record)
    $message = [string]$Record.Exception.Message
    if ([string]::IsNullOrEmpty($message)) { $message = [string]$Record }
    $info = $Record.InvocationInfo
    if ($null -ne $info -and -not [string]::IsNullOrEmpty($info.ScriptName)) {
        $message = "$message (at $($info.ScriptName):$($info.ScriptLineNumber))"
    }
    return $message
}

function Send-StreamRecords {
    # Streams are drained (ReadAll) rather than indexed, so a chatty tool cannot grow them
    # without bound while it runs.
    param([hashtable] $Call)
    if ($Call['Warm'] -eq $true) { return }
    $streams = $Call['Shell'].Streams
    if (Test-StreamsEmpty $streams) { return }
    # Under the call's lock: its runspace, about to send the answer itself, sees either the
    # records still there or HadErrors set, never an answer sent ahead of the records.
    [System.Threading.Monitor]::Enter($Call['Request'])
    try {
        Send-DrainedRecords $Call $streams
    } finally {
        [System.Threading.Monitor]::Exit($Call['Request'])
    }
}

function Send-DrainedRecords {
    param([hashtable] $Call, [System.Management.Automation.PSDataStreams] $streams)
    # A burst of one activity's records (a tight loop) is sent as its latest only: a loop of
    # 10,000 Write-Progress calls costs the channel a few messages per drain, not 10,000.
    # Completions and changes of activity are kept, in order: Node needs them to follow nesting.
    $progress = [System.Collections.Generic.List[object]]::new()
    foreach ($record in $streams.Progress.ReadAll()) {
        $completed = $record.RecordType -eq [System.Management.Automation.ProgressRecordType]::Completed
        $last = if ($progress.Count -gt 0) { $progress[$progress.Count - 1] } else { $null }
        if (-not $completed -and $null -ne $last -and -not $last['completed'] -and $last['activityId'] -eq $record.ActivityId -and $last['parentId'] -eq $record.ParentActivityId) {
            $progress.RemoveAt($progress.Count - 1)
        }
        $progress.Add([ordered]@{
                type = 'progress'; id = [string]$Call['Id']; activityId = [int]$record.ActivityId; parentId = [int]$record.ParentActivityId
                activity = [string]$record.Activity; status = [string]$record.StatusDescription; operation = [string]$record.CurrentOperation
                percent = [int]$record.PercentComplete; completed = $completed
            })
    }
    foreach ($message in $progress) { Send-Message $message }
    foreach ($record in $streams.Error.ReadAll()) {
        $Call['ErrorCount'] = [int]$Call['ErrorCount'] + 1
        $Call['Request']['HadErrors'] = $true
        Send-Log $Call 'error' (Format-ErrorRecord $record)
    }
    foreach ($record in $streams.Warning.ReadAll()) { Send-Log $Call 'warning' ([string]$record.Message) }
    foreach ($record in $streams.Information.ReadAll()) { Send-Log $Call 'info' ([string]$record.MessageData) }
    foreach ($record in $streams.Verbose.ReadAll()) { Send-Log $Call 'debug' ([string]$record.Message) }
    foreach ($record in $streams.Debug.ReadAll()) { Send-Log $Call 'debug' ([string]$record.Message) }
}

function New-ToolpackSessionState {
    # CreateDefault2, as pwsh's own console uses: the core engine, with every other module
    # (Microsoft.PowerShell.Utility, .Management...) loaded on first use from PSModulePath.
    # CreateDefault() imports those as snap-ins up front and throws where they are absent.
    $state = [System.Management.Automation.Runspaces.InitialSessionState]::CreateDefault2()
    if ($IsWindows) { $state.ExecutionPolicy = [Microsoft.PowerShell.ExecutionPolicy]::Bypass }
    foreach ($name in @('ToolpackProjectRoot', 'DotbotProjectRoot')) {
        $state.Variables.Add([System.Management.Automation.Runspaces.SessionStateVariableEntry]::new($name, $ProjectRoot, 'The Toolpack project root'))
    }
    # Set to the tool's name for its call and back to '' after it: a clean runspace has it.
    $state.Variables.Add([System.Management.Automation.Runspaces.SessionStateVariableEntry]::new('ToolpackToolName', '', 'The name of the tool being called'))
    # ReadOnly: a tool that defines a function of the same name gets an error instead of
    # replacing the host's own for the calls that follow on a reused runspace.
    foreach ($name in @('__Toolpack-WriteJsonValue', '__Toolpack-ConvertToJson', '__Toolpack-InvokeTool', '__Toolpack-EnterSession', '__Toolpack-RunTool', '__Toolpack-ReadState', '__Toolpack-Clean', '__Toolpack-TestProcessState', '__Toolpack-TestDefinitions', '__Toolpack-TestTypeData')) {
        $definition = $ExecutionContext.InvokeCommand.GetCommand($name, [System.Management.Automation.CommandTypes]::Function).Definition
        $state.Commands.Add([System.Management.Automation.Runspaces.SessionStateFunctionEntry]::new(
                $name, $definition, [System.Management.Automation.ScopedItemOptions]::ReadOnly, $null))
    }
    return $state
}

function Connect-Channel {
    param([string] $Path)
    if ($IsWindows) {
        $name = $Path -replace '^\\\\\.\\pipe\\', ''
        $pipe = [System.IO.Pipes.NamedPipeClientStream]::new('.', $name, [System.IO.Pipes.PipeDirection]::InOut, [System.IO.Pipes.PipeOptions]::Asynchronous)
        $pipe.Connect(10000)
        return $pipe
    }
    $socket = [System.Net.Sockets.Socket]::new([System.Net.Sockets.AddressFamily]::Unix, [System.Net.Sockets.SocketType]::Stream, [System.Net.Sockets.ProtocolType]::Unspecified)
    $socket.Connect([System.Net.Sockets.UnixDomainSocketEndPoint]::new($Path))
    return [System.Net.Sockets.NetworkStream]::new($socket, $true)
}

function New-ToolRunspace {
    # A runspace with a host of its own, whose interface knows the call it serves.
    $interface = $script:HostTypes['Interface']::new($script:QuestionQueue)
    $toolHost = $script:HostTypes['Host']::new($interface)
    $runspace = [System.Management.Automation.Runspaces.RunspaceFactory]::CreateRunspace($toolHost, $script:SessionState)
    return @{ Runspace = $runspace; Interface = $interface }
}

function New-ScriptRunspace {
    # -Now: the first runspace at start, opened on this thread (nothing can run before it is
    # ready anyway) and its preparation started at once, instead of when the loop next looks.
    param([switch] $Now)
    $created = New-ToolRunspace
    $runspace = $created['Runspace']
    # One pipeline thread per runspace, kept between calls (the default starts a thread per call).
    $runspace.ThreadOptions = [System.Management.Automation.Runspaces.PSThreadOptions]::ReuseThread
    if ($Now) {
        # A failure leaves it Broken, which Update-Pool reports as for any runspace.
        try { $runspace.Open() } catch { }
    } else {
        $runspace.OpenAsync()
    }
    $script:RunspaceCount = $script:RunspaceCount + 1
    $entry = @{ Runspace = $runspace; Interface = $created['Interface']; Shell = $null; Task = $null; Request = $null; Baseline = $null; Uses = 0; Session = '' }
    $script:Preparing.Add($entry)
    if ($Now -and $runspace.RunspaceStateInfo.State -eq 'Opened') { Start-Preparation $entry }
}

function Close-ScriptRunspace {
    param([System.Management.Automation.Runspaces.Runspace] $Runspace)
    $script:RunspaceCount = $script:RunspaceCount - 1
    try {
        $Runspace.CloseAsync()
        $script:Closing.Add($Runspace)
    } catch {
        try { $Runspace.Dispose() } catch { }
    }
}

function Start-Preparation {
    # A runspace is ready once a pipeline of ours has run on it to the end: PowerShell reports
    # Opened before it has finished opening (LocalConnection.DoOpenHelper). That pipeline also
    # compiles the Toolpack functions and records what a clean runspace holds.
    param([hashtable] $Entry)
    $shell = [System.Management.Automation.PowerShell]::Create()
    $shell.Runspace = $Entry['Runspace']
    $Entry['Request'] = @{ Mode = 'prepare'; Baseline = $null }
    [void]$shell.AddCommand('__Toolpack-InvokeTool').AddParameter('Request', $Entry['Request'])
    try {
        $Entry['Task'] = $shell.InvokeAsync()
        $Entry['Shell'] = $shell
    } catch {
        $shell.Dispose()
    }
}

function Update-Pool {
    for ($index = $script:Preparing.Count - 1; $index -ge 0; $index--) {
        $entry = $script:Preparing[$index]
        $runspace = $entry['Runspace']
        $failure = $null
        if ($null -ne $entry['Task']) {
            if (-not $entry['Task'].IsCompleted) { continue }
            if ($entry['Task'].IsFaulted) {
                $failure = [string]$entry['Task'].Exception.GetBaseException().Message
            } elseif ($null -eq $entry['Request']['Baseline']) {
                $failure = 'the runspace could not be prepared'
            }
            $entry['Baseline'] = $entry['Request']['Baseline']
            $entry['Shell'].Dispose()
            $entry['Shell'] = $null
            $entry['Task'] = $null
            if ($null -eq $failure) {
                $script:Preparing.RemoveAt($index)
                $script:Idle.Push($entry)
                $script:PoolFailures = 0
                continue
            }
        } else {
            $state = $runspace.RunspaceStateInfo.State
            if ($state -eq 'BeforeOpen' -or $state -eq 'Opening') { continue }
            if ($state -eq 'Opened') { Start-Preparation $entry; continue }
            $failure = 'the runspace could not be opened'
            if ($null -ne $runspace.RunspaceStateInfo.Reason) { $failure = [string]$runspace.RunspaceStateInfo.Reason.Message }
        }
        $script:Preparing.RemoveAt($index)
        Close-ScriptRunspace $runspace
        $script:PoolFailures = $script:PoolFailures + 1
        # Fail a waiting call rather than let it wait for a pool that cannot fill.
        if ($script:PendingScripts.Count -gt 0) {
            $call = $script:PendingScripts[0]
            $script:PendingScripts.RemoveAt(0)
            Send-Failure $call "Cannot create a PowerShell runspace: $failure"
        }
    }
    if ($script:PoolFailures -ge 3) { return }
    # Runspaces are opened as calls need them, up to PoolSize, and then kept: calls that have
    # waited GrowAfterMs, beyond those already opening, get a new one; two are kept ready once
    # the first is. One whose call has answered is being cleaned and is idle again in a
    # millisecond or two.
    # The second waits until the first has been idle with no call waiting (unless a second
    # call needs it): on a small machine its opening would share the cores with the first's
    # preparation and the first call, which is what a client that just started waits for.
    if ($script:Idle.Count -gt 0 -and $script:PendingScripts.Count -eq 0) { $script:FirstServed = $true }
    $cleaning = 0
    foreach ($call in $script:Calls.Values) { if ($null -ne $call['Entry'] -and $call['Request']['Answered'] -eq $true) { $cleaning++ } }
    $floor = if ($script:FirstServed) { $script:WarmRunspaces } else { 1 }
    # A call counts as waiting for a runspace of its own once it has waited GrowAfterMs: the
    # runspaces already open free up within a millisecond or two of a short call, and opening
    # one costs ~0.1 s of CPU, which a burst of short calls on a small machine waits for.
    $waiting = 0
    $grownAt = [System.Diagnostics.Stopwatch]::GetTimestamp() - $script:GrowAfterTicks
    foreach ($call in $script:PendingScripts) { if ([long]$call['QueuedAt'] -le $grownAt) { $waiting++ } }
    $wanted = [Math]::Min($PoolSize, [Math]::Max($floor, $script:RunspaceCount - $script:Idle.Count - $script:Preparing.Count - $script:Reviving.Count - $script:Resetting.Count - $cleaning + $waiting))
    while ($script:RunspaceCount -lt $wanted) { New-ScriptRunspace }
}

function Test-ProcessStateDirty {
    if ($script:ProcessStateDirty) { return -not (Test-ToolsRunning) }
    foreach ($call in $script:Calls.Values) {
        # A call starts as soon as it arrives, before the loop has taken in the calls that
        # ended: one that has answered or whose pipeline has ended may have changed it, unless
        # its runspace found it as the host started once the tool had ended.
        if ($null -ne $call['Entry'] -and $call['Request']['ProcessStateKept'] -ne $true -and
            ($call['Request']['Answered'] -eq $true -or ($null -ne $call['Task'] -and $call['Task'].IsCompleted))) {
            return -not (Test-ToolsRunning)
        }
    }
    return $false
}

function Test-ToolsRunning {
    # A call that has sent its answer runs no more tool code (only the clean-up of its
    # runspace), nor does one whose pipeline has ended.
    foreach ($call in $script:Calls.Values) {
        if ($null -ne $call['Task'] -and -not $call['Task'].IsCompleted -and $call['Request']['Answered'] -ne $true) { return $true }
    }
    return $false
}

function Restore-ProcessState {
    # The environment and the working directory belong to the process, not to a runspace:
    # put back what the last calls changed, once none is running (calls that run at the same
    # time share them, as they would in any PowerShell process).
    $script:ProcessStateDirty = $false
    if ([System.Environment]::CurrentDirectory -ne $script:StartDirectory) {
        try { [System.Environment]::CurrentDirectory = $script:StartDirectory } catch { }
    }
    $current = [System.Environment]::GetEnvironmentVariables()
    foreach ($name in @($current.Keys)) {
        if (-not $script:Environment.ContainsKey($name)) { [System.Environment]::SetEnvironmentVariable([string]$name, [NullString]::Value) }
    }
    foreach ($entry in $script:Environment.GetEnumerator()) {
        if ($current[$entry.Key] -cne $entry.Value) { [System.Environment]::SetEnvironmentVariable([string]$entry.Key, [string]$entry.Value) }
    }
}

function Get-ModuleSlot {
    param([string] $ModulePath)
    if ($script:Modules.ContainsKey($ModulePath)) { return $script:Modules[$ModulePath] }
    # The module is imported by a pipeline of our own (Start-ModuleImport), not through the
    # InitialSessionState: PowerShell reports a runspace Opened *before* it imports the
    # InitialSessionState's modules (LocalConnection.DoOpenHelper sets Opened, then
    # BindRunspace imports), so a call started on Opened could find the function missing or
    # the import's pipeline still running.
    $created = New-ToolRunspace
    $runspace = $created['Runspace']
    # One thread for the module's whole life: some modules keep thread-affine state.
    $runspace.ThreadOptions = [System.Management.Automation.Runspaces.PSThreadOptions]::ReuseThread
    $runspace.OpenAsync()
    $slot = @{
        Path = $ModulePath; Runspace = $runspace; Interface = $created['Interface']; Queue = [System.Collections.Generic.Queue[hashtable]]::new()
        Busy = $null; Forgotten = $false; Ready = $false; ImportShell = $null; ImportTask = $null
    }
    $script:Modules[$ModulePath] = $slot
    return $slot
}

function Start-ModuleImport {
    param([hashtable] $Slot)
    $shell = [System.Management.Automation.PowerShell]::Create()
    $shell.Runspace = $Slot['Runspace']
    [void]$shell.AddCommand('Import-Module').AddParameter('Name', [string]$Slot['Path']).AddParameter('ErrorAction', 'Stop').AddParameter('PassThru')
    try {
        $Slot['ImportTask'] = $shell.InvokeAsync()
        $Slot['ImportShell'] = $shell
    } catch {
        # Still busy finishing its own opening: the next turn of the loop tries again.
        $shell.Dispose()
    }
}

function Complete-ModuleImport {
    # Returns the reason the import failed, or $null once the module is ready.
    param([hashtable] $Slot)
    $task = $Slot['ImportTask']
    $shell = $Slot['ImportShell']
    $Slot['ImportTask'] = $null
    $Slot['ImportShell'] = $null
    $reason = $null
    # Import-Module's own failures throw (-ErrorAction Stop). An error record from the module's
    # code (a dot-sourced file that does not parse) does not stop Import-Module at a prompt:
    # the module loads without that file's functions, and discovery has already refused them
    # with the file's line. A record with no module imported (-PassThru) is still a failure.
    if ($task.IsFaulted) {
        $reason = [string]$task.Exception.GetBaseException().Message
    } elseif ($shell.Streams.Error.Count -gt 0 -and @($task.Result).Count -eq 0) {
        $reason = [string]$shell.Streams.Error[0].Exception.Message
    }
    $shell.Dispose()
    if ($null -eq $reason) { $Slot['Ready'] = $true }
    return $reason
}

function Remove-ModuleSlot {
    # Fails the calls waiting for a module that cannot be imported and drops its runspace.
    param([hashtable] $Slot, [string] $Reason)
    while ($Slot['Queue'].Count -gt 0) {
        $queued = $Slot['Queue'].Dequeue()
        Send-Failure $queued "Cannot import module $($Slot['Path']): $Reason"
    }
    # Only a forgotten slot has left $script:Modules already (and a newer one may stand there).
    if (-not $Slot['Forgotten']) { [void]$script:Modules.Remove([string]$Slot['Path']) }
    [void]$script:RetiredSlots.Remove($Slot)
    try { $Slot['Runspace'].Dispose() } catch { }
}

function Update-ModuleSlot {
    param([hashtable] $Slot)
    if ($null -ne $Slot['ImportTask']) {
        if (-not $Slot['ImportTask'].IsCompleted) { return }
        $reason = Complete-ModuleImport $Slot
        if ($null -ne $reason) { Remove-ModuleSlot $Slot $reason; return }
    }
    if ($null -ne $Slot['Busy']) { return }
    if ($Slot['Forgotten'] -and $Slot['Queue'].Count -eq 0) {
        # A forgotten module's runspace ends once the calls already given to it are done.
        [void]$script:RetiredSlots.Remove($Slot)
        try { $Slot['Runspace'].Dispose() } catch { }
        return
    }
    $state = $Slot['Runspace'].RunspaceStateInfo.State
    if ($state -eq 'BeforeOpen' -or $state -eq 'Opening') { return }
    if ($state -ne 'Opened') {
        $reason = 'the runspace could not be opened'
        if ($null -ne $Slot['Runspace'].RunspaceStateInfo.Reason) { $reason = [string]$Slot['Runspace'].RunspaceStateInfo.Reason.Message }
        Remove-ModuleSlot $Slot $reason
        return
    }
    if (-not $Slot['Ready']) {
        Start-ModuleImport $Slot
        return
    }
    if ($Slot['Queue'].Count -gt 0) {
        $call = $Slot['Queue'].Dequeue()
        $Slot['Busy'] = $call['Id']
        Start-ToolCall $call $Slot['Runspace']
    }
}

function Send-Failure {
    param([hashtable] $Call, [string] $Message)
    [void]$script:Calls.Remove([string]$Call['Id'])
    Send-Message ([ordered]@{
            type = 'result'; id = [string]$Call['Id']; kind = 'error'; text = $null; json = $null; error = $Message
            file = $null; line = 0; truncated = $false; stopped = $false; errorCount = 0
        })
}

function Start-ToolCall {
    param([hashtable] $Call, [System.Management.Automation.Runspaces.Runspace] $Runspace, [hashtable] $Entry)
    $Call['Runspace'] = $Runspace
    $Call['Entry'] = $Entry
    $owner = if ($null -ne $Entry) { $Entry } else { $Call['Slot'] }
    if ($null -ne $owner -and $null -ne $owner['Interface']) { $owner['Interface'].CallId = [string]$Call['Id'] }
    try {
        $shell = [System.Management.Automation.PowerShell]::Create()
        $shell.Runspace = $Runspace
        if ($null -ne $Entry) {
            $Call['Request']['Baseline'] = $Entry['Baseline']
            $Call['Request']['SessionLoaded'] = ([string]$Entry['Session'] -ne '' -and [string]$Entry['Session'] -eq [string]$Call['Request']['SessionKey'])
        }
        if ($Call['Warm'] -ne $true) {
            $Call['Request']['Streams'] = $shell.Streams
            $Call['Request']['Channel'] = $script:Writer
        }
        [void]$shell.AddCommand('__Toolpack-InvokeTool').AddParameter('Request', $Call['Request'])
        $Call['Shell'] = $shell
        $Call['Task'] = $shell.InvokeAsync()
    } catch {
        Send-Failure $Call "Cannot start the PowerShell pipeline: $($_.Exception.Message)"
        Complete-Runspace $Call
    }
}

function Complete-Runspace {
    # Module runspaces are handed to the module's next call. A script runspace is reset and
    # reused when the call ended normally and __Toolpack-Clean removed what it left behind;
    # one that was stopped, could not be cleaned or has served MaxRunspaceUses calls is closed
    # (and replaced when calls need it).
    param([hashtable] $Call)
    if ($null -ne $Call['Slot']) {
        $Call['Slot']['Busy'] = $null
        return
    }
    $runspace = $Call['Runspace']
    if ($null -eq $runspace) { return }
    if ($Call['Request']['ProcessStateKept'] -ne $true) { $script:ProcessStateDirty = $true }
    $entry = $Call['Entry']
    $entry['Uses'] = [int]$entry['Uses'] + 1
    if ($Call['Request']['SessionLoaded'] -eq $true) {
        $entry['Session'] = [string]$Call['Request']['SessionKey']
        $entry['Baseline'] = $Call['Request']['Baseline']
    }
    $reusable = (-not $Call['Stopping']) -and $Call['Request']['Cleaned'] -eq $true -and $entry['Uses'] -lt $script:MaxRunspaceUses
    if ($reusable) {
        $Call['Runspace'] = $null
        # Left as it was found (see __Toolpack-InvokeTool): idle at once, no reset needed.
        if ($Call['Request']['Unchanged'] -eq $true) { $script:Idle.Push($entry) } else { $script:Resetting.Add($entry) }
        return
    }
    Close-ScriptRunspace $runspace
}

function Reset-Runspaces {
    # After the answers have been sent: variables, location and the event and debug managers
    # back to the runspace's initial state (Runspace.ResetRunspaceState, about 0.8 ms of CPU),
    # on a thread-pool thread so the loop can answer other calls meanwhile; idle again after.
    # While tools run and no call waits for a runspace, the resets wait: under a burst the CPU
    # goes to the answers first (the loop wakes again as each running call ends).
    $toolsRunning = Test-ToolsRunning
    if ($script:Resetting.Count -gt 0 -and ($script:PendingScripts.Count -gt 0 -or -not $toolsRunning)) {
        if (-not $toolsRunning) { Restore-ProcessState }
        foreach ($entry in $script:Resetting) {
            $entry['ResetTask'] = $script:TaskFactory.StartNew($script:ResetAction, [object]$entry['Runspace'])
            $script:Reviving.Add($entry)
        }
        $script:Resetting.Clear()
    }
    for ($index = $script:Reviving.Count - 1; $index -ge 0; $index--) {
        $entry = $script:Reviving[$index]
        $task = $entry['ResetTask']
        if (-not $task.IsCompleted) { continue }
        $script:Reviving.RemoveAt($index)
        $entry['ResetTask'] = $null
        if ($task.IsFaulted) { Close-ScriptRunspace $entry['Runspace']; continue }
        # ResetRunspaceState sets the location to the process's working directory, which a
        # call still running may have changed.
        if ([System.Environment]::CurrentDirectory -ne $script:StartDirectory) {
            try {
                [void]$entry['Runspace'].SessionStateProxy.Path.SetLocation([System.Management.Automation.WildcardPattern]::Escape($script:StartDirectory))
            } catch {
                Close-ScriptRunspace $entry['Runspace']
                continue
            }
        }
        $script:Idle.Push($entry)
    }
}

function Close-SurplusRunspaces {
    # Once no call has run for IdleReleaseMs, the runspaces a burst opened beyond the pool's
    # floor are closed, the least recently used first, and the memory the calls left behind is
    # given back to the system (Clear-ClosedRunspaces), once per quiet spell: at rest the host
    # holds what a warm call needs (WarmRunspaces), not what the last calls did.
    if ($script:Calls.Count -gt 0 -or $script:PendingScripts.Count -gt 0 -or $script:Resetting.Count -gt 0 -or $script:Reviving.Count -gt 0) {
        $script:LastActivity = [System.Diagnostics.Stopwatch]::GetTimestamp()
        $script:CollectWhenIdle = $true
        return
    }
    if (-not $script:CollectWhenIdle -and $script:Idle.Count -le $script:WarmRunspaces) { return }
    $idleMs = ([System.Diagnostics.Stopwatch]::GetTimestamp() - $script:LastActivity) * 1000 / [System.Diagnostics.Stopwatch]::Frequency
    if ($idleMs -lt $IdleReleaseMs) { return }
    $script:CollectWhenIdle = $false
    $script:CollectAfterClose = $true
    if ($script:Idle.Count -le $script:WarmRunspaces) { return }
    # ToArray lists a stack from its top (the most recently used).
    $entries = $script:Idle.ToArray()
    $script:Idle.Clear()
    for ($index = $entries.Length - 1; $index -ge 0; $index--) {
        if ($index -lt $script:WarmRunspaces) { $script:Idle.Push($entries[$index]) } else { Close-ScriptRunspace $entries[$index]['Runspace'] }
    }
}

function Select-IdleRunspace {
    # An idle runspace for a call of this session ('' for none): one that already holds it,
    # else none while one that holds it is being reset, else a fresh one (it loads the
    # session with the call). A runspace holding another session never serves the call;
    # when only such are idle, one is closed so Update-Pool opens a fresh runspace, and the
    # call waits for it.
    param([string] $SessionKey)
    # The most recently used runspace, when it suits: the first the search below would pick.
    if ($script:Idle.Count -gt 0 -and [string]$script:Idle.Peek()['Session'] -eq $SessionKey) { return $script:Idle.Pop() }
    $entries = $script:Idle.ToArray()
    $chosen = $null
    foreach ($candidate in $entries) {
        if ([string]$candidate['Session'] -eq $SessionKey) { $chosen = $candidate; break }
    }
    if ($null -eq $chosen -and $SessionKey -ne '') {
        # One that holds the session and is being reset is ready in about a millisecond;
        # loading the session into a fresh one takes hundreds (dotbot's: half a second).
        foreach ($pending in @($script:Resetting) + @($script:Reviving)) {
            if ([string]$pending['Session'] -eq $SessionKey) { return $null }
        }
        # So is one a warm-up is loading it into, or one cleaned after the answer it sent.
        foreach ($running in $script:Calls.Values) {
            if (($running['Warm'] -eq $true -or $running['Request']['Answered'] -eq $true) -and $null -ne $running['Task'] -and [string]$running['Request']['SessionKey'] -eq $SessionKey) { return $null }
        }
        foreach ($candidate in $entries) {
            if ([string]$candidate['Session'] -eq '') { $chosen = $candidate; break }
        }
    }
    $victim = $null
    if ($null -eq $chosen) { $victim = $entries[$entries.Length - 1] }
    $script:Idle.Clear()
    # ToArray lists a stack from its top: push back from the bottom to keep the order.
    for ($index = $entries.Length - 1; $index -ge 0; $index--) {
        $entry = $entries[$index]
        if ([object]::ReferenceEquals($entry, $chosen) -or [object]::ReferenceEquals($entry, $victim)) { continue }
        $script:Idle.Push($entry)
    }
    if ($null -ne $victim) { Close-ScriptRunspace $victim['Runspace'] }
    return $chosen
}

function New-JsonCodecs {
    # The host's JSON reader and the fast half of its result writer, as compiled delegates
    # (expression trees: the bare engine has no Add-Type). As PowerShell functions, reading a
    # call message and writing a small result cost about half a millisecond each per call;
    # compiled, microseconds. Built once, at the host's first rest (it takes ~130 ms of the
    # loop), with New-StateFingerprint.
    $E = [System.Linq.Expressions.Expression]
    # Expression.New by reflection: `$E::New(...)` is PowerShell's constructor syntax.
    $newMethod = $E.GetMethod('New', [type[]]@([System.Reflection.ConstructorInfo], [System.Linq.Expressions.Expression[]]))
    $new = { param([type] $Type, [object[]] $Arguments = @()) $newMethod.Invoke($null, @($Type.GetConstructor([type[]]@($Arguments | ForEach-Object { $_.Type })), [Expression[]]$Arguments)) }
    $none = [type[]]@()

    # Reader: JSON -> hashtables (keys compared as @{} compares them), object[] and
    # primitives; strings stay strings (ConvertFrom-Json would turn date-like ones into
    # DateTime); an integer written without a fraction or exponent is an Int64 (a Decimal
    # when larger), any other number a Double.
    $read = $E::Variable([System.Func[System.Text.Json.JsonElement, object]], 'read')
    $element = $E::Parameter([System.Text.Json.JsonElement], 'element')
    $kind = $E::Property($element, 'ValueKind')
    $done = $E::Label([object], 'done')
    $is = { param([string] $Name) $E::Equal($kind, $E::Constant([System.Text.Json.JsonValueKind]$Name)) }
    $table = $E::Variable([hashtable], 'table')
    $properties = $E::Variable([System.Text.Json.JsonElement+ObjectEnumerator], 'properties')
    $property = $E::Variable([System.Text.Json.JsonProperty], 'property')
    $objectEnd = $E::Label('objectEnd')
    $readObject = $E::Block([ParameterExpression[]]@($table, $properties, $property), [Expression[]]@(
            $E::Assign($table, (& $new ([hashtable]) @($E::Constant([System.StringComparer]::OrdinalIgnoreCase, [System.Collections.IEqualityComparer])))),
            $E::Assign($properties, $E::Call($element, 'EnumerateObject', $none)),
            $E::Loop($E::IfThenElse($E::Call($properties, 'MoveNext', $none),
                    $E::Block([Expression[]]@(
                            $E::Assign($property, $E::Property($properties, 'Current')),
                            $E::Assign($E::Property($table, 'Item', [Expression[]]@($E::Convert($E::Property($property, 'Name'), [object]))),
                                $E::Invoke($read, [Expression[]]@($E::Property($property, 'Value')))))),
                    $E::Break($objectEnd)), $objectEnd),
            $E::Return($done, $E::Convert($table, [object]))))
    $list = $E::Variable([System.Collections.Generic.List[object]], 'list')
    $items = $E::Variable([System.Text.Json.JsonElement+ArrayEnumerator], 'items')
    $arrayEnd = $E::Label('arrayEnd')
    $readArray = $E::Block([ParameterExpression[]]@($list, $items), [Expression[]]@(
            $E::Assign($list, (& $new ([System.Collections.Generic.List[object]]))),
            $E::Assign($items, $E::Call($element, 'EnumerateArray', $none)),
            $E::Loop($E::IfThenElse($E::Call($items, 'MoveNext', $none),
                    $E::Call($list, 'Add', $none, [Expression[]]@($E::Invoke($read, [Expression[]]@($E::Property($items, 'Current'))))),
                    $E::Break($arrayEnd)), $arrayEnd),
            $E::Return($done, $E::Convert($E::Call($list, 'ToArray', $none), [object]))))
    $integer = $E::Variable([long], 'integer')
    $exact = $E::Variable([decimal], 'exact')
    $readNumber = $E::Block([ParameterExpression[]]@($integer, $exact), [Expression[]]@(
            $E::IfThen($E::LessThan($E::Call($E::Call($element, 'GetRawText', $none), [string].GetMethod('IndexOfAny', [type[]]@([char[]])), [Expression[]]@($E::Constant([char[]]@('.', 'e', 'E')))), $E::Constant(0)),
                $E::Block([Expression[]]@(
                        $E::IfThen($E::Call($element, 'TryGetInt64', $none, [Expression[]]@($integer)), $E::Return($done, $E::Convert($integer, [object]))),
                        $E::IfThen($E::Call($element, 'TryGetDecimal', $none, [Expression[]]@($exact)), $E::Return($done, $E::Convert($exact, [object])))))),
            $E::Return($done, $E::Convert($E::Call($element, 'GetDouble', $none), [object]))))
    $readBody = $E::Block([Expression[]]@(
            $E::IfThen((& $is 'Object'), $readObject),
            $E::IfThen((& $is 'Array'), $readArray),
            $E::IfThen((& $is 'String'), $E::Return($done, $E::Convert($E::Call($element, 'GetString', $none), [object]))),
            $E::IfThen((& $is 'Number'), $readNumber),
            $E::IfThen((& $is 'True'), $E::Return($done, $E::Constant($true, [object]))),
            $E::IfThen((& $is 'False'), $E::Return($done, $E::Constant($false, [object]))),
            $E::Label($done, $E::Constant($null, [object]))))

    # Writer: the values __Toolpack-WriteJsonValue writes the same way without looking at
    # them twice (null, strings, characters, booleans, numbers, dictionaries with string keys,
    # lists), written to the caller's Utf8JsonWriter. It returns false, having written part
    # of the value, on anything else (a PSCustomObject, an enum, a date, any other object, a
    # non-string key, nesting deeper than 64, which a cycle also reaches, more bytes than the
    # limit): the caller then throws the partial text away and uses the general writer.
    $write = $E::Variable([System.Func[object, System.Text.Json.Utf8JsonWriter, int, long, bool]], 'write')
    $value = $E::Parameter([object], 'value')
    $writer = $E::Parameter([System.Text.Json.Utf8JsonWriter], 'writer')
    $depth = $E::Parameter([int], 'depth')
    $limit = $E::Parameter([long], 'limit')
    $wrote = $E::Label([bool], 'wrote')
    $yes = $E::Return($wrote, $E::Constant($true))
    $no = $E::Return($wrote, $E::Constant($false))
    $base = $E::Variable([object], 'base')
    $code = $E::Variable([System.TypeCode], 'code')
    $number = $E::Variable([double], 'number')
    $dictionary = $E::Variable([System.Collections.IDictionary], 'dictionary')
    $entries = $E::Variable([System.Collections.IDictionaryEnumerator], 'entries')
    $key = $E::Variable([string], 'key')
    $sequence = $E::Variable([System.Collections.IList], 'sequence')
    $index = $E::Variable([int], 'index')
    $entriesEnd = $E::Label('entriesEnd')
    $sequenceEnd = $E::Label('sequenceEnd')
    $child = { param($Item) $E::Not($E::Invoke($write, [Expression[]]@($Item, $writer, $E::Add($depth, $E::Constant(1)), $limit))) }
    $codeIs = { param([string[]] $Names) $test = $null; foreach ($name in $Names) { $one = $E::Equal($code, $E::Constant([System.TypeCode]$name)); $test = if ($null -eq $test) { $one } else { $E::OrElse($test, $one) } }; $test }
    $writeBody = $E::Block([ParameterExpression[]]@($base, $code, $number, $dictionary, $entries, $key, $sequence, $index), [Expression[]]@(
            $E::IfThen($E::OrElse($E::GreaterThan($depth, $E::Constant(64)),
                    $E::GreaterThan($E::Add($E::Convert($E::Property($writer, 'BytesPending'), [long]), $E::Property($writer, 'BytesCommitted')), $limit)), $no),
            $E::Assign($base, $value),
            $E::IfThen($E::TypeIs($base, [System.Management.Automation.PSObject]), $E::Assign($base, $E::Property($E::Convert($base, [System.Management.Automation.PSObject]), 'BaseObject'))),
            $E::IfThen($E::OrElse($E::Equal($base, $E::Constant($null)), $E::TypeIs($base, [System.DBNull])), $E::Block([Expression[]]@($E::Call($writer, 'WriteNullValue', $none), $yes))),
            $E::IfThen($E::TypeIs($base, [System.Management.Automation.PSCustomObject]), $no),
            $E::IfThen($E::TypeIs($base, [string]), $E::Block([Expression[]]@($E::Call($writer, 'WriteStringValue', $none, [Expression[]]@($E::Convert($base, [string]))), $yes))),
            $E::IfThen($E::TypeIs($base, [char]), $E::Block([Expression[]]@($E::Call($writer, 'WriteStringValue', $none, [Expression[]]@($E::Call($base, 'ToString', $none))), $yes))),
            $E::IfThen($E::TypeIs($base, [bool]), $E::Block([Expression[]]@($E::Call($writer, 'WriteBooleanValue', $none, [Expression[]]@($E::Convert($base, [bool]))), $yes))),
            $E::IfThen($E::TypeIs($base, [System.Enum]), $no),
            $E::Assign($code, $E::Call([System.Type].GetMethod('GetTypeCode', [type[]]@([type])), $E::Call($base, 'GetType', $none))),
            $E::IfThen((& $codeIs @('SByte', 'Byte', 'Int16', 'UInt16', 'Int32', 'UInt32', 'Int64')),
                $E::Block([Expression[]]@($E::Call($writer, 'WriteNumberValue', $none, [Expression[]]@($E::Call([System.Convert].GetMethod('ToInt64', [type[]]@([object])), $base))), $yes))),
            $E::IfThen((& $codeIs @('UInt64', 'Decimal')),
                $E::Block([Expression[]]@($E::Call($writer, 'WriteNumberValue', $none, [Expression[]]@($E::Call([System.Convert].GetMethod('ToDecimal', [type[]]@([object])), $base))), $yes))),
            $E::IfThen((& $codeIs @('Single', 'Double')), $E::Block([Expression[]]@(
                        $E::Assign($number, $E::Call([System.Convert].GetMethod('ToDouble', [type[]]@([object])), $base)),
                        $E::IfThenElse($E::Call([double].GetMethod('IsFinite', [type[]]@([double])), $number),
                            $E::Call($writer, 'WriteNumberValue', $none, [Expression[]]@($number)),
                            $E::Call($writer, 'WriteNullValue', $none)),
                        $yes))),
            $E::IfThen($E::TypeIs($base, [System.Collections.IDictionary]), $E::Block([Expression[]]@(
                        $E::Assign($dictionary, $E::Convert($base, [System.Collections.IDictionary])),
                        $E::Call($writer, 'WriteStartObject', $none),
                        $E::Assign($entries, $E::Call($dictionary, 'GetEnumerator', $none)),
                        $E::Loop($E::IfThenElse($E::Call($entries, [System.Collections.IEnumerator].GetMethod('MoveNext')),
                                $E::Block([Expression[]]@(
                                        $E::Assign($key, $E::TypeAs($E::Property($entries, 'Key'), [string])),
                                        $E::IfThen($E::Equal($key, $E::Constant($null, [string])), $no),
                                        $E::Call($writer, 'WritePropertyName', $none, [Expression[]]@($key)),
                                        $E::IfThen((& $child $E::Property($entries, 'Value')), $no))),
                                $E::Break($entriesEnd)), $entriesEnd),
                        $E::Call($writer, 'WriteEndObject', $none),
                        $yes))),
            $E::IfThen($E::TypeIs($base, [System.Collections.IList]), $E::Block([Expression[]]@(
                        $E::Assign($sequence, $E::Convert($base, [System.Collections.IList])),
                        $E::Call($writer, 'WriteStartArray', $none),
                        $E::Assign($index, $E::Constant(0)),
                        $E::Loop($E::IfThenElse($E::LessThan($index, $E::Property($sequence, [System.Collections.ICollection].GetProperty('Count'))),
                                $E::Block([Expression[]]@(
                                        $E::IfThen((& $child $E::Property($sequence, [System.Collections.IList].GetProperty('Item'), [Expression[]]@($index))), $no),
                                        $E::PostIncrementAssign($index))),
                                $E::Break($sequenceEnd)), $sequenceEnd),
                        $E::Call($writer, 'WriteEndArray', $none),
                        $yes))),
            $E::Label($wrote, $E::Constant($false))))

    $make = $E::Block([ParameterExpression[]]@($read, $write), [Expression[]]@(
            $E::Assign($read, $E::Lambda([System.Func[System.Text.Json.JsonElement, object]], $readBody, [ParameterExpression[]]@($element))),
            $E::Assign($write, $E::Lambda([System.Func[object, System.Text.Json.Utf8JsonWriter, int, long, bool]], $writeBody, [ParameterExpression[]]@($value, $writer, $depth, $limit))),
            $newMethod.Invoke($null, @([System.Tuple[System.Func[System.Text.Json.JsonElement, object], System.Func[object, System.Text.Json.Utf8JsonWriter, int, long, bool]]].GetConstructors()[0], [Expression[]]@($read, $write)))))
    return $E::Lambda($make, [ParameterExpression[]]@()).Compile().DynamicInvoke()
}

function Get-ScriptCommandFactory {
    # A tool's script is run as the command PowerShell's discovery would make for its path
    # (ExternalScriptInfo's internal name, path and engine constructor), made afresh for each
    # call so that nothing a call hangs on its $MyInvocation.MyCommand reaches the next: the
    # same $MyInvocation, $PSScriptRoot, #requires checks and errors as `& $path` (the real
    # pwsh decides, in pwsh-script-command.test.ts), without resolving the path through the
    # providers, which cost 45-80 us a call. $null where a PowerShell has no such constructor:
    # the path is run as it is.
    try {
        $flags = [System.Reflection.BindingFlags]'Instance, NonPublic'
        $context = [System.Management.Automation.EngineIntrinsics].GetField('_context', $flags)
        if ($null -eq $context) { return $null }
        $constructor = [System.Management.Automation.ExternalScriptInfo].GetConstructor($flags, $null, [type[]]@([string], [string], $context.FieldType), $null)
        if ($null -eq $constructor) { return $null }
        return @{ Constructor = $constructor; Context = $context }
    } catch {
        return $null
    }
}

function New-StateFingerprint {
    # A runspace's global variables as a flat list (for each: its name, the PSVariable, its
    # value, options, visibility, description, attribute count and, for a collection, its
    # count), and a comparison of two such lists, as compiled delegates: a call whose list is
    # the same after as before (and that left the rest ResetRunspaceState resets as it was:
    # see __Toolpack-InvokeTool) is not reset, since a reset would change nothing a tool can
    # see. Values compare with Equals, so a variable given another object, or an equal string
    # or number, is the same, while $Error or $PSDefaultParameterValues grown in place is not.
    $E = [System.Linq.Expressions.Expression]
    $newMethod = $E.GetMethod('New', [type[]]@([System.Reflection.ConstructorInfo], [System.Linq.Expressions.Expression[]]))
    $none = [type[]]@()
    $pairType = [System.Collections.Generic.KeyValuePair[string, System.Management.Automation.PSVariable]]
    $table = $E::Parameter([object], 'table')
    $list = $E::Variable([System.Collections.Generic.List[object]], 'list')
    $entries = $E::Variable([System.Collections.Generic.IEnumerator[System.Collections.Generic.KeyValuePair[string, System.Management.Automation.PSVariable]]], 'entries')
    $variable = $E::Variable([System.Management.Automation.PSVariable], 'variable')
    $value = $E::Variable([object], 'value')
    $end = $E::Label('end')
    $add = { param($Item) $E::Call($list, 'Add', $none, [Expression[]]@($E::Convert($Item, [object]))) }
    $body = $E::Block([ParameterExpression[]]@($list, $entries, $variable, $value), [Expression[]]@(
            $E::Assign($list, $newMethod.Invoke($null, @([System.Collections.Generic.List[object]].GetConstructor($none), [Expression[]]@()))),
            $E::Assign($entries, $E::Call($E::Convert($table, [System.Collections.Generic.IEnumerable[System.Collections.Generic.KeyValuePair[string, System.Management.Automation.PSVariable]]]),
                    [System.Collections.Generic.IEnumerable[System.Collections.Generic.KeyValuePair[string, System.Management.Automation.PSVariable]]].GetMethod('GetEnumerator'))),
            $E::Loop($E::IfThenElse($E::Call($entries, [System.Collections.IEnumerator].GetMethod('MoveNext')),
                    $E::Block([Expression[]]@(
                            $E::Assign($variable, $E::Property($E::Property($entries, 'Current'), $pairType.GetProperty('Value'))),
                            $E::Assign($value, $E::Property($variable, 'Value')),
                            (& $add $E::Property($E::Property($entries, 'Current'), $pairType.GetProperty('Key'))),
                            (& $add $variable),
                            (& $add $value),
                            (& $add $E::Property($variable, 'Options')),
                            (& $add $E::Property($variable, 'Visibility')),
                            (& $add $E::Property($variable, 'Description')),
                            (& $add $E::Property($E::Property($variable, 'Attributes'), [System.Collections.Generic.ICollection[System.Attribute]].GetProperty('Count'))),
                            (& $add $E::Condition($E::TypeIs($value, [System.Collections.ICollection]), $E::Property($E::Convert($value, [System.Collections.ICollection]), 'Count'), $E::Constant(-1))))),
                    $E::Break($end)), $end),
            $list))
    $take = $E::Lambda([System.Func[object, System.Collections.Generic.List[object]]], $body, [ParameterExpression[]]@($table)).Compile()
    $first = $E::Parameter([System.Collections.Generic.List[object]], 'first')
    $second = $E::Parameter([System.Collections.Generic.List[object]], 'second')
    $sequenceEqual = [System.Linq.Enumerable].GetMethods() | Where-Object { $_.Name -eq 'SequenceEqual' -and $_.GetParameters().Count -eq 2 }
    $same = $E::Lambda([System.Func[System.Collections.Generic.List[object], System.Collections.Generic.List[object], bool]],
        $E::Call($sequenceEqual.MakeGenericMethod([object]), [Expression[]]@($first, $second)), [ParameterExpression[]]@($first, $second)).Compile()
    return [System.Tuple[System.Func[object, System.Collections.Generic.List[object]], System.Func[System.Collections.Generic.List[object], System.Collections.Generic.List[object], bool]]]::new($take, $same)
}

function New-DefinitionCheck {
    # __Toolpack-TestDefinitions's comparison as one compiled delegate (table, names, items,
    # members, options) -> whether the table holds, under each name, that item with that
    # script block or definition and those options: 100-odd aliases and a dozen functions in
    # a few microseconds of a call's clean-up. The member is chosen by the item's type
    # (FunctionInfo or AliasInfo), so one delegate serves both tables.
    $E = [System.Linq.Expressions.Expression]
    $equals = [object].GetMethod('Equals', [type[]]@([object], [object]))
    $table = $E::Parameter([object], 'table')
    $names = $E::Parameter([string[]], 'names')
    $items = $E::Parameter([object[]], 'items')
    $members = $E::Parameter([object[]], 'members')
    $options = $E::Parameter([object[]], 'options')
    $lookup = $E::Variable([System.Collections.IDictionary], 'lookup')
    $index = $E::Variable([int], 'index')
    $item = $E::Variable([System.Management.Automation.CommandInfo], 'item')
    $same = $E::Variable([bool], 'same')
    $end = $E::Label('end')
    $member = $E::Condition($E::TypeIs($item, [System.Management.Automation.FunctionInfo]),
        $E::Convert($E::Property($E::Convert($item, [System.Management.Automation.FunctionInfo]), 'ScriptBlock'), [object]),
        $E::Condition($E::TypeIs($item, [System.Management.Automation.AliasInfo]),
            $E::Convert($E::Property($E::Convert($item, [System.Management.Automation.AliasInfo]), 'Definition'), [object]),
            $E::Constant($null)))
    $itemOptions = $E::Condition($E::TypeIs($item, [System.Management.Automation.FunctionInfo]),
        $E::Convert($E::Property($E::Convert($item, [System.Management.Automation.FunctionInfo]), 'Options'), [object]),
        $E::Condition($E::TypeIs($item, [System.Management.Automation.AliasInfo]),
            $E::Convert($E::Property($E::Convert($item, [System.Management.Automation.AliasInfo]), 'Options'), [object]),
            $E::Constant($null)))
    $at = { param($Array) $E::ArrayIndex($Array, $index) }
    $body = $E::Block([ParameterExpression[]]@($lookup, $index, $item, $same), [Expression[]]@(
            $E::Assign($lookup, $E::Convert($table, [System.Collections.IDictionary])),
            $E::Assign($index, $E::Constant(0)),
            $E::Assign($same, $E::Constant($true)),
            $E::Loop($E::IfThenElse($E::AndAlso($same, $E::LessThan($index, $E::ArrayLength($names))),
                    $E::Block([Expression[]]@(
                            $E::Assign($item, $E::TypeAs($E::Property($lookup, 'Item', [Expression[]]@($E::Convert((& $at $names), [object]))), [System.Management.Automation.CommandInfo])),
                            $E::Assign($same, $E::AndAlso($E::NotEqual($item, $E::Constant($null, [System.Management.Automation.CommandInfo])),
                                    $E::AndAlso($E::Call($equals, [Expression[]]@($E::Convert($item, [object]), (& $at $items))),
                                        $E::AndAlso($E::Call($equals, [Expression[]]@($member, (& $at $members))),
                                            $E::Call($equals, [Expression[]]@($itemOptions, (& $at $options))))))),
                            $E::PostIncrementAssign($index))),
                    $E::Break($end)), $end),
            $same))
    return $E::Lambda([System.Func[object, string[], object[], object[], object[], bool]], $body,
        [ParameterExpression[]]@($table, $names, $items, $members, $options)).Compile()
}

function New-ResetAction {
    # Runspace.ResetRunspaceState as a plain .NET delegate (built from an expression tree, as
    # the bare engine has no Add-Type), so that a thread-pool thread can run it: a script
    # block would need a runspace of its own.
    $parameter = [System.Linq.Expressions.Expression]::Parameter([object], 'runspace')
    $runspace = [System.Linq.Expressions.Expression]::Convert($parameter, [System.Management.Automation.Runspaces.Runspace])
    $body = [System.Linq.Expressions.Expression]::Call($runspace, [System.Management.Automation.Runspaces.Runspace].GetMethod('ResetRunspaceState'))
    return [System.Linq.Expressions.Expression]::Lambda([System.Action[object]], $body, [System.Linq.Expressions.ParameterExpression[]]@($parameter)).Compile()
}

function Test-StreamsEmpty {
    param([System.Management.Automation.PSDataStreams] $Streams)
    return ($Streams.Error.Count -eq 0 -and $Streams.Warning.Count -eq 0 -and $Streams.Information.Count -eq 0 -and
        $Streams.Progress.Count -eq 0 -and $Streams.Verbose.Count -eq 0 -and $Streams.Debug.Count -eq 0)
}

function Complete-ToolCall {
    param([hashtable] $Call)
    if ($Call['Warm'] -eq $true) {
        [void]$script:Calls.Remove([string]$Call['Id'])
        try { $Call['Shell'].Dispose() } catch { }
        Complete-Runspace $Call
        return
    }
    if ($Call['Request']['Answered'] -eq $true) {
        # Its runspace sent the answer; what ran since was the clean-up for its next call.
        [void]$script:Calls.Remove([string]$Call['Id'])
        try { $Call['Shell'].Dispose() } catch { }
        Complete-Runspace $Call
        return
    }
    $answer = $Call['Request']['Answer']
    if ($null -ne $answer -and -not $Call['Stopping'] -and [int]$Call['ErrorCount'] -eq 0 -and (Test-StreamsEmpty $Call['Shell'].Streams)) {
        [void]$script:Calls.Remove([string]$Call['Id'])
        try { $Call['Shell'].Dispose() } catch { }
        Complete-Runspace $Call
        Write-Channel ([string]$answer)
        return
    }
    Send-StreamRecords $Call
    $task = $Call['Task']
    $response = [ordered]@{
        type = 'result'; id = [string]$Call['Id']; kind = 'none'; text = $null; json = $null; error = $null
        file = $null; line = 0; truncated = $false; stopped = $false; errorCount = [int]$Call['ErrorCount']
    }
    $envelope = $Call['Request']['Envelope']
    if ($Call['Stopping']) {
        $response['stopped'] = $true
    } elseif ($null -ne $envelope) {
        $response['kind'] = [string]$envelope['Kind']
        if ($null -ne $envelope['Text']) { $response['text'] = [string]$envelope['Text'] }
        if ($null -ne $envelope['Json']) { $response['json'] = [string]$envelope['Json'] }
        if ($null -ne $envelope['Error']) { $response['error'] = [string]$envelope['Error'] }
        if ($null -ne $envelope['File']) { $response['file'] = [string]$envelope['File'] }
        $response['line'] = [int]$envelope['Line']
        $response['truncated'] = [bool]$envelope['Truncated']
    } elseif ($task.IsFaulted) {
        $exception = $task.Exception.GetBaseException()
        if ($exception -is [System.Management.Automation.PipelineStoppedException]) {
            $response['stopped'] = $true
        } else {
            $response['kind'] = 'error'
            $response['error'] = [string]$exception.Message
        }
    } else {
        $response['kind'] = 'error'
        $response['error'] = 'The tool ended without returning a result (did it call exit?).'
    }
    [void]$script:Calls.Remove([string]$Call['Id'])
    try { $Call['Shell'].Dispose() } catch { }
    Complete-Runspace $Call
    Send-Message $response
}

function Register-ToolCall {
    param([hashtable] $Message)
    $id = [string]$Message['id']
    $arguments = $Message['arguments']
    if ($arguments -isnot [hashtable]) { $arguments = @{} }
    $request = @{
        Id             = $id
        JsonOptions    = $script:AnswerJsonOptions
        JsonWriter     = $(if ($null -ne $script:Codecs) { $script:Codecs.Item2 } else { $null })
        Fingerprint    = $script:Fingerprint
        DefinitionCheck = $script:DefinitionCheck
        ScriptCommand  = $script:ScriptCommand
        ProcessState   = $script:ProcessState
        Mode           = [string]$Message['mode']
        ScriptPath     = [string]$Message['scriptPath']
        FunctionName   = [string]$Message['functionName']
        ToolName       = [string]$Message['toolName']
        Arguments      = $arguments
        MaxOutputChars = $MaxOutputChars
        Envelope       = $null
        Credentials    = $Message['credentials']
        Session        = $null
        SessionKey     = ''
    }
    $session = $Message['session']
    if ($session -is [hashtable] -and -not [string]::IsNullOrEmpty([string]$session['key'])) {
        $request['Session'] = $session
        $request['SessionKey'] = [string]$session['key']
    }
    $call = @{
        Id = $id; Request = $request; Shell = $null; Task = $null; Runspace = $null; ModulePath = $null; Slot = $null
        Stopping = $false; ErrorCount = 0; LogCount = 0
    }
    $script:Calls[$id] = $call
    $script:PoolFailures = 0
    if ($request['Mode'] -eq 'module') {
        $call['ModulePath'] = [string]$Message['modulePath']
        $slot = Get-ModuleSlot $call['ModulePath']
        $call['Slot'] = $slot
        $slot['Queue'].Enqueue($call)
    } else {
        $call['QueuedAt'] = [System.Diagnostics.Stopwatch]::GetTimestamp()
        $script:PendingScripts.Add($call)
        # Started here when a runspace is free, not after the loop's other chores: those run
        # while the tool does.
        if ($script:PendingScripts.Count -eq 1) { Start-PendingScripts }
    }
}

function Start-PendingScripts {
    while ($script:PendingScripts.Count -gt 0 -and $script:Idle.Count -gt 0) {
        $call = $script:PendingScripts[0]
        $entry = Select-IdleRunspace ([string]$call['Request']['SessionKey'])
        if ($null -eq $entry) { break }
        $script:PendingScripts.RemoveAt(0)
        # A call whose runspace answered before its loop turn came left the process state
        # (environment, working directory) as its tool did: put back before the next starts.
        if (Test-ProcessStateDirty) { Restore-ProcessState }
        Start-ToolCall $call $entry['Runspace'] $entry
    }
}

function Register-SessionWarmup {
    # A call of our own (no answer) that loads the session into a fresh runspace, queued like
    # a tool's so it takes its turn for a runspace.
    param($Session)
    if ($Session -isnot [hashtable] -or [string]::IsNullOrEmpty([string]$Session['key'])) { return }
    $id = "warm-session:$([string]$Session['key'])"
    if ($script:Calls.ContainsKey($id)) { return }
    $request = @{
        Id = $id; Mode = 'warm-session'; ScriptPath = ''; FunctionName = ''; ToolName = ''; Arguments = @{}
        MaxOutputChars = $MaxOutputChars; Envelope = $null; Session = $Session; SessionKey = [string]$Session['key']
    }
    $call = @{
        Id = $id; Request = $request; Shell = $null; Task = $null; Runspace = $null; ModulePath = $null; Slot = $null
        Stopping = $false; ErrorCount = 0; LogCount = 0; Warm = $true
    }
    $call['QueuedAt'] = [System.Diagnostics.Stopwatch]::GetTimestamp()
    $script:Calls[$id] = $call
    $script:PendingScripts.Add($call)
}

function Stop-ToolCall {
    param([string] $Id)
    if (-not $script:Calls.ContainsKey($Id)) { return }
    $call = $script:Calls[$Id]
    if ($null -ne $call['Shell']) {
        # Answered already: what still runs is the clean-up for the runspace's next call.
        [System.Threading.Monitor]::Enter($call['Request'])
        try {
            if ($call['Request']['Answered'] -eq $true) { return }
            $call['Request']['Stopping'] = $true
        } finally {
            [System.Threading.Monitor]::Exit($call['Request'])
        }
        if (-not $call['Stopping']) {
            $call['Stopping'] = $true
            # A pipeline waiting for its user stops only once the wait ends.
            Close-Questions $Id
            [void]$call['Shell'].BeginStop($null, $null)
        }
        return
    }
    # Not started yet: take it out of its queue and answer at once.
    for ($index = $script:PendingScripts.Count - 1; $index -ge 0; $index--) {
        if ([string]$script:PendingScripts[$index]['Id'] -eq $Id) { $script:PendingScripts.RemoveAt($index) }
    }
    foreach ($slot in (Get-AllModuleSlots)) {
        $kept = [System.Collections.Generic.List[hashtable]]::new()
        foreach ($queued in $slot['Queue'].ToArray()) {
            if ([string]$queued['Id'] -ne $Id) { $kept.Add($queued) }
        }
        if ($kept.Count -ne $slot['Queue'].Count) {
            $slot['Queue'].Clear()
            foreach ($queued in $kept) { $slot['Queue'].Enqueue($queued) }
        }
    }
    [void]$script:Calls.Remove($Id)
    Send-Message ([ordered]@{
            type = 'result'; id = $Id; kind = 'none'; text = $null; json = $null; error = $null
            file = $null; line = 0; truncated = $false; stopped = $true; errorCount = 0
        })
}

function Send-Questions {
    # Questions the tools' host interfaces queued on their own threads go to Node from here,
    # the one thread that writes the channel; the answer comes back as an "answer" message.
    $question = $null
    while ($script:QuestionQueue.TryDequeue([ref] $question)) {
        $callId = [string]$question['CallId']
        $call = if ($script:Calls.ContainsKey($callId)) { $script:Calls[$callId] } else { $null }
        if ($null -eq $call -or $call['Stopping'] -or $call['Warm'] -eq $true) {
            [void]$question['Answer'].TrySetResult(@{ action = 'stopped' })
            continue
        }
        $script:QuestionCount = $script:QuestionCount + 1
        $askId = [string]$script:QuestionCount
        $script:Questions[$askId] = $question
        Send-Message ([ordered]@{ type = 'ask'; id = $callId; askId = $askId; message = [string]$question['Message']; fields = @($question['Fields']); secret = $question['Secret'] })
    }
}

function Close-Questions {
    param([string] $CallId)
    foreach ($askId in @($script:Questions.Keys)) {
        $question = $script:Questions[$askId]
        if ([string]$question['CallId'] -ne $CallId) { continue }
        [void]$script:Questions.Remove($askId)
        [void]$question['Answer'].TrySetResult(@{ action = 'stopped' })
    }
}

function Receive-Message {
    param([string] $Line)
    $options = [System.Text.Json.JsonDocumentOptions]@{ MaxDepth = 100000 }
    $document = [System.Text.Json.JsonDocument]::Parse($Line, $options)
    try {
        $message = if ($null -ne $script:Codecs) { $script:Codecs.Item1.Invoke($document.RootElement) } else { ConvertFrom-ToolpackJsonElement $document.RootElement }
    } finally {
        $document.Dispose()
    }
    if ($message -isnot [hashtable]) { return }
    $type = [string]$message['type']
    if ($type -eq 'call') {
        try {
            Register-ToolCall $message
        } catch {
            Send-Failure @{ Id = [string]$message['id'] } "The PowerShell host could not accept the call: $($_.Exception.Message)"
        }
    } elseif ($type -eq 'stop') {
        Stop-ToolCall ([string]$message['id'])
    } elseif ($type -eq 'answer') {
        $askId = [string]$message['askId']
        if ($script:Questions.ContainsKey($askId)) {
            $question = $script:Questions[$askId]
            [void]$script:Questions.Remove($askId)
            [void]$question['Answer'].TrySetResult($message)
        }
    } elseif ($type -eq 'warm-module') {
        [void](Get-ModuleSlot ([string]$message['modulePath']))
    } elseif ($type -eq 'warm-session') {
        Register-SessionWarmup $message['session']
    } elseif ($type -eq 'forget-modules') {
        $paths = $message['modulePaths']
        foreach ($slot in @($script:Modules.Values)) {
            if ($null -ne $paths -and -not ($paths -contains [string]$slot['Path'])) { continue }
            [void]$script:Modules.Remove([string]$slot['Path'])
            $slot['Forgotten'] = $true
            $script:RetiredSlots.Add($slot)
        }
    } elseif ($type -eq 'shutdown') {
        $script:Running = $false
    }
}

function Get-AllModuleSlots {
    $all = [System.Collections.Generic.List[hashtable]]::new()
    foreach ($slot in $script:Modules.Values) { $all.Add($slot) }
    foreach ($slot in $script:RetiredSlots) { $all.Add($slot) }
    return , $all.ToArray()
}

function Test-Opening {
    if ($script:Preparing.Count -gt 0 -or $script:Reviving.Count -gt 0) { return $true }
    foreach ($slot in $script:Modules.Values) {
        if (-not $slot['Ready']) { return $true }
    }
    return ($script:Closing.Count -gt 0 -or $script:PendingScripts.Count -gt 0)
}

function Clear-ClosedRunspaces {
    for ($index = $script:Closing.Count - 1; $index -ge 0; $index--) {
        $runspace = $script:Closing[$index]
        $state = $runspace.RunspaceStateInfo.State
        if ($state -eq 'Closed' -or $state -eq 'Broken') {
            $script:Closing.RemoveAt($index)
            try { $runspace.Dispose() } catch { }
        }
    }
    if ($script:CollectAfterClose -and $script:Closing.Count -eq 0) {
        # Calls and disposed runspaces leave garbage, and memory freed by both, that the GC and
        # the C library would keep resident for the next busy spell. Measured at rest after 50
        # script calls and bursts of 8 (pwsh 7.6.9, Linux): the host's resident memory went from
        # ~213 MB to ~182 MB with the aggressive collect, to ~128 MB with malloc_trim as well;
        # together they take 30-70 ms of the loop, once per quiet spell.
        $script:CollectAfterClose = $false
        [System.Runtime.GCSettings]::LargeObjectHeapCompactionMode = [System.Runtime.GCLargeObjectHeapCompactionMode]::CompactOnce
        if ([System.Enum]::IsDefined([System.GCCollectionMode], 'Aggressive')) {
            # .NET 7 and later (PowerShell 7.3+): also decommits the free memory the GC keeps.
            [System.GC]::Collect(2, [System.GCCollectionMode]'Aggressive', $true, $true)
        } else {
            [System.GC]::Collect()
        }
        $trimmer = Get-NativeHeapTrimmer
        if ($trimmer) { [void]$trimmer::malloc_trim([UIntPtr]::Zero) }
    }
}

function Get-NativeHeapTrimmer {
    # glibc keeps the whole free pages inside its heaps (the runspace threads allocate in heaps
    # of their own) until malloc_trim hands them back to the system; other C libraries and
    # systems have no such call ($false). Emitted on first use, as the host's types are (the
    # bare engine has no Add-Type); a failure only leaves the pages where they are.
    if ($null -ne $script:NativeHeapTrimmer) { return $script:NativeHeapTrimmer }
    $script:NativeHeapTrimmer = $false
    $library = [IntPtr]::Zero
    $export = [IntPtr]::Zero
    if (-not ($IsLinux -and [System.Runtime.InteropServices.NativeLibrary]::TryLoad('libc.so.6', [ref]$library) -and
            [System.Runtime.InteropServices.NativeLibrary]::TryGetExport($library, 'malloc_trim', [ref]$export))) {
        return $false
    }
    try {
        $type = [System.Reflection.Emit.AssemblyBuilder]::DefineDynamicAssembly(
            [System.Reflection.AssemblyName]::new('Toolpack.NativeHeap'), [System.Reflection.Emit.AssemblyBuilderAccess]::Run).DefineDynamicModule('Toolpack.NativeHeap').DefineType(
            'Toolpack.NativeHeap', [System.Reflection.TypeAttributes]'Public, Abstract, Sealed, Class')
        [void]$type.DefinePInvokeMethod('malloc_trim', 'libc.so.6', [System.Reflection.MethodAttributes]'Public, Static, PinvokeImpl',
            [System.Reflection.CallingConventions]::Standard, [int], [type[]]@([UIntPtr]),
            [System.Runtime.InteropServices.CallingConvention]::Cdecl, [System.Runtime.InteropServices.CharSet]::Ansi)
        $script:NativeHeapTrimmer = $type.CreateType()
    } catch { }
    return $script:NativeHeapTrimmer
}

$script:Calls = [System.Collections.Generic.Dictionary[string, hashtable]]::new()
$script:Questions = [System.Collections.Generic.Dictionary[string, hashtable]]::new()
$script:QuestionCount = 0
$script:PendingScripts = [System.Collections.Generic.List[hashtable]]::new()
$script:Preparing = [System.Collections.Generic.List[hashtable]]::new()
$script:Idle = [System.Collections.Generic.Stack[hashtable]]::new()
$script:Resetting = [System.Collections.Generic.List[hashtable]]::new()
$script:Reviving = [System.Collections.Generic.List[hashtable]]::new()
$script:TaskFactory = [System.Threading.Tasks.Task]::Factory
# One instance for every answer: System.Text.Json caches what it learns per options object.
$script:AnswerJsonOptions = [System.Text.Json.JsonSerializerOptions]::new()
$script:AnswerJsonOptions.Encoder = [System.Text.Encodings.Web.JavaScriptEncoder]::UnsafeRelaxedJsonEscaping
$script:RunspaceCount = 0
$script:WarmRunspaces = [Math]::Min(2, $PoolSize)
$script:GrowAfterMs = 20
$script:GrowAfterTicks = [long]([System.Diagnostics.Stopwatch]::Frequency * $script:GrowAfterMs / 1000)
$script:FirstServed = $false
# A reused runspace is replaced after this many calls, so that what no reset reaches and no
# check looks at (PowerShell's own per-runspace caches) cannot grow without bound. Seldom:
# each replacement opens and prepares a runspace (fresh JIT work too) and leaves ~0.4 MB that
# PowerShell's binder caches keep of the closed runspace's type table. At 500, over 24,000 warm
# calls on two runspaces: ~0.2 ms more CPU a call and a managed heap growing 27 -> 44 MB; at
# 10,000, flat at 23 MB (one runspace then served 12,000 calls without growing).
$script:MaxRunspaceUses = 10000
$script:StartDirectory = [System.Environment]::CurrentDirectory
# What a call's runspace compares the process with once its tool has ended (never changed).
$script:ProcessState = @{ Directory = $script:StartDirectory; Environment = $script:Environment }
$script:Closing = [System.Collections.Generic.List[System.Management.Automation.Runspaces.Runspace]]::new()
$script:Modules = [System.Collections.Generic.Dictionary[string, hashtable]]::new([System.StringComparer]::Ordinal)
$script:RetiredSlots = [System.Collections.Generic.List[hashtable]]::new()
$script:PoolFailures = 0
$script:ProcessStateDirty = $false
$script:LastActivity = [System.Diagnostics.Stopwatch]::GetTimestamp()
$script:CollectAfterClose = $false
$script:Codecs = $null
$script:Fingerprint = $null
$script:DefinitionCheck = $null
# The start-up's garbage too is collected once the host has rested (Close-SurplusRunspaces).
$script:CollectWhenIdle = $true
$script:NativeHeapTrimmer = $null
$script:Running = $true

try {
    # The first runspace is prepared on its own thread while this one connects: the first
    # call waits for a runspace, not for the hello.
    $script:SessionState = New-ToolpackSessionState
    New-ScriptRunspace -Now
    $utf8 = [System.Text.UTF8Encoding]::new($false)
    $channel = Connect-Channel $ChannelPath
    $script:Reader = [System.IO.StreamReader]::new($channel, $utf8, $false, 65536)
    $script:Writer = [System.IO.StreamWriter]::new($channel, $utf8, 65536)
    # Written by hand (hex token, integer, version): the JSON writer's first use costs tens of
    # milliseconds of compilation that need not delay the hello.
    $script:Writer.Write('{"type":"hello","token":"' + $script:Token + '","pid":' + [int]$PID + ',"psVersion":"' + [string]$PSVersionTable.PSVersion + '"}' + "`n")
    $script:Writer.Flush()
    # Not needed until a call is started, and ~25 ms of this thread at start: made while the
    # first runspace prepares (which the first call waits for anyway), not before its opening.
    $script:ResetAction = New-ResetAction
    $script:ScriptCommand = Get-ScriptCommandFactory
} catch {
    [Console]::Error.WriteLine("Toolpack PowerShell host failed to start: $($_.Exception.Message)")
    [System.Environment]::Exit(2)
}

try {
    $readTask = $script:Reader.ReadLineAsync()
    # Each turn of this loop costs PowerShell time that calls wait for on a busy machine (a
    # call takes two or three turns): a chore is called only when it has something to do.
    while ($script:Running) {
        $hasModules = $script:Modules.Count -gt 0 -or $script:RetiredSlots.Count -gt 0
        $waitList = [System.Collections.Generic.List[System.Threading.Tasks.Task]]::new()
        $waitList.Add($readTask)
        foreach ($call in $script:Calls.Values) {
            if ($null -ne $call['Task']) { $waitList.Add($call['Task']) }
        }
        if ($hasModules) {
            foreach ($slot in (Get-AllModuleSlots)) {
                if ($null -ne $slot['ImportTask']) { $waitList.Add($slot['ImportTask']) }
            }
        }
        foreach ($entry in $script:Preparing) {
            if ($null -ne $entry['Task']) { $waitList.Add($entry['Task']) }
        }
        foreach ($entry in $script:Reviving) { $waitList.Add($entry['ResetTask']) }
        $timeout = 1000
        if ($waitList.Count -gt 1 -or $script:Preparing.Count -gt 0 -or $script:Closing.Count -gt 0 -or $script:PendingScripts.Count -gt 0 -or ($hasModules -and (Test-Opening))) { $timeout = 50 }
        # Runspaces beyond the floor are closed after IdleReleaseMs at rest: look in time.
        if ($script:Idle.Count -gt $script:WarmRunspaces) { $timeout = [Math]::Min($timeout, [Math]::Max(50, [Math]::Min(250, $IdleReleaseMs))) }
        # A waiting call may need a runspace of its own once it has waited GrowAfterMs.
        if ($script:PendingScripts.Count -gt 0) { $timeout = [Math]::Min($timeout, $script:GrowAfterMs) }
        [void][System.Threading.Tasks.Task]::WaitAny($waitList.ToArray(), [int]$timeout)

        while ($readTask.IsCompleted) {
            if ($readTask.IsFaulted -or $readTask.IsCanceled) { $script:Running = $false; break }
            $line = $readTask.Result
            if ($null -eq $line) { $script:Running = $false; break }
            $readTask = $script:Reader.ReadLineAsync()
            if ($line.Length -eq 0) { continue }
            try {
                Receive-Message $line
            } catch {
                [Console]::Error.WriteLine("Toolpack PowerShell host: bad message: $($_.Exception.Message)")
            }
        }
        if (-not $script:Running) { break }

        if (-not $script:QuestionQueue.IsEmpty) { Send-Questions }
        if ($script:Calls.Count -gt 0) {
            foreach ($call in @($script:Calls.Values)) {
                if ($null -eq $call['Task']) { continue }
                if ($call['Task'].IsCompleted) { Complete-ToolCall $call } elseif ($call['Request']['Answered'] -ne $true) { Send-StreamRecords $call }
            }
        }
        if ($script:Resetting.Count -gt 0 -or $script:Reviving.Count -gt 0) { Reset-Runspaces }
        # With no call waiting and the floor open, Update-Pool would open nothing.
        if ($script:Preparing.Count -gt 0 -or $script:PendingScripts.Count -gt 0 -or $script:RunspaceCount -lt $script:WarmRunspaces) { Update-Pool }
        if ($script:PendingScripts.Count -gt 0 -and $script:Idle.Count -gt 0) { Start-PendingScripts }
        if ($hasModules -or $script:Modules.Count -gt 0) {
            foreach ($slot in (Get-AllModuleSlots)) { Update-ModuleSlot $slot }
        }
        if ($script:Calls.Count -gt 0 -or $script:PendingScripts.Count -gt 0 -or $script:Resetting.Count -gt 0 -or $script:Reviving.Count -gt 0) {
            $script:LastActivity = [System.Diagnostics.Stopwatch]::GetTimestamp()
            $script:CollectWhenIdle = $true
        } elseif ($script:Idle.Count -gt $script:WarmRunspaces -or $script:CollectWhenIdle) {
            Close-SurplusRunspaces
        }
        if ($script:Closing.Count -gt 0 -or $script:CollectAfterClose) { Clear-ClosedRunspaces }
        # The compiled codecs take a hundred-odd milliseconds of this thread to build: at the
        # first rest, after the first calls, never in the way of the first.
        if ($null -eq $script:Codecs -and $script:Calls.Count -eq 0 -and $script:PendingScripts.Count -eq 0 -and $script:Preparing.Count -eq 0 -and -not $readTask.IsCompleted) {
            $script:Codecs = New-JsonCodecs
            $script:Fingerprint = New-StateFingerprint
            $script:DefinitionCheck = New-DefinitionCheck
        }
    }
} catch {
    [Console]::Error.WriteLine("Toolpack PowerShell host stopped: $($_.Exception.Message) $($_.ScriptStackTrace)")
    [System.Environment]::Exit(3)
}
[System.Environment]::Exit(0)
