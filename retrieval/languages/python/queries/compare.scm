; Comparisons, for score-versus-threshold gates.
(comparison_operator) @comparison
