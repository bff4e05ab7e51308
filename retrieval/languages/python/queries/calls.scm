; Every call: the call, its callee expression as written and its argument list.
(call function: (_) @call.callee arguments: (_) @call.arguments) @call
