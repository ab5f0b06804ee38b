"""mx.sym._internal: every registered operator under its own name (underscored ones too)."""
