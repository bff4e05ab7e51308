; ES module imports, read once per module before the walk: an import statement sits at
; the top level and binds its names for the whole module, so it needs no enclosing symbol.
; ``require()`` and ``import()`` calls stay in the walk: they sit in any scope.  A
; statement under an error node counts (a file that parses in part); one inside an
; ambient ``declare module`` block does not (the extractor checks its ancestors).
; Every statement names its module; each pattern below adds the names it binds.
(import_statement source: (string) @source) @import
(import_statement
  (import_clause (identifier) @default)
  source: (string) @source)
(import_statement
  (import_clause (namespace_import (identifier) @namespace))
  source: (string) @source)
(import_statement
  (import_clause
    (named_imports
      (import_specifier name: (_) @name alias: (_)? @alias)))
  source: (string) @source)
