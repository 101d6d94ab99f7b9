"""The official schemas of the supported datasets."""
