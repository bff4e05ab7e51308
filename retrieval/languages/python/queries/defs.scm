; Function and class definitions, named by what they define; decorators are read
; from the enclosing decorated_definition node in Python code.
(function_definition name: (identifier) @name) @definition.function
(class_definition name: (identifier) @name) @definition.class
