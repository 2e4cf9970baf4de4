# A pack's PowerShell module (runner confinement tests): its runspace keeps state between
# calls, on the pack's own host.
$script:Reads = 0

function Read-Secret {
    param([Parameter(Mandatory)] [string] $Path)
    $script:Reads += 1
    try {
        [ordered]@{ ok = $true; value = [System.IO.File]::ReadAllText($Path); reads = $script:Reads }
    } catch {
        [ordered]@{ ok = $false; error = $_.Exception.Message; reads = $script:Reads }
    }
}

Export-ModuleMember -Function 'Read-Secret'
