<#
.SYNOPSIS
Describes the operating system the server runs on.

.DESCRIPTION
Returns the platform, OS name and version, architecture, host name, uptime, the current
user and the PowerShell and .NET versions. Works on Windows, Linux and macOS.

.NOTES
ReadOnlyHint: true
IdempotentHint: true
OpenWorldHint: false
#>
[CmdletBinding()]
param()

Set-StrictMode -Version Latest
$ErrorActionPreference = 'Stop'

$platform = if ($IsWindows) { 'windows' } elseif ($IsMacOS) { 'macos' } elseif ($IsLinux) { 'linux' } else { 'unknown' }
$name = [System.Runtime.InteropServices.RuntimeInformation]::OSDescription.Trim()
if ($IsLinux -and [System.IO.File]::Exists('/etc/os-release')) {
    # PRETTY_NAME says "Ubuntu 24.04 LTS" where OSDescription says only the kernel.
    foreach ($line in [System.IO.File]::ReadAllLines('/etc/os-release')) {
        if ($line -like 'PRETTY_NAME=*') {
            $name = $line.Substring(12).Trim('"')
            break
        }
    }
}
$uptime = [TimeSpan]::FromMilliseconds([Environment]::TickCount64)

[pscustomobject]@{
    platform          = $platform
    name              = $name
    version           = [Environment]::OSVersion.Version.ToString()
    architecture      = [System.Runtime.InteropServices.RuntimeInformation]::OSArchitecture.ToString().ToLowerInvariant()
    hostName          = [System.Net.Dns]::GetHostName()
    user              = [Environment]::UserName
    uptimeSeconds     = [long]$uptime.TotalSeconds
    bootTime          = [DateTime]::UtcNow.Subtract($uptime).ToString('o')
    powershellVersion = $PSVersionTable.PSVersion.ToString()
    dotnetVersion     = [Environment]::Version.ToString()
    timeZone          = [TimeZoneInfo]::Local.Id
}
