<#
.SYNOPSIS
    The one call of the confined warm-up that records PowerShell's startup profile for pack
    hosts (src/pwsh/startup-profile.ts): Toolpack's own code, so no pack's code shapes it.
#>
param([string] $Text = 'ready')
[ordered]@{ text = $Text; at = [datetime]::UtcNow.ToString('o') }
