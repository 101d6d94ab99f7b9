"""Source data: official schemas, synthetic generators, ingest of real data, on-disk layout."""
