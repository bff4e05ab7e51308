; Every call with its callee expression and argument list.
(call function: (_) @fn arguments: (_) @args) @call
