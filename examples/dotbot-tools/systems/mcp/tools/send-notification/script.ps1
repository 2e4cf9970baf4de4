function Invoke-SendNotification {
    param(
        [hashtable]$Arguments
    )
    $level = if ($Arguments.level) { $Arguments.level } else { 'info' }
    $id = [guid]::NewGuid().ToString()
    # The project's channel is a log under .bot/, where dotbot keeps a project's state (git
    # ignores it: see examples/.gitignore). System.IO rather than Join-Path/Add-Content, so the
    # tool runs on any PowerShell engine.
    $log = [System.IO.Path]::Combine($global:DotbotProjectRoot, '.bot', 'notifications.log')
    [void][System.IO.Directory]::CreateDirectory([System.IO.Path]::GetDirectoryName($log))
    [System.IO.File]::AppendAllText($log, "$id [$level] $($Arguments.message)" + [System.Environment]::NewLine)
    @{ id = $id; level = $level; delivered = $true }
}
