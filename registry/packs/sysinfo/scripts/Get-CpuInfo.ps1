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
    $processors = @(Get-CimInstance -ClassName Win32_Processor)
    $model = $processors[0].Name.Trim()
    if ($SampleMilliseconds -gt 0) {
        # The mean over the processors that report a load, as Measure-Object -Average gives.
        $loads = @(foreach ($processor in $processors) { if ($null -ne $processor.LoadPercentage) { [double]$processor.LoadPercentage } })
        if ($loads.Count -gt 0) {
            $sum = 0.0
            foreach ($value in $loads) { $sum += $value }
            $usage = $sum / $loads.Count
        }
    }
}
elseif ($IsLinux) {
    # .NET file APIs rather than Get-Content: they behave the same on every PowerShell 7 and
    # need no module.
    foreach ($line in [System.IO.File]::ReadAllLines('/proc/cpuinfo')) {
        # Case-sensitive: lower-case "processor" is the CPU's index, "Processor" (ARM) its model.
        if ($line -cmatch '^(model name|Hardware|Processor)\s*:') {
            $model = ($line -split ':', 2)[1].Trim()
            break
        }
    }
    $parts = [System.IO.File]::ReadAllText('/proc/loadavg').Split(' ')
    $load = @([double]$parts[0], [double]$parts[1], [double]$parts[2])
    if ($SampleMilliseconds -gt 0) {
        # Two readings of the aggregate "cpu" line: busy time over total time between them.
        $read = {
            $fields = [System.IO.File]::ReadAllLines('/proc/stat')[0].Split(' ', [StringSplitOptions]::RemoveEmptyEntries)
            $values = [long[]]::new(8)
            for ($i = 0; $i -lt 8; $i++) { $values[$i] = [long]$fields[$i + 1] }
            , $values
        }
        $first = & $read
        # Short sleeps, so a stopped call ends within one of them.
        $clock = [System.Diagnostics.Stopwatch]::StartNew()
        while ($clock.ElapsedMilliseconds -lt $SampleMilliseconds) {
            [System.Threading.Thread]::Sleep([math]::Min(50, [math]::Max(1, $SampleMilliseconds - $clock.ElapsedMilliseconds)))
        }
        $second = & $read
        $idle = ($second[3] + $second[4]) - ($first[3] + $first[4])
        $total = 0L
        for ($i = 0; $i -lt 8; $i++) { $total += $second[$i] - $first[$i] }
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
