<#
.SYNOPSIS
Lists the disks and volumes with their size, free space and usage.

.DESCRIPTION
Returns each mounted, ready file system: its mount point, label, format, total size, free
space and the share in use. Pseudo file systems (proc, tmpfs, overlays) are left out unless
asked for.

.PARAMETER Unit
The unit of the sizes returned.

.PARAMETER IncludeAll
Also list pseudo, RAM-backed and zero-sized file systems.

.NOTES
ReadOnlyHint: true
IdempotentHint: true
OpenWorldHint: false
#>
[CmdletBinding()]
param(
    [ValidateSet('MB', 'GB', 'TB')]
    [string]$Unit = 'GB',

    [switch]$IncludeAll
)

Set-StrictMode -Version Latest
$ErrorActionPreference = 'Stop'

$divisor = @{ MB = 1MB; GB = 1GB; TB = 1TB }[$Unit]
$pseudo = @('proc', 'sysfs', 'tmpfs', 'devtmpfs', 'devfs', 'overlay', 'squashfs', 'cgroup', 'cgroup2', 'autofs', 'mqueue', 'debugfs', 'tracefs', 'securityfs', 'pstore', 'bpf', 'configfs', 'fusectl', 'hugetlbfs', 'nsfs', 'ramfs', 'binfmt_misc')

$disks = foreach ($drive in [System.IO.DriveInfo]::GetDrives()) {
    if (-not $drive.IsReady) { continue }
    $format = $drive.DriveFormat
    if (-not $IncludeAll -and ($pseudo -contains $format -or $drive.TotalSize -eq 0 -or $drive.DriveType -eq 'Ram')) { continue }
    [pscustomobject]@{
        mount       = $drive.Name
        label       = $(if ($drive.VolumeLabel -and $drive.VolumeLabel -ne $drive.Name) { $drive.VolumeLabel } else { $null })
        format      = $format
        type        = $drive.DriveType.ToString().ToLowerInvariant()
        total       = [math]::Round($drive.TotalSize / $divisor, 2)
        free        = [math]::Round($drive.AvailableFreeSpace / $divisor, 2)
        usedPercent = $(if ($drive.TotalSize -gt 0) { [math]::Round(100 * ($drive.TotalSize - $drive.TotalFreeSpace) / $drive.TotalSize, 1) } else { $null })
    }
}

[pscustomobject]@{
    unit  = $Unit
    disks = @($disks)
}
