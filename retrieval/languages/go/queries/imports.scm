; A Go file's package and its imports (each with its local name when it gives one), read
; before the walk: both sit at the top of the file and need no enclosing symbol.
(package_clause (package_identifier) @package)
(import_spec name: (_)? @alias path: (_) @path) @import
