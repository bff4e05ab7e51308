; Plain and from-imports; aliases are read from the captured statement.
(import_statement) @import.module
(import_from_statement) @import.from
