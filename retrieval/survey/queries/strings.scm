; String literals (plain, triple-quoted and f-strings) for prompt detection.
(string) @string
