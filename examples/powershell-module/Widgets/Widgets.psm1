# Module state: every tool of this module shares one runspace, so calls see each other's changes.
$script:Widgets = [System.Collections.Generic.List[object]]::new()

function Get-Widget {
    <#
    .SYNOPSIS
    Lists the widgets in the store, optionally filtered by name.
    .PARAMETER Name
    A wildcard pattern for widget names.
    .NOTES
    ReadOnlyHint: Only reads the store.
    #>
    param([string]$Name = '*')
    @($script:Widgets | Where-Object { $_.name -like $Name })
}

function Add-Widget {
    <#
    .SYNOPSIS
    Adds a widget to the store and returns it.
    .PARAMETER Name
    The widget's name.
    .PARAMETER Color
    The widget's colour.
    .PARAMETER Size
    The widget's size in centimetres.
    #>
    param(
        [Parameter(Mandatory)][string]$Name,
        [ValidateSet('red', 'green', 'blue')][string]$Color = 'red',
        [ValidateRange(1, 1000)][double]$Size = 10
    )
    $widget = [pscustomobject]@{ name = $Name; color = $Color; size = $Size }
    $script:Widgets.Add($widget)
    $widget
}

function Clear-Widget {
    <#
    .SYNOPSIS
    Removes every widget from the store.
    .NOTES
    DestructiveHint: Empties the store.
    IdempotentHint: Clearing an empty store changes nothing.
    #>
    param()
    $count = $script:Widgets.Count
    $script:Widgets.Clear()
    "Removed $count widgets."
}

function ConvertTo-WidgetLabel {
    # Not exported: a helper the manifest keeps private.
    param($Widget)
    "$($Widget.name) ($($Widget.color))"
}
