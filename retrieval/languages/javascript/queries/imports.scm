; ES module imports, read once per module before the walk: an import statement sits at
; the top level and binds its names for the whole module, so it needs no enclosing symbol.
; ``require()`` and ``import()`` calls stay in the walk: they sit in any scope.
; Every statement names its module; each pattern below adds the names it binds.
(program (import_statement source: (string) @source) @import)
(program
  (import_statement
    (import_clause (identifier) @default)
    source: (string) @source))
(program
  (import_statement
    (import_clause (namespace_import (identifier) @namespace))
    source: (string) @source))
(program
  (import_statement
    (import_clause
      (named_imports
        (import_specifier name: (_) @name alias: (_)? @alias)))
    source: (string) @source))
