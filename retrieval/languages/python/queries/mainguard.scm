; The module-level `if __name__ == "__main__":` block (either operand order).
(module
  (if_statement
    condition: (comparison_operator
      (identifier) @_name
      (string (string_content) @_main))
    consequence: (block)) @guard.main
  (#eq? @_name "__name__")
  (#eq? @_main "__main__"))
(module
  (if_statement
    condition: (comparison_operator
      (string (string_content) @_main)
      (identifier) @_name)
    consequence: (block)) @guard.main
  (#eq? @_name "__name__")
  (#eq? @_main "__main__"))
