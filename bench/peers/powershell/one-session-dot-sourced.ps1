# A floor for issue 34, standing for dotbot's MCP server design: one session; at start every
# tool folder under -ToolsDir has its metadata.json read and its script.ps1 dot-sourced once
# into this script's scope; a call runs the folder's Invoke-<PascalCase name> function with the
# arguments as one hashtable, in turn, and nothing is reset between calls.
# It speaks only the part of MCP's JSON-RPC a benchmark needs, one JSON object per line on
# stdin/stdout (initialize, tools/list, tools/call; notifications are ignored): no schema, no
# argument check, no policy, no isolation between calls. bench/powershell-peers.ts drives it
# with the same client as `mcp serve`.
param([Parameter(Mandatory)] [string]$ToolsDir)
$ErrorActionPreference = 'Stop'

$tools = @{}
foreach ($folder in Get-ChildItem -LiteralPath $ToolsDir -Directory | Sort-Object Name) {
    $metadata = Get-Content -Raw -LiteralPath (Join-Path $folder.FullName 'metadata.json') | ConvertFrom-Json -AsHashtable
    . (Join-Path $folder.FullName 'script.ps1')
    $pascal = ($metadata.name -split '_' | ForEach-Object { $_.Substring(0, 1).ToUpperInvariant() + $_.Substring(1) }) -join ''
    $tools[$metadata.name] = @{ Function = "Invoke-$pascal"; Description = $metadata.description }
}

$stdout = [Console]::Out
function Write-Answer($id, $result) {
    $stdout.WriteLine((@{ jsonrpc = '2.0'; id = $id; result = $result } | ConvertTo-Json -Depth 6 -Compress))
    $stdout.Flush()
}

while ($null -ne ($line = [Console]::In.ReadLine())) {
    if ($line.Trim() -eq '') { continue }
    $message = $line | ConvertFrom-Json -AsHashtable
    if (-not $message.ContainsKey('id')) { continue }
    switch ($message.method) {
        'initialize' { Write-Answer $message.id @{ protocolVersion = $message.params.protocolVersion; capabilities = @{ tools = @{} }; serverInfo = @{ name = 'one-session-dot-sourced'; version = '1.0.0' } } }
        'tools/list' { Write-Answer $message.id @{ tools = @($tools.Keys | Sort-Object | ForEach-Object { @{ name = $_; description = $tools[$_].Description } }) } }
        'tools/call' {
            $result = & $tools[$message.params.name].Function -Arguments $message.params.arguments
            Write-Answer $message.id @{ content = @(@{ type = 'text'; text = ($result | ConvertTo-Json -Depth 2 -Compress) }) }
        }
        default { $stdout.WriteLine((@{ jsonrpc = '2.0'; id = $message.id; error = @{ code = -32601; message = "no method $($message.method)" } } | ConvertTo-Json -Compress)); $stdout.Flush() }
    }
}
