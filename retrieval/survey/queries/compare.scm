; Comparisons, for score-versus-threshold gates and the __main__ guard.
(comparison_operator) @cmp
