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

function Send-ToolpackMessage {
    param([Parameter(Mandatory)][System.Collections.IDictionary]$Message)
    if (-not $env:TOOLPACK_TEST_SERVER) {
        throw 'TOOLPACK_TEST_SERVER is not set: run this test with mcp test.'
    }
    if ($null -eq $script:ToolpackHttp) {
        $script:ToolpackHttp = [System.Net.Http.HttpClient]::new()
        $script:ToolpackHttp.Timeout = [TimeSpan]::FromMinutes(10)
    }
    $json = ConvertTo-Json -InputObject $Message -Depth 100 -Compress
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
            if ($data) { $messages.Add((ConvertFrom-Json -InputObject $data -Depth 100)) }
        }
    } elseif ($Sent.Text.Trim()) {
        $messages.Add((ConvertFrom-Json -InputObject $Sent.Text -Depth 100))
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
    $actualJson = ConvertTo-Json -InputObject $Actual -Depth 100 -Compress
    $expectedJson = ConvertTo-Json -InputObject $Expected -Depth 100 -Compress
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
    $command = @(ConvertFrom-Json -InputObject $env:TOOLPACK_TEST_SERVE)
    $info = [System.Diagnostics.ProcessStartInfo]::new()
    $info.FileName = [string]$command[0]
    foreach ($argument in @($command | Select-Object -Skip 1)) { $info.ArgumentList.Add([string]$argument) }
    $info.UseShellExecute = $false
    $info.RedirectStandardInput = $true
    $info.RedirectStandardOutput = $true
    $info.StandardInputEncoding = [System.Text.UTF8Encoding]::new($false)
    $info.StandardOutputEncoding = [System.Text.UTF8Encoding]::new($false)
    $process = [System.Diagnostics.Process]::Start($info)
    # An MCP server answers only after initialize; dotbot's tests go straight to tools/call.
    $initialize = ConvertTo-Json -Compress -Depth 10 -InputObject ([ordered]@{
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
. (Join-Path $PSScriptRoot 'toolpack-test-helpers.ps1')

$ToolpackTestServerProcess = $null
try {
    Set-Location -LiteralPath (Split-Path -Parent $ToolpackTestFile)
    $ToolpackTestCommand = Get-Command -Name $ToolpackTestFile -CommandType ExternalScript
    if ($ToolpackTestCommand.Parameters.ContainsKey('Process')) {
        $ToolpackTestServerProcess = Start-ToolpackStdioServer
        . $ToolpackTestFile -Process $ToolpackTestServerProcess
    } else {
        . $ToolpackTestFile
    }
} catch {
    [Console]::Error.WriteLine('TOOLPACK_TEST_FAILED: ' + $_.Exception.Message)
    $position = $_.InvocationInfo.PositionMessage
    if ($position) { [Console]::Error.WriteLine($position) }
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
