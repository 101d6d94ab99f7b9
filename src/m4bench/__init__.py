"""m4bench: an open benchmark of AI coding agents deriving clinical concepts from EHR data."""

__version__ = "0.1.0"
