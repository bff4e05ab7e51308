; Loops, to find the ones whose bodies call a model.
(for_statement) @loop
(while_statement) @loop
