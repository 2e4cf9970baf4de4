// The helpers `mcp test` gives test files, kept as text and written to a temporary folder
// for each run: the published CLI ships only dist/, and these must run outside Node.
// (String.raw keeps PowerShell's and regular expressions' backslashes; the sources use no
// backticks and no "${" so they fit in a template literal.)

/** The protocol revision the helpers speak: the 2025 session flow every MCP server knows. */
export const TEST_PROTOCOL_VERSION = '2025-11-25';

/**
 * An ES module for node:test files (TOOLPACK_TEST_HELPER): `callTool(name, args, options)`
 * and `listTools()` against the server in TOOLPACK_TEST_SERVER, over Streamable HTTP.
 */
export const NODE_TEST_HELPER = String.raw`// Written by mcp test. callTool() and listTools() talk to the MCP server it started
// (TOOLPACK_TEST_SERVER) as any client would: initialize, then JSON-RPC over Streamable HTTP.
import http from 'node:http';

const PROTOCOL = '${TEST_PROTOCOL_VERSION}';
let session;
let nextId = 1;

function post(message, sessionId) {
  const url = process.env.TOOLPACK_TEST_SERVER;
  if (!url) {
    return Promise.reject(new Error('TOOLPACK_TEST_SERVER is not set: run this test with mcp test.'));
  }
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  const headers = {
    // The same Content-Type as the PowerShell helper's StringContent sends.
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(body.length),
    accept: 'application/json, text/event-stream',
  };
  if (process.env.TOOLPACK_TEST_TOKEN) headers.authorization = 'Bearer ' + process.env.TOOLPACK_TEST_TOKEN;
  if (sessionId) {
    headers['mcp-session-id'] = sessionId;
    headers['mcp-protocol-version'] = PROTOCOL;
  }
  return new Promise((resolve, reject) => {
    // No keep-alive agent: an idle socket must not hold the test process open.
    const request = http.request(url, { method: 'POST', headers, agent: false }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

function readAnswer(sent, id, what) {
  if (sent.status < 200 || sent.status >= 300) {
    throw new Error(what + ': the test server answered HTTP ' + sent.status + ' ' + sent.text);
  }
  const type = String(sent.headers['content-type'] ?? '');
  const messages = [];
  if (type.includes('text/event-stream')) {
    for (const event of sent.text.split(/\r?\n\r?\n/)) {
      const data = event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data !== '') messages.push(JSON.parse(data));
    }
  } else if (sent.text.trim() !== '') {
    messages.push(JSON.parse(sent.text));
  }
  const answer = messages.find((message) => message && message.id === id);
  if (answer === undefined) throw new Error(what + ': the test server sent no answer.');
  if (answer.error) {
    throw new Error(what + ': ' + answer.error.message + ' (JSON-RPC ' + answer.error.code + ')');
  }
  return answer.result;
}

function connect() {
  session ??= (async () => {
    const id = nextId++;
    const sent = await post({
      jsonrpc: '2.0',
      id,
      method: 'initialize',
      params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'mcp-test', version: '1.0.0' } },
    });
    readAnswer(sent, id, 'initialize');
    const sessionId = sent.headers['mcp-session-id'];
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId);
    return sessionId;
  })();
  return session;
}

async function request(method, params, what) {
  const sessionId = await connect();
  const id = nextId++;
  return readAnswer(await post({ jsonrpc: '2.0', id, method, params }, sessionId), id, what);
}

/** Every tool the server lists: [{ name, description, inputSchema, ... }]. */
export async function listTools() {
  return (await request('tools/list', {}, 'tools/list')).tools;
}

/**
 * Calls a tool; resolves with its CallToolResult plus text (the text blocks joined).
 * An isError result rejects, unless options.allowError.
 */
export async function callTool(name, args = {}, options = {}) {
  const result = await request('tools/call', { name, arguments: args }, 'tools/call ' + name);
  const text = (result.content ?? [])
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
  if (result.isError && !options.allowError) throw new Error(name + ' answered with an error: ' + text);
  return { ...result, text };
}
`;

/**
 * Dot-sourced into every test.ps1 `mcp test` runs: Invoke-ToolpackTool, Get-ToolpackTool,
 * Assert-ToolpackEqual, plus what run-test.ps1 needs to serve dotbot's `-Process` tests.
 */
export const POWERSHELL_TEST_HELPERS = String.raw`# Written by mcp test and dot-sourced into every test.ps1 it runs.
# $env:TOOLPACK_TEST_SERVER is an MCP server (Streamable HTTP) serving the project's tools.

# Only the engine's own cmdlets and .NET APIs: these helpers run on any PowerShell 7.2+,
# including an engine without the built-in modules (no ConvertTo-Json, Join-Path, Select-Object).

$script:ToolpackHttp = $null
$script:ToolpackSession = $null
$script:ToolpackNextId = 1
$script:ToolpackProtocol = '${TEST_PROTOCOL_VERSION}'

function Get-ToolpackMember {
    # Strict-mode-proof: a missing property is $null, never an error.
    param([AllowNull()]$InputObject, [Parameter(Mandatory)][string]$Name)
    if ($null -eq $InputObject) { return $null }
    if ($InputObject -is [System.Collections.IDictionary]) { return $InputObject[$Name] }
    $property = $InputObject.PSObject.Properties[$Name]
    if ($null -eq $property) { return $null }
    return $property.Value
}

function ConvertTo-ToolpackJson {
    <#
    .SYNOPSIS
    The compact JSON text of a value: dictionaries and objects with their keys in ordinal order
    (so two objects with the same members compare equal), numbers by value (5 and 5L alike).
    #>
    param([AllowNull()]$InputObject, [int]$Depth = 100)
    $builder = [System.Text.StringBuilder]::new()
    Write-ToolpackJsonValue -Builder $builder -Value $InputObject -Depth $Depth
    $builder.ToString()
}

function Write-ToolpackJsonString {
    param([Parameter(Mandatory)][System.Text.StringBuilder]$Builder, [AllowEmptyString()][string]$Text)
    $escaped = [System.Text.RegularExpressions.Regex]::Replace($Text, '[\u0000-\u001f"\\]', [System.Text.RegularExpressions.MatchEvaluator]{
        param($match)
        switch ([int]$match.Value[0]) {
            0x22 { return '\"' }
            0x5c { return '\\' }
            0x0a { return '\n' }
            0x0d { return '\r' }
            0x09 { return '\t' }
            default { return '\u' + ([int]$match.Value[0]).ToString('x4') }
        }
    })
    [void]$Builder.Append('"').Append($escaped).Append('"')
}

function Write-ToolpackJsonMembers {
    param([Parameter(Mandatory)][System.Text.StringBuilder]$Builder, [Parameter(Mandatory)][System.Collections.IDictionary]$Members, [int]$Depth)
    $names = [string[]]@($Members.Keys | ForEach-Object { [string]$_ })
    [System.Array]::Sort($names, [System.StringComparer]::Ordinal)
    [void]$Builder.Append('{')
    $first = $true
    foreach ($name in $names) {
        if (-not $first) { [void]$Builder.Append(',') }
        $first = $false
        Write-ToolpackJsonString -Builder $Builder -Text $name
        [void]$Builder.Append(':')
        Write-ToolpackJsonValue -Builder $Builder -Value $Members[$name] -Depth ($Depth - 1)
    }
    [void]$Builder.Append('}')
}

function Write-ToolpackJsonValue {
    param([Parameter(Mandatory)][System.Text.StringBuilder]$Builder, [AllowNull()]$Value, [int]$Depth)
    $invariant = [System.Globalization.CultureInfo]::InvariantCulture
    if ($null -eq $Value -or $Value -is [System.DBNull]) { [void]$Builder.Append('null'); return }
    if ($Value -is [string] -or $Value -is [char]) { Write-ToolpackJsonString -Builder $Builder -Text ([string]$Value); return }
    if ($Value -is [bool]) { [void]$Builder.Append($(if ($Value) { 'true' } else { 'false' })); return }
    if ($Value -is [System.Enum]) { Write-ToolpackJsonString -Builder $Builder -Text $Value.ToString(); return }
    if ($Value -is [double] -or $Value -is [float]) {
        $number = [double]$Value
        if ([double]::IsNaN($number) -or [double]::IsInfinity($number)) {
            Write-ToolpackJsonString -Builder $Builder -Text $number.ToString($invariant)
        } else {
            [void]$Builder.Append($number.ToString('R', $invariant))
        }
        return
    }
    if (($Value -is [System.IConvertible] -and $Value.GetType().IsPrimitive) -or $Value -is [decimal] -or $Value -is [System.Numerics.BigInteger]) {
        [void]$Builder.Append(([System.IFormattable]$Value).ToString($null, $invariant))
        return
    }
    if ($Value -is [datetime]) { Write-ToolpackJsonString -Builder $Builder -Text $Value.ToString('o', $invariant); return }
    if ($Value -is [System.DateTimeOffset]) { Write-ToolpackJsonString -Builder $Builder -Text $Value.ToString('o', $invariant); return }
    if ($Value -is [guid] -or $Value -is [uri] -or $Value -is [version] -or $Value -is [timespan]) {
        Write-ToolpackJsonString -Builder $Builder -Text $Value.ToString()
        return
    }
    if ($Depth -lt 0) { Write-ToolpackJsonString -Builder $Builder -Text ([string]$Value); return }
    if ($Value -is [System.Collections.IDictionary]) { Write-ToolpackJsonMembers -Builder $Builder -Members $Value -Depth $Depth; return }
    if ($Value -is [System.Collections.IEnumerable]) {
        [void]$Builder.Append('[')
        $first = $true
        foreach ($item in $Value) {
            if (-not $first) { [void]$Builder.Append(',') }
            $first = $false
            Write-ToolpackJsonValue -Builder $Builder -Value $item -Depth ($Depth - 1)
        }
        [void]$Builder.Append(']')
        return
    }
    # A [pscustomobject] or any other object: its readable properties, as ConvertTo-Json does.
    $members = [System.Collections.Specialized.OrderedDictionary]::new()
    foreach ($property in $Value.PSObject.Properties) {
        if (-not $property.IsGettable) { continue }
        try { $members[$property.Name] = $property.Value } catch { $members[$property.Name] = $null }
    }
    Write-ToolpackJsonMembers -Builder $Builder -Members $members -Depth $Depth
}

function ConvertFrom-ToolpackJson {
    <#
    .SYNOPSIS
    ConvertFrom-Json's objects from JSON text: [pscustomobject] for objects, object[] for arrays,
    [long] for whole numbers and [double] for the others.
    #>
    param([Parameter(Mandatory)][string]$Json)
    $document = [System.Text.Json.JsonDocument]::Parse($Json, [System.Text.Json.JsonDocumentOptions]@{ MaxDepth = 1000 })
    try {
        ConvertFrom-ToolpackJsonElement -Element $document.RootElement
    } finally {
        $document.Dispose()
    }
}

function ConvertFrom-ToolpackJsonElement {
    param([Parameter(Mandatory)]$Element)
    switch ($Element.ValueKind) {
        ([System.Text.Json.JsonValueKind]::Object) {
            $members = [ordered]@{}
            foreach ($property in $Element.EnumerateObject()) {
                $members[$property.Name] = ConvertFrom-ToolpackJsonElement -Element $property.Value
            }
            return [pscustomobject]$members
        }
        ([System.Text.Json.JsonValueKind]::Array) {
            $items = [System.Collections.Generic.List[object]]::new()
            foreach ($item in $Element.EnumerateArray()) { $items.Add((ConvertFrom-ToolpackJsonElement -Element $item)) }
            # The comma keeps an array (even an empty one) one value on the pipeline.
            return , $items.ToArray()
        }
        ([System.Text.Json.JsonValueKind]::String) { return $Element.GetString() }
        ([System.Text.Json.JsonValueKind]::Number) {
            $whole = 0L
            if ($Element.TryGetInt64([ref]$whole)) { return $whole }
            return $Element.GetDouble()
        }
        ([System.Text.Json.JsonValueKind]::True) { return $true }
        ([System.Text.Json.JsonValueKind]::False) { return $false }
        default { return $null }
    }
}

function Send-ToolpackMessage {
    param([Parameter(Mandatory)][System.Collections.IDictionary]$Message)
    if (-not $env:TOOLPACK_TEST_SERVER) {
        throw 'TOOLPACK_TEST_SERVER is not set: run this test with mcp test.'
    }
    if ($null -eq $script:ToolpackHttp) {
        $script:ToolpackHttp = [System.Net.Http.HttpClient]::new()
        $script:ToolpackHttp.Timeout = [TimeSpan]::FromMinutes(10)
    }
    $json = ConvertTo-ToolpackJson -InputObject $Message
    $request = [System.Net.Http.HttpRequestMessage]::new([System.Net.Http.HttpMethod]::Post, $env:TOOLPACK_TEST_SERVER)
    $request.Content = [System.Net.Http.StringContent]::new($json, [System.Text.UTF8Encoding]::new($false), 'application/json')
    [void]$request.Headers.TryAddWithoutValidation('Accept', 'application/json, text/event-stream')
    if ($env:TOOLPACK_TEST_TOKEN) {
        [void]$request.Headers.TryAddWithoutValidation('Authorization', 'Bearer ' + $env:TOOLPACK_TEST_TOKEN)
    }
    if ($script:ToolpackSession) {
        [void]$request.Headers.TryAddWithoutValidation('Mcp-Session-Id', $script:ToolpackSession)
        [void]$request.Headers.TryAddWithoutValidation('MCP-Protocol-Version', $script:ToolpackProtocol)
    }
    $response = $script:ToolpackHttp.SendAsync($request).GetAwaiter().GetResult()
    $bytes = $response.Content.ReadAsByteArrayAsync().GetAwaiter().GetResult()
    [pscustomobject]@{
        Response = $response
        Text     = [System.Text.Encoding]::UTF8.GetString($bytes)
    }
}

function Read-ToolpackAnswer {
    param([Parameter(Mandatory)]$Sent, [Parameter(Mandatory)][long]$Id, [Parameter(Mandatory)][string]$What)
    $status = [int]$Sent.Response.StatusCode
    if ($status -lt 200 -or $status -ge 300) {
        throw ($What + ': the test server answered HTTP ' + $status + ' ' + $Sent.Text)
    }
    $contentType = $Sent.Response.Content.Headers.ContentType
    $mediaType = if ($null -ne $contentType) { [string]$contentType.MediaType } else { '' }
    $messages = [System.Collections.Generic.List[object]]::new()
    if ($mediaType -eq 'text/event-stream') {
        foreach ($block in ($Sent.Text -split '\r?\n\r?\n')) {
            $data = @(($block -split '\r?\n') | Where-Object { $_.StartsWith('data:') } | ForEach-Object { $_.Substring(5).TrimStart() }) -join [char]10
            if ($data) { $messages.Add((ConvertFrom-ToolpackJson -Json $data)) }
        }
    } elseif ($Sent.Text.Trim()) {
        $messages.Add((ConvertFrom-ToolpackJson -Json $Sent.Text))
    }
    foreach ($message in $messages) {
        $messageId = Get-ToolpackMember $message 'id'
        if ($null -ne $messageId -and [long]$messageId -eq $Id) {
            $failure = Get-ToolpackMember $message 'error'
            if ($null -ne $failure) {
                throw ($What + ': ' + (Get-ToolpackMember $failure 'message') + ' (JSON-RPC ' + (Get-ToolpackMember $failure 'code') + ')')
            }
            return (Get-ToolpackMember $message 'result')
        }
    }
    throw ($What + ': the test server sent no answer.')
}

function Connect-ToolpackTestServer {
    if ($script:ToolpackSession) { return }
    $id = $script:ToolpackNextId
    $script:ToolpackNextId = $id + 1
    $sent = Send-ToolpackMessage ([ordered]@{
        jsonrpc = '2.0'
        id      = $id
        method  = 'initialize'
        params  = [ordered]@{
            protocolVersion = $script:ToolpackProtocol
            capabilities    = @{}
            clientInfo      = [ordered]@{ name = 'mcp-test'; version = '1.0.0' }
        }
    })
    [void](Read-ToolpackAnswer -Sent $sent -Id $id -What 'initialize')
    $values = $null
    if ($sent.Response.Headers.TryGetValues('Mcp-Session-Id', [ref]$values)) {
        $script:ToolpackSession = @($values)[0]
    }
    [void](Send-ToolpackMessage ([ordered]@{ jsonrpc = '2.0'; method = 'notifications/initialized' }))
}

function Invoke-ToolpackRequest {
    param([Parameter(Mandatory)][string]$Method, [System.Collections.IDictionary]$Params = @{}, [string]$What = $Method)
    Connect-ToolpackTestServer
    $id = $script:ToolpackNextId
    $script:ToolpackNextId = $id + 1
    $sent = Send-ToolpackMessage ([ordered]@{ jsonrpc = '2.0'; id = $id; method = $Method; params = $Params })
    Read-ToolpackAnswer -Sent $sent -Id $id -What $What
}

function Invoke-ToolpackTool {
    <#
    .SYNOPSIS
    Calls a tool on the test server and returns { isError, text, content, structuredContent }.
    An error result throws (failing the test) unless -AllowError.
    #>
    [CmdletBinding()]
    param(
        [Parameter(Mandatory)][string]$Name,
        [System.Collections.IDictionary]$Arguments = @{},
        [switch]$AllowError
    )
    $result = Invoke-ToolpackRequest -Method 'tools/call' -Params ([ordered]@{ name = $Name; arguments = $Arguments }) -What ('tools/call ' + $Name)
    $content = @(Get-ToolpackMember $result 'content')
    $text = @($content | Where-Object { (Get-ToolpackMember $_ 'type') -eq 'text' } | ForEach-Object { Get-ToolpackMember $_ 'text' }) -join [char]10
    $isError = [bool](Get-ToolpackMember $result 'isError')
    if ($isError -and -not $AllowError) {
        throw ($Name + ' answered with an error: ' + $text)
    }
    [pscustomobject]@{
        isError           = $isError
        text              = $text
        content           = $content
        structuredContent = Get-ToolpackMember $result 'structuredContent'
    }
}

function Get-ToolpackTool {
    <#
    .SYNOPSIS
    The tools the test server lists (tools/list), optionally only the one named -Name.
    #>
    param([string]$Name)
    $tools = @(Get-ToolpackMember (Invoke-ToolpackRequest -Method 'tools/list') 'tools')
    if ($Name) { return @($tools | Where-Object { (Get-ToolpackMember $_ 'name') -eq $Name }) }
    $tools
}

function Assert-ToolpackEqual {
    <#
    .SYNOPSIS
    Throws unless -Actual and -Expected have the same JSON form (so 5 equals 5L, and objects compare by value).
    #>
    param(
        [AllowNull()]$Actual,
        [AllowNull()]$Expected,
        [string]$Message = 'the values differ'
    )
    $actualJson = ConvertTo-ToolpackJson -InputObject $Actual
    $expectedJson = ConvertTo-ToolpackJson -InputObject $Expected
    if ($actualJson -cne $expectedJson) {
        throw ('Assertion failed: ' + $Message + '. Expected ' + $expectedJson + ', got ' + $actualJson + '.')
    }
}

function Disconnect-ToolpackTestServer {
    if ($null -eq $script:ToolpackHttp) { return }
    try {
        if ($script:ToolpackSession) {
            $request = [System.Net.Http.HttpRequestMessage]::new([System.Net.Http.HttpMethod]::Delete, $env:TOOLPACK_TEST_SERVER)
            [void]$request.Headers.TryAddWithoutValidation('Mcp-Session-Id', $script:ToolpackSession)
            if ($env:TOOLPACK_TEST_TOKEN) {
                [void]$request.Headers.TryAddWithoutValidation('Authorization', 'Bearer ' + $env:TOOLPACK_TEST_TOKEN)
            }
            [void]$script:ToolpackHttp.SendAsync($request).GetAwaiter().GetResult()
        }
    } catch {
        # The server stops with mcp test anyway.
    } finally {
        $script:ToolpackHttp.Dispose()
        $script:ToolpackHttp = $null
        $script:ToolpackSession = $null
    }
}

function Start-ToolpackStdioServer {
    # dotbot's tests take the server process (-Process) and write JSON-RPC lines to its stdin.
    # $env:TOOLPACK_TEST_SERVE is the mcp serve command line, as a JSON array.
    $command = ConvertFrom-ToolpackJson -Json $env:TOOLPACK_TEST_SERVE
    $info = [System.Diagnostics.ProcessStartInfo]::new()
    $info.FileName = [string]$command[0]
    for ($index = 1; $index -lt $command.Count; $index++) { $info.ArgumentList.Add([string]$command[$index]) }
    $info.UseShellExecute = $false
    $info.RedirectStandardInput = $true
    $info.RedirectStandardOutput = $true
    $info.StandardInputEncoding = [System.Text.UTF8Encoding]::new($false)
    $info.StandardOutputEncoding = [System.Text.UTF8Encoding]::new($false)
    $process = [System.Diagnostics.Process]::Start($info)
    # An MCP server answers only after initialize; dotbot's tests go straight to tools/call.
    $initialize = ConvertTo-ToolpackJson -InputObject ([ordered]@{
        jsonrpc = '2.0'
        id      = 0
        method  = 'initialize'
        params  = [ordered]@{
            protocolVersion = $script:ToolpackProtocol
            capabilities    = @{}
            clientInfo      = [ordered]@{ name = 'mcp-test'; version = '1.0.0' }
        }
    })
    $process.StandardInput.WriteLine($initialize)
    $process.StandardInput.Flush()
    $answer = $process.StandardOutput.ReadLine()
    if ($null -eq $answer) { throw 'mcp serve stopped before answering initialize.' }
    $process.StandardInput.WriteLine('{"jsonrpc":"2.0","method":"notifications/initialized"}')
    $process.StandardInput.Flush()
    $process
}

function Stop-ToolpackStdioServer {
    param([Parameter(Mandatory)][System.Diagnostics.Process]$Process)
    try { $Process.StandardInput.Close() } catch { }
    if (-not $Process.WaitForExit(5000)) { $Process.Kill($true) }
}
`;

/** Runs one test.ps1: helpers loaded, project root set, a throw or a non-zero exit fails it. */
export const POWERSHELL_TEST_RUNNER = String.raw`# Written by mcp test: runs one test file with the Toolpack test helpers loaded.
param(
    [Parameter(Mandatory)][string]$ToolpackTestFile,
    [Parameter(Mandatory)][string]$ToolpackTestProjectRoot
)
$ErrorActionPreference = 'Stop'
$ProgressPreference = 'SilentlyContinue'
$global:ToolpackProjectRoot = $ToolpackTestProjectRoot
$global:DotbotProjectRoot = $ToolpackTestProjectRoot
$ToolpackHelpersFile = [System.IO.Path]::Combine($PSScriptRoot, 'toolpack-test-helpers.ps1')
. $ToolpackHelpersFile

function Write-ToolpackFailurePosition {
    # A helper's throw (Assert-ToolpackEqual, Invoke-ToolpackTool) is positioned at its own throw
    # statement; the line to fix is where the test called it: the innermost stack frame outside
    # the files mcp test wrote.
    param([Parameter(Mandatory)][System.Management.Automation.ErrorRecord]$Record)
    $ours = @($ToolpackHelpersFile, $PSCommandPath)
    foreach ($frame in ([string]$Record.ScriptStackTrace -split '
?
')) {
        $found = [System.Text.RegularExpressions.Regex]::Match($frame, '^at .*, (?<file>.+): line (?<line>\d+)$')
        if (-not $found.Success) { continue }
        $file = $found.Groups['file'].Value
        if ($file -eq '<No file>' -or $ours -contains $file) { continue }
        if ($file -eq $Record.InvocationInfo.ScriptName) {
            # The error is the test's own: PowerShell's message has the column and the code.
            break
        }
        $line = [int]$found.Groups['line'].Value
        [Console]::Error.WriteLine('At ' + $file + ':' + $line)
        $code = @([System.IO.File]::ReadAllLines($file))
        if ($line -ge 1 -and $line -le $code.Count) { [Console]::Error.WriteLine('+ ' + $code[$line - 1].Trim()) }
        return
    }
    $position = $Record.InvocationInfo.PositionMessage
    if ($position) { [Console]::Error.WriteLine($position) }
}

$ToolpackTestServerProcess = $null
try {
    [void]$ExecutionContext.SessionState.Path.SetLocation([System.Management.Automation.WildcardPattern]::Escape([System.IO.Path]::GetDirectoryName($ToolpackTestFile)))
    $ToolpackTestCommand = Get-Command -Name $ToolpackTestFile -CommandType ExternalScript
    if ($ToolpackTestCommand.Parameters.ContainsKey('Process')) {
        $ToolpackTestServerProcess = Start-ToolpackStdioServer
        . $ToolpackTestFile -Process $ToolpackTestServerProcess
    } else {
        . $ToolpackTestFile
    }
} catch {
    [Console]::Error.WriteLine('TOOLPACK_TEST_FAILED: ' + $_.Exception.Message)
    Write-ToolpackFailurePosition -Record $_
    exit 1
} finally {
    Disconnect-ToolpackTestServer
    if ($null -ne $ToolpackTestServerProcess) { Stop-ToolpackStdioServer -Process $ToolpackTestServerProcess }
}
exit 0
`;

export const POWERSHELL_HELPERS_FILE = 'toolpack-test-helpers.ps1';
export const POWERSHELL_RUNNER_FILE = 'run-test.ps1';
export const NODE_HELPER_FILE = 'toolpack-test-helper.mjs';
