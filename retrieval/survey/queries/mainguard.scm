; if __name__ == "__main__": blocks at module level.
(module (if_statement condition: (comparison_operator) @cond consequence: (block) @body) @guard)
