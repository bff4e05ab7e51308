; Plain and from-imports; aliases are read from the captured statement.
(import_statement) @import
(import_from_statement) @from
