<#
.SYNOPSIS
Reports physical memory and swap: total, used and available.

.DESCRIPTION
Returns the total, used and available physical memory and swap (page file) of the
machine, in the unit asked for, with the share in use. Works on Windows, Linux and macOS.

.PARAMETER Unit
The unit of the sizes returned.

.NOTES
ReadOnlyHint: true
IdempotentHint: true
OpenWorldHint: false
#>
[CmdletBinding()]
param(
    [ValidateSet('B', 'KB', 'MB', 'GB')]
    [string]$Unit = 'MB'
)

Set-StrictMode -Version Latest
$ErrorActionPreference = 'Stop'

$divisor = @{ B = 1; KB = 1KB; MB = 1MB; GB = 1GB }[$Unit]
$total = $null; $available = $null; $swapTotal = $null; $swapFree = $null

if ($IsWindows) {
    $os = Get-CimInstance -ClassName Win32_OperatingSystem
    $total = [long]$os.TotalVisibleMemorySize * 1KB
    $available = [long]$os.FreePhysicalMemory * 1KB
    $swapTotal = [long]$os.SizeStoredInPagingFiles * 1KB
    $swapFree = [long]$os.FreeSpaceInPagingFiles * 1KB
}
elseif ($IsLinux) {
    $info = @{}
    foreach ($line in [System.IO.File]::ReadAllLines('/proc/meminfo')) {
        if ($line -match '^(\w+):\s+(\d+)') { $info[$Matches[1]] = [long]$Matches[2] * 1KB }
    }
    $total = $info['MemTotal']
    $available = if ($info.ContainsKey('MemAvailable')) { $info['MemAvailable'] } else { $info['MemFree'] }
    $swapTotal = $info['SwapTotal']
    $swapFree = $info['SwapFree']
}
elseif ($IsMacOS) {
    $total = [long](& sysctl -n hw.memsize)
    $pageSize = [long](& sysctl -n hw.pagesize)
    $pages = @{}
    foreach ($line in (& vm_stat)) {
        if ($line -match '^Pages (free|inactive|speculative):\s+(\d+)') { $pages[$Matches[1]] = [long]$Matches[2] }
    }
    $freePages = 0L
    foreach ($count in $pages.Values) { $freePages += $count }
    $available = $freePages * $pageSize
}

function ConvertTo-Unit([Nullable[long]]$bytes) {
    if ($null -eq $bytes) { return $null }
    return [math]::Round($bytes / $divisor, 2)
}

[pscustomobject]@{
    unit        = $Unit
    total       = ConvertTo-Unit $total
    available   = ConvertTo-Unit $available
    used        = ConvertTo-Unit ($(if ($null -ne $total -and $null -ne $available) { $total - $available } else { $null }))
    usedPercent = if ($total) { [math]::Round(100 * ($total - $available) / $total, 1) } else { $null }
    swapTotal   = ConvertTo-Unit $swapTotal
    swapFree    = ConvertTo-Unit $swapFree
}
