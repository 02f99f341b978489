"""The commbench version, shared by the binary and the result files."""

COMMBENCH_VERSION = "0.1.0"
