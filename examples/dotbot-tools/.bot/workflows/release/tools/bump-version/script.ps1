function Invoke-BumpVersion {
    param([hashtable]$Arguments)
    $major, $minor, $patch = $Arguments.current.Split('.') | ForEach-Object { [int]$_ }
    switch ($Arguments.part) {
        'major' { $major++; $minor = 0; $patch = 0 }
        'minor' { $minor++; $patch = 0 }
        'patch' { $patch++ }
    }
    "$major.$minor.$patch"
}
