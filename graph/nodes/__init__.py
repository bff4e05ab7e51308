"""Workflow nodes, one module each; named as the verb phrase of what they do."""
