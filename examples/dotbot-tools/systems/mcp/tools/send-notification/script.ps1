function Invoke-SendNotification {
    param(
        [hashtable]$Arguments
    )
    $level = if ($Arguments.level) { $Arguments.level } else { 'info' }
    $id = [guid]::NewGuid().ToString()
    $log = Join-Path $global:DotbotProjectRoot '.bot/notifications.log'
    New-Item -ItemType Directory -Force -Path (Split-Path $log) | Out-Null
    Add-Content -Path $log -Value "$id [$level] $($Arguments.message)"
    @{ id = $id; level = $level; delivered = $true }
}
