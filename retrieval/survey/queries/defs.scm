; Function and class definitions; decorators are read from the enclosing
; decorated_definition node in Python code.
(function_definition name: (identifier) @name) @def
(class_definition name: (identifier) @name) @class
