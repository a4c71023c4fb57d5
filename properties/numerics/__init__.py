"""Numerical groundwork every floor above uses: check results, input validation, dtypes and correctly rounded
low-precision arithmetic."""
