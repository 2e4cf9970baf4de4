# A floor for issue 34, standing for MCPServerPS's design of script tools: at start, every
# .ps1 under -ScriptRoot gets its own runspace (InitialSessionState.CreateDefault2), in which
# Get-Command and Get-Help read it; a call invokes the script in that runspace and never resets
# it, so calls to different scripts run side by side (MCPServerPS locks each script's runspace;
# this floor is never sent two calls of one script at once).
# It speaks only the part of MCP's JSON-RPC a benchmark needs, one JSON object per line on
# stdin/stdout (initialize, tools/list, tools/call; notifications are ignored): no schema, no
# argument check, no policy, no isolation between calls. bench/powershell-peers.ts drives it
# with the same client as `mcp serve`.
param([Parameter(Mandatory)] [string]$ScriptRoot)
$ErrorActionPreference = 'Stop'

$tools = @{}
foreach ($file in Get-ChildItem -LiteralPath $ScriptRoot -Filter '*.ps1' | Sort-Object Name) {
    $shell = [powershell]::Create([initialsessionstate]::CreateDefault2())
    $info = $shell.AddCommand('Get-Command').AddParameter('Name', $file.FullName).Invoke()[0]
    $shell.Commands.Clear()
    $help = $shell.AddCommand('Get-Help').AddParameter('Name', $file.FullName).Invoke()[0]
    $shell.Commands.Clear()
    $tools[$file.BaseName] = @{
        Path        = $file.FullName
        Shell       = $shell
        Description = [string]$help.Synopsis
        Parameters  = @($info.Parameters.Keys)
    }
}

$stdout = [Console]::Out
function Write-Answer($id, $result) {
    $stdout.WriteLine((@{ jsonrpc = '2.0'; id = $id; result = $result } | ConvertTo-Json -Depth 6 -Compress))
    $stdout.Flush()
}

# Calls in flight: the answer is written when the script's runspace finishes, so a slow tool
# does not hold the others (MCPServerPS runs different script tools in parallel).
$running = [System.Collections.Generic.List[object]]::new()
# Console.In reads synchronously even through ReadLineAsync; a reader on the raw stream does not.
$stdin = [System.IO.StreamReader]::new([Console]::OpenStandardInput())
$reading = $stdin.ReadLineAsync()
while ($true) {
    $handles = [System.Threading.WaitHandle[]]@(
        @(([System.IAsyncResult]$reading).AsyncWaitHandle) + @($running | ForEach-Object { $_.Async.AsyncWaitHandle })
    )
    $ready = [System.Threading.WaitHandle]::WaitAny($handles)
    if ($ready -gt 0) {
        $call = $running[$ready - 1]
        $running.RemoveAt($ready - 1)
        $output = $call.Tool.Shell.EndInvoke($call.Async)
        $call.Tool.Shell.Commands.Clear()
        $text = if ($output.Count -eq 1) { $output[0] } else { $output }
        Write-Answer $call.Id @{ content = @(@{ type = 'text'; text = ($text | ConvertTo-Json -Depth 2 -Compress) }) }
        continue
    }
    $line = $reading.Result
    if ($null -eq $line) { break }
    $reading = $stdin.ReadLineAsync()
    if ($line.Trim() -eq '') { continue }
    $message = $line | ConvertFrom-Json -AsHashtable
    if (-not $message.ContainsKey('id')) { continue }
    switch ($message.method) {
        'initialize' { Write-Answer $message.id @{ protocolVersion = $message.params.protocolVersion; capabilities = @{ tools = @{} }; serverInfo = @{ name = 'one-runspace-per-script'; version = '1.0.0' } } }
        'tools/list' { Write-Answer $message.id @{ tools = @($tools.Keys | Sort-Object | ForEach-Object { @{ name = $_; description = $tools[$_].Description } }) } }
        'tools/call' {
            $tool = $tools[$message.params.name]
            $null = $tool.Shell.AddCommand($tool.Path)
            foreach ($pair in $message.params.arguments.GetEnumerator()) { $null = $tool.Shell.AddParameter($pair.Key, $pair.Value) }
            $running.Add(@{ Id = $message.id; Tool = $tool; Async = $tool.Shell.BeginInvoke() })
        }
        default { $stdout.WriteLine((@{ jsonrpc = '2.0'; id = $message.id; error = @{ code = -32601; message = "no method $($message.method)" } } | ConvertTo-Json -Compress)); $stdout.Flush() }
    }
}
