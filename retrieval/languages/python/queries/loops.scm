; Loops, to find the ones whose bodies call a model.
(for_statement) @loop.for
(while_statement) @loop.while
