"""Typed table definitions: the official schemas as data the rest of the code queries."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Column(BaseModel):
    """One column: official name, DuckDB type, and whether NULL is allowed."""

    model_config = ConfigDict(frozen=True)

    name: str
    type: str
    nullable: bool = True


class Table(BaseModel):
    """One table of a dataset, in its official schema."""

    model_config = ConfigDict(frozen=True)

    schema_name: str
    name: str
    columns: tuple[Column, ...]
    primary_key: tuple[str, ...] = ()
    description: str = ""

    @property
    def qualified(self) -> str:
        return f"{self.schema_name}.{self.name}"

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(column.name for column in self.columns)

    def column(self, name: str) -> Column:
        for column in self.columns:
            if column.name == name:
                return column
        raise KeyError(f"{self.qualified} has no column {name!r}")

    def duckdb_columns(self) -> dict[str, str]:
        """``{name: type}`` in official order, as DuckDB's ``read_csv(columns=...)`` takes it."""
        return {column.name: column.type for column in self.columns}


class DatasetSchema(BaseModel):
    """A dataset release: its name, version and every table."""

    model_config = ConfigDict(frozen=True)

    dataset: str
    version: str
    tables: tuple[Table, ...]

    @property
    def schema_names(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for table in self.tables:
            seen.setdefault(table.schema_name, None)
        return tuple(seen)

    def table(self, qualified: str) -> Table:
        for table in self.tables:
            if table.qualified == qualified:
                return table
        raise KeyError(f"{self.dataset} {self.version} has no table {qualified!r}")

    def tables_in(self, schema_name: str) -> tuple[Table, ...]:
        return tuple(table for table in self.tables if table.schema_name == schema_name)
