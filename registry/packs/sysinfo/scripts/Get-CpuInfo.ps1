<#
.SYNOPSIS
Describes the processor: model, cores and current load.

.DESCRIPTION
Returns the CPU model, the number of logical processors, the architecture and, when the
platform reports it, the load averages and the CPU usage measured over a short sample.

.PARAMETER SampleMilliseconds
How long to measure CPU usage, in milliseconds; 0 skips the measurement.

.NOTES
ReadOnlyHint: true
IdempotentHint: true
OpenWorldHint: false
#>
[CmdletBinding()]
param(
    [ValidateRange(0, 5000)]
    [int]$SampleMilliseconds = 500
)

Set-StrictMode -Version Latest
$ErrorActionPreference = 'Stop'

$model = $null
$usage = $null
$load = $null

if ($IsWindows) {
    $cpu = Get-CimInstance -ClassName Win32_Processor | Select-Object -First 1
    $model = $cpu.Name.Trim()
    if ($SampleMilliseconds -gt 0) {
        $usage = [double](Get-CimInstance -ClassName Win32_Processor | Measure-Object -Property LoadPercentage -Average).Average
    }
}
elseif ($IsLinux) {
    $line = Get-Content -LiteralPath '/proc/cpuinfo' | Where-Object { $_ -match '^(model name|Hardware|Processor)\s*:' } | Select-Object -First 1
    if ($line) { $model = ($line -split ':', 2)[1].Trim() }
    $parts = (Get-Content -LiteralPath '/proc/loadavg' -Raw).Split(' ')
    $load = @([double]$parts[0], [double]$parts[1], [double]$parts[2])
    if ($SampleMilliseconds -gt 0) {
        # Two readings of the aggregate "cpu" line: busy time over total time between them.
        $read = { (Get-Content -LiteralPath '/proc/stat' -TotalCount 1).Split(' ', [StringSplitOptions]::RemoveEmptyEntries)[1..8] | ForEach-Object { [long]$_ } }
        $first = & $read
        Start-Sleep -Milliseconds $SampleMilliseconds
        $second = & $read
        $idle = ($second[3] + $second[4]) - ($first[3] + $first[4])
        $total = ($second | Measure-Object -Sum).Sum - ($first | Measure-Object -Sum).Sum
        if ($total -gt 0) { $usage = [math]::Round(100 * ($total - $idle) / $total, 1) }
    }
}
elseif ($IsMacOS) {
    $model = (& sysctl -n machdep.cpu.brand_string 2>$null)
    $raw = (& sysctl -n vm.loadavg 2>$null)
    if ($raw) {
        $numbers = $raw.Trim('{', '}', ' ').Split(' ', [StringSplitOptions]::RemoveEmptyEntries)
        $load = @([double]$numbers[0], [double]$numbers[1], [double]$numbers[2])
    }
}

[pscustomobject]@{
    model             = $model
    logicalProcessors = [Environment]::ProcessorCount
    architecture      = [System.Runtime.InteropServices.RuntimeInformation]::ProcessArchitecture.ToString().ToLowerInvariant()
    loadAverage       = $load
    usagePercent      = $usage
}
