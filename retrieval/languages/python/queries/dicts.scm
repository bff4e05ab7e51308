; Dictionaries, for registries of callables and JSON tool schemas.
(dictionary) @dictionary
