; Assignments at any level, for named constants (prompts, models, paths) and aliases.
(assignment left: (_) @assignment.target right: (_) @assignment.value) @assignment
