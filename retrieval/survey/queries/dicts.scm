; Dictionaries and lists, for registries of callables and JSON tool schemas.
(dictionary) @dict
