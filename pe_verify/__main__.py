"""`python -m pe_verify`: the `pe-verify` program, for an environment whose scripts folder is not on PATH."""

import sys

from pe_verify.cli import console

sys.exit(console())
