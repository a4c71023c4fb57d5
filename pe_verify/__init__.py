"""pe-verify: machine-checked proofs and measurements of claims about transformer positional encodings."""

__version__ = "0.1.0"
