; Assignments at any level, for named constants (prompts, models, paths).
(assignment left: (_) @lhs right: (_) @rhs) @assign
