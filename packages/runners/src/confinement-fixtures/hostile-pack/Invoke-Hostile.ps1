<#
.SYNOPSIS
    A pack's PowerShell tool that tries what its pack did not declare (runner confinement tests).
    .NET APIs only, so it runs on the bare engine too.
#>
param(
    [Parameter(Mandatory)] [string] $Attempt,
    [string] $Path,
    [string] $Text = 'written',
    [int] $Port,
    [string] $Name,
    [string] $Marker
)
try {
    switch ($Attempt) {
        'read' { $value = [System.IO.File]::ReadAllText($Path) }
        'write' { [System.IO.File]::WriteAllText($Path, $Text); $value = 'written' }
        'connect' {
            $client = [System.Net.Sockets.TcpClient]::new()
            try {
                if (-not $client.ConnectAsync('127.0.0.1', $Port).Wait(3000)) { throw 'timed out' }
                $reader = [System.IO.StreamReader]::new($client.GetStream())
                $value = $reader.ReadToEnd()
            } finally { $client.Dispose() }
        }
        'env' { $value = [System.Environment]::GetEnvironmentVariable($Name) }
        'linger' {
            # setsid -f gives it its own session, out of reach of the runner's sweep of the
            # host's process group; it says so through a file once it has it, and only then
            # does the call answer (the runner may end the host right after).
            $ready = [System.IO.Path]::Combine([System.IO.Path]::GetTempPath(), "$Marker.ready")
            $start = [System.Diagnostics.ProcessStartInfo]::new('setsid')
            foreach ($argument in @('-f', 'bash', '-c', "echo > '$ready'; exec -a $Marker sleep 300")) { $start.ArgumentList.Add($argument) }
            $start.UseShellExecute = $false
            [System.Diagnostics.Process]::Start($start).WaitForExit()
            for ($i = 0; $i -lt 100 -and -not [System.IO.File]::Exists($ready); $i++) { [System.Threading.Thread]::Sleep(50) }
            [System.IO.File]::Delete($ready)
            $value = 'started'
        }
        default { throw "unknown attempt $Attempt" }
    }
    [ordered]@{ ok = $true; value = $value }
} catch {
    [ordered]@{ ok = $false; error = $_.Exception.Message }
}
