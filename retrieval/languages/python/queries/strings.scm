; String literals (plain, triple-quoted and f-strings) for prompt detection.
(string) @string
; A docstring: a string statement that comes first in its block or module.
(_ . (expression_statement (string) @string.doc))
; A piece of an implicitly concatenated string ("a" "b"): not a string of its own.
(concatenated_string (string) @string.part)
