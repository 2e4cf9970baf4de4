@{
    RootModule        = 'Widgets.psm1'
    ModuleVersion     = '1.0.0'
    GUID              = '6f1f2a9e-3a55-4c1e-9a53-2f3c2a1f0b11'
    Author            = 'Toolpack examples'
    Description       = 'An in-memory widget store: state lives in the module runspace.'
    FunctionsToExport = @('Get-Widget', 'Add-Widget', 'Clear-Widget')
}
