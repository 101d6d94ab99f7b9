"""Tasks: the task card format, the catalog, and its lint rules."""
