"""The suite's own families of the `check` battery, one module each (found by `family_index`)."""
